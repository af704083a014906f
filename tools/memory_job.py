"""From a MemoryInput to a Job (what is computed) and a Layout (how it is split), with every
default the user did not give written down as an assumption."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clusterplan.tools.contract import ToolError
from clusterplan.tools.memory_input import TRAINING, MemoryInput
from clusterplan.tools.memory_precision import BYTES, gradient_bytes
from clusterplan.tools.model_shape import ModelShape, find_model, shape_from_params
from clusterplan.tools.optimizers import OptimizerBytes, optimizer_bytes

DEFAULT_TOKENS = 4096  # default seq_len (training) and context_len (inference), capped by model
ALL_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")


@dataclass(frozen=True, slots=True)
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

    @property
    def training(self) -> bool:
        return self.workload in TRAINING

    @property
    def adapters(self) -> bool:
        return self.workload in ("lora", "qlora")

    @property
    def weight_bytes(self) -> float:
        return BYTES[self.precision]

    @property
    def grad_bytes(self) -> float:
        """Gradient bytes per trainable parameter (adapters train at 16 bits)."""
        return 2.0 if self.adapters and self.precision != "fp32" else gradient_bytes(self.precision)

    @property
    def activation_scale(self) -> float:
        """The activation formula counts 16-bit values; FP32 activations take twice that."""
        return 2.0 if self.precision == "fp32" else 1.0


@dataclass(frozen=True, slots=True)
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
    """Fill every default, appending to `said` what was assumed."""
    workload = _default(inp.workload, "inference", "workload: inference (no workload given)", said)
    training = workload in TRAINING
    base = "nf4" if workload == "qlora" else "bf16"
    precision = _default(inp.precision, base, f"precision: {base} weights", said)
    kv = inp.kv_precision or (precision if precision in ("fp32", "bf16", "fp16", "fp8", "int8")
                              else "bf16")
    if workload == "inference" and inp.kv_precision is None:
        said.append(f"kv_precision: {kv} KV cache")
    tokens = min(DEFAULT_TOKENS, shape.max_context)
    optimizer = None
    if training:
        name = _default(inp.optimizer, "adamw", "optimizer: AdamW", said)
        # Mixed precision keeps an FP32 master copy; FP32 training has nothing to copy.
        mixed = precision != "fp32"
        master = _default(inp.master_weights, mixed, "master_weights: on (FP32 copy of the "
                          "trained weights)" if mixed else "master_weights: off (FP32 training)",
                          said)
        optimizer = optimizer_bytes(name, bool(master) and mixed, shape.hidden)
    return Job(
        shape=shape, workload=workload, precision=precision, kv_precision=kv, optimizer=optimizer,
        zero_stage=_training_default(inp.zero_stage, 3, "zero_stage: 3 (fully sharded data "
                                     "parallel, like FSDP's FULL_SHARD)", training, said),
        seq_len=_training_default(inp.seq_len, tokens, f"seq_len: {tokens} tokens", training,
                                  said),
        micro_batch=_training_default(inp.micro_batch, 1, "micro_batch: 1 sequence per GPU",
                                      training, said),
        in_flight=inp.microbatches_in_flight,
        recompute=_training_default(inp.recompute, *_recompute_default(workload), training,
                                    said),
        sequence_parallel=_training_default(inp.sequence_parallel, False, "sequence_parallel: "
                                            "off", training, said),
        flash=_default(inp.flash_attention, True, "flash_attention: on (attention scores not "
                       "kept)", said),
        lora_rank=_lora_default(inp.lora_rank, 16, "lora_rank: 16", workload, said),
        lora_targets=tuple(_lora_default(inp.lora_targets, ALL_TARGETS, "lora_targets: all "
                                         "seven linear layers (q, k, v, o, gate, up, down)",
                                         workload, said)),
        batch=_default(inp.batch, 1, "batch: 1 sequence", said) if not training else 1,
        context_len=(_default(inp.context_len, tokens, f"context_len: {tokens} tokens (prompt + "
                              "generated)", said) if not training else 0),
        paging=(_default(inp.paging, True, "paging: on (KV cache in 16-token pages)", said)
                if not training else True),
    )


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


def _training_default(value: Any, fallback: Any, text: str, training: bool,
                      said: list[str]) -> Any:
    if training:
        return _default(value, fallback, text, said)
    return fallback if value is None else value


def _lora_default(value: Any, fallback: Any, text: str, workload: str, said: list[str]) -> Any:
    if workload in ("lora", "qlora"):
        return _default(value, fallback, text, said)
    return fallback if value is None else value


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
