"""From a MemoryInput to a Job (what is computed) and a Layout (how it is split), with every
default the user did not give written down as an assumption."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clusterplan.tools.contract import ToolError
from clusterplan.tools.memory_input import TRAINING, MemoryInput
from clusterplan.tools.memory_precision import BYTES, gradient_bytes
from clusterplan.tools.model_shape import ModelShape, find_model, shape_from_params
from clusterplan.tools.optimizers import OptimizerBytes, optimizer_bytes

DEFAULT_TOKENS = 4096  # default seq_len (training) and context_len (inference), capped by model
ALL_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")
_KV_PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8")  # a KV cache may take the weights'


# Not frozen (a frozen dataclass sets each field through object.__setattr__, slower to build),
# but hashed by value like one: the parallelism search memoises on it. Never mutated.
@dataclass(slots=True, unsafe_hash=True)
class Job:
    """Everything that decides the bytes, except how the GPUs split the work."""

    shape: ModelShape
    workload: str
    precision: str
    kv_precision: str
    optimizer: OptimizerBytes | None
    zero_stage: int
    seq_len: int
    micro_batch: int
    in_flight: int | None  # None: as many micro-batches as pipeline stages
    recompute: str
    sequence_parallel: bool
    flash: bool
    lora_rank: int
    lora_targets: tuple[str, ...]
    batch: int
    context_len: int
    paging: bool

    # Derived when the job is made (the byte formulas read them many times per answer).
    training: bool = field(init=False, repr=False, compare=False)
    adapters: bool = field(init=False, repr=False, compare=False)
    weight_bytes: float = field(init=False, repr=False, compare=False)
    grad_bytes: float = field(init=False, repr=False, compare=False)
    activation_scale: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        precision = self.precision
        self.training = self.workload in TRAINING
        self.adapters = adapters = self.workload in ("lora", "qlora")
        self.weight_bytes = BYTES[precision]
        # Gradient bytes per trainable parameter (adapters train at 16 bits).
        self.grad_bytes = (2.0 if adapters and precision != "fp32"
                           else gradient_bytes(precision))
        # The activation formula counts 16-bit values; FP32 activations take twice that.
        self.activation_scale = 2.0 if precision == "fp32" else 1.0


@dataclass(slots=True, unsafe_hash=True)
class Layout:
    """How the GPUs split one job: data, tensor, pipeline and expert parallel degrees."""

    dp: int = 1
    tp: int = 1
    pp: int = 1
    ep: int = 1

    @property
    def gpus(self) -> int:
        return self.dp * self.tp * self.pp


def resolve_shape(inp: MemoryInput) -> ModelShape:
    """The model's shape from the catalog or from params_b (cached for catalog names)."""
    if inp.model is not None:
        return find_model(inp.model)
    given = {f: getattr(inp, f) for f in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden",
                                          "vocab", "experts", "experts_per_token",
                                          "active_params_b")}
    return shape_from_params(inp.params_b or 0.0, given)


