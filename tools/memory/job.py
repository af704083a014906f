"""From a MemoryInput to a Job (what is computed) and a Layout (how it is split), with every
default the user did not give written down as an assumption."""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from clusterplan.tools.contract import ToolError
from clusterplan.tools.memory.input import TRAINING, MemoryInput
from clusterplan.tools.memory.model_shape import (
    ModelShape,
    find_model,
    shape_from_config,
    shape_from_params,
)
from clusterplan.tools.memory.optimizers import OptimizerBytes, optimizer_bytes
from clusterplan.tools.memory.precision import GRADIENT_BYTES, QUANTISED, stored_bytes_per_param

DEFAULT_TOKENS = 4096  # default seq_len (training) and context_len (inference), capped by model
ALL_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")
_KV_FOLLOWS = ("fp32", "bf16", "fp16")  # weights whose type the KV cache takes


# Hashed by value: the parallelism search memoises on it. Never mutated after __post_init__.
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
    fp32_main_grads: bool = False  # Megatron-LM's FP32 main gradients
    bits_per_weight: float | None = None  # a served quantisation's average (EXL2 "4.65bpw")

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
        self.weight_bytes = stored_bytes_per_param(precision, self.shape) \
            if self.bits_per_weight is None else self.bits_per_weight / 8
        # Gradient bytes per trainable parameter (adapters train at 16 bits).
        self.grad_bytes = (2.0 if adapters and precision != "fp32"
                           else GRADIENT_BYTES[precision])
        if self.fp32_main_grads and not adapters and precision != "fp16":
            # The gradient buffer itself is FP32 (megatron-optimizer-memory#bf16); fp16
            # weights keep 16-bit gradients and an FP32 copy among the optimizer's states.
            self.grad_bytes = max(self.grad_bytes, 4.0)
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


def resolve_shape(inp: MemoryInput, catalog: Any = None) -> ModelShape:
    """The model's shape from the catalog (default: the active one) or from params_b (cached
    for catalog names)."""
    if inp.config is not None:
        return shape_from_config(inp.config)
    model = inp.model
    if model is not None:
        return find_model(model, catalog)
    given = {f: getattr(inp, f) for f in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden",
                                          "vocab", "experts", "experts_per_token",
                                          "active_params_b")}
    return shape_from_params(inp.params_b or 0.0, given)


def resolve_job(inp: MemoryInput, shape: ModelShape, said: list[str]) -> Job:
    """Fill every default, appending to `said` what was assumed (in the order of Job's fields;
    written out field by field, as every answer runs it)."""
    fields = dict(inp)  # the input's fields by name
    workload, precision, kv_given, flash, lora_rank, lora_targets = _JOB_FIELDS(fields)
    if workload is None:
        workload = "inference"
        said.append("workload: inference (no workload given)")
    if workload in ("pretrain", "full_finetune", "lora") and precision in QUANTISED:
        said.append(f"workload: qlora-style, a frozen {precision} base with 16-bit LoRA adapters "
                    f"({workload} cannot update {precision} weights: qlora-paper#nf4)")
        workload = "qlora"
    training = workload in TRAINING
    adapters = workload == "lora" or workload == "qlora"
    released = ""
    bits = fields.get("bits_per_weight")
    if bits is not None:
        # every weight at the average the quantisation was made to (gptq-awq-formats#exl2-bpw);
        # the matmuls run in 16 bits, as a 4-bit base does
        precision = precision or ("int4" if bits < 8 else "int8")
        said.append(f"weights: {bits:g} bits per weight on average, over every weight "
                    "(gptq-awq-formats#exl2-bpw)")
    if precision is None:
        if workload == "qlora":
            precision = "nf4"
        elif workload == "inference" and shape.native_precision != "bf16":
            precision = shape.native_precision
        else:
            precision = "bf16"
        released = " (the released checkpoint's own)" if precision == shape.native_precision \
            and precision != "bf16" else ""
        said.append(f"precision: {precision} weights{released}")
    # A KV cache stays in the 16-bit compute type unless a cache type is asked for, whatever
    # the weights are stored in (kv-cache#cache-dtype-default); FP32 weights compute in FP32.
    kv = kv_given or (precision if precision in _KV_FOLLOWS else "bf16")
    if workload == "inference" and kv_given is None:
        said.append(f"kv_precision: {kv} KV cache")
    tokens = min(DEFAULT_TOKENS, shape.max_context)
    if training:
        optimizer, zero_stage, seq_len, micro_batch, recompute, sequence_parallel = \
            _training_defaults(fields, workload, precision, shape.hidden, tokens, said)
    else:
        optimizer = None
        _, _, zero_stage, seq_len, micro_batch, recompute, sequence_parallel = \
            _TRAINING_FIELDS(fields)
        zero_stage = 3 if zero_stage is None else zero_stage
        seq_len = tokens if seq_len is None else seq_len
        micro_batch = 1 if micro_batch is None else micro_batch
        recompute = "none" if recompute is None else recompute
        sequence_parallel = False if sequence_parallel is None else sequence_parallel
    if flash is None:
        flash = True
        said.append("flash_attention: on (attention scores not kept)")
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
        batch, context_len, paging = _SERVING_FIELDS(fields)
        if batch is None:
            batch = 1
            said.append("batch: 1 sequence")
        if context_len is None:
            context_len = tokens
            said.append(f"context_len: {tokens} tokens (prompt + generated)")
        if paging is None:
            paging = True
            said.append("paging: on (KV cache in 16-token pages)")
    return Job(shape, workload, precision, kv, optimizer, zero_stage, seq_len, micro_batch,
               fields["microbatches_in_flight"], recompute, sequence_parallel, flash, lora_rank,
               tuple(lora_targets), batch, context_len, paging,
               training and not adapters and fields["fp32_main_grads"], bits)