def resolve_job(inp: MemoryInput, shape: ModelShape, said: list[str]) -> Job:
    """Fill every default, appending to `said` what was assumed (in the order of Job's fields;
    written out field by field, as every answer runs it)."""
    workload = inp.workload
    if workload is None:
        workload = "inference"
        said.append("workload: inference (no workload given)")
    training = workload in TRAINING
    adapters = workload == "lora" or workload == "qlora"
    precision = inp.precision
    if precision is None:
        precision = "nf4" if workload == "qlora" else "bf16"
        said.append(f"precision: {precision} weights")
    kv = inp.kv_precision or (precision if precision in _KV_PRECISIONS else "bf16")
    if workload == "inference" and inp.kv_precision is None:
        said.append(f"kv_precision: {kv} KV cache")
    tokens = min(DEFAULT_TOKENS, shape.max_context)
    optimizer = None
    zero_stage, seq_len, micro_batch = inp.zero_stage, inp.seq_len, inp.micro_batch
    recompute, sequence_parallel = inp.recompute, inp.sequence_parallel
    if training:
        name = _default(inp.optimizer, "adamw", "optimizer: AdamW", said)
        # Mixed precision keeps an FP32 master copy; FP32 training has nothing to copy.
        mixed = precision != "fp32"
        master = _default(inp.master_weights, mixed, "master_weights: on (FP32 copy of the "
                          "trained weights)" if mixed else "master_weights: off (FP32 training)",
                          said)
        optimizer = optimizer_bytes(name, bool(master) and mixed, shape.hidden)
        zero_stage = _default(zero_stage, 3, "zero_stage: 3 (fully sharded data parallel, like "
                              "FSDP's FULL_SHARD)", said)
        seq_len = _default(seq_len, tokens, f"seq_len: {tokens} tokens", said)
        micro_batch = _default(micro_batch, 1, "micro_batch: 1 sequence per GPU", said)
        recompute = _default(recompute, *_recompute_default(workload), said)
        sequence_parallel = _default(sequence_parallel, False, "sequence_parallel: off", said)
    else:
        zero_stage = 3 if zero_stage is None else zero_stage
        seq_len = tokens if seq_len is None else seq_len
        micro_batch = 1 if micro_batch is None else micro_batch
        recompute = "none" if recompute is None else recompute
        sequence_parallel = False if sequence_parallel is None else sequence_parallel
    flash = inp.flash_attention
    if flash is None:
        flash = True
        said.append("flash_attention: on (attention scores not kept)")
    lora_rank, lora_targets = inp.lora_rank, inp.lora_targets
    if lora_rank is None:
        lora_rank = 16
        if adapters:
            said.append("lora_rank: 16")
    if lora_targets is None:
        lora_targets = ALL_TARGETS
        if adapters:
            said.append("lora_targets: all seven linear layers (q, k, v, o, gate, up, down)")
    batch, context_len, paging = 1, 0, True
    if not training:
        batch = _default(inp.batch, 1, "batch: 1 sequence", said)
        context_len = _default(inp.context_len, tokens, f"context_len: {tokens} tokens (prompt "
                               "+ generated)", said)
        paging = _default(inp.paging, True, "paging: on (KV cache in 16-token pages)", said)
    return Job(shape, workload, precision, kv, optimizer, zero_stage, seq_len, micro_batch,
               inp.microbatches_in_flight, recompute, sequence_parallel, flash, lora_rank,
               tuple(lora_targets), batch, context_len, paging)


def _recompute_default(workload: str) -> tuple[str, str]:
    """QLoRA trains with gradient checkpointing (qlora-paper#gradient-checkpointing)."""
    if workload == "qlora":
        return "full", "recompute: full (gradient checkpointing, as QLoRA trains)"
    return "none", "recompute: none (all activations kept)"


def _default(value: Any, fallback: Any, text: str, said: list[str]) -> Any:
    if value is None:
        said.append(text)
        return fallback
    return value


def check_layout(shape: ModelShape, layout: Layout) -> None:
    """Refuse layouts the model cannot take, in one line naming the field and valid values."""
    if msg := tp_problem(shape, layout.tp):
        raise ToolError(msg)
    if layout.pp > shape.layers:
        raise ToolError(f"pp: {layout.pp} pipeline stages for {shape.layers} layers; valid: 1 to "
                        f"{shape.layers}")
    if layout.ep > 1 and not shape.is_moe:
        raise ToolError(f"ep: {shape.name} is dense (no experts); valid: 1")
    if shape.experts % layout.ep:
        raise ToolError(f"ep: {layout.ep} does not divide the {shape.experts} experts")
    if layout.dp % layout.ep:
        raise ToolError(f"ep: {layout.ep} must divide dp ({layout.dp}): experts are spread over "
                        "the data-parallel ranks")


def tp_problem(shape: ModelShape, tp: int) -> str | None:
    """Why `tp` cannot split this model's heads, or None when it can."""
    if shape.heads % tp:
        valid = [d for d in range(1, shape.heads + 1) if shape.heads % d == 0 and d <= 1024]
        return (f"tp: {tp} does not divide the {shape.heads} attention heads of {shape.name}; "
                f"valid: {', '.join(map(str, valid[:12]))}")
    if shape.attention != "mla" and shape.kv_heads % tp and tp % shape.kv_heads:
        return (f"tp: {tp} neither divides the {shape.kv_heads} KV heads of {shape.name} nor is "
                "a multiple of them")
    return None