def _training_defaults(fields: dict[str, Any], workload: str, precision: str, hidden: int,
                       tokens: int, said: list[str]) -> tuple[Any, ...]:
    """Optimizer bytes, ZeRO stage, seq_len, micro_batch, recompute and sequence_parallel of a
    training job (`fields`: the input's), given or assumed (and then said)."""
    name, master, zero_stage, seq_len, micro_batch, recompute, sequence_parallel = \
        _TRAINING_FIELDS(fields)
    if name is None:
        name = "adamw"
        said.append("optimizer: AdamW")
    # Mixed precision keeps an FP32 master copy; FP32 training has nothing to copy.
    mixed = precision != "fp32"
    if master is None:
        master = mixed
        said.append("master_weights: on (FP32 copy of the trained weights)" if mixed
                    else "master_weights: off (FP32 training)")
    if zero_stage is None:
        zero_stage = 3
        said.append("zero_stage: 3 (fully sharded data parallel, like FSDP's full sharding)")
    if seq_len is None:
        seq_len = tokens
        said.append(f"seq_len: {tokens} tokens")
    if micro_batch is None:
        micro_batch = 1
        said.append("micro_batch: 1 sequence per GPU")
    if recompute is None:
        # QLoRA trains with gradient checkpointing (qlora-paper#gradient-checkpointing).
        if workload == "qlora":
            recompute = "full"
            said.append("recompute: full (gradient checkpointing, as QLoRA trains)")
        else:
            recompute = "none"
            said.append("recompute: none (all activations kept)")
    if sequence_parallel is None:
        sequence_parallel = False
        said.append("sequence_parallel: off")
    main_grads = fields["fp32_main_grads"] and precision == "fp16" and workload not in (
        "lora", "qlora")
    return (optimizer_bytes(name, bool(master) and mixed, hidden, main_grads), zero_stage, seq_len,
            micro_batch, recompute, sequence_parallel)


# The input's fields each part of the defaults reads, by name.
_JOB_FIELDS = itemgetter("workload", "precision", "kv_precision", "flash_attention", "lora_rank",
                         "lora_targets")
_TRAINING_FIELDS = itemgetter("optimizer", "master_weights", "zero_stage", "seq_len",
                              "micro_batch", "recompute", "sequence_parallel")
_SERVING_FIELDS = itemgetter("batch", "context_len", "paging")


def check_layout(shape: ModelShape, layout: Layout) -> None:
    """Refuse layouts the model cannot take, in one line naming the field and valid values."""
    if layout.tp > 1 and (msg := tp_problem(shape, layout.tp)):  # tp = 1 splits nothing
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
