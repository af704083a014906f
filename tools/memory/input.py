"""The memory tool's input: every field a user can give, its valid range, and its default."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, model_validator

from clusterplan.tools.input_checks import CheckedInput
from clusterplan.tools.memory.model_shape import ARCHITECTURE_FIELDS
from clusterplan.tools.memory.optimizers import Optimizer
from clusterplan.tools.memory.precision import QUANTISED, TRAINING_PRECISIONS, Precision

Workload = Literal["pretrain", "full_finetune", "lora", "qlora", "inference"]
Recompute = Literal["none", "selective", "full"]
LoraTarget = Literal["q", "k", "v", "o", "gate", "up", "down"]
KvPrecision = Literal["fp32", "bf16", "fp16", "fp8", "int8"]
TRAINING = ("pretrain", "full_finetune", "lora", "qlora")

# Valid ranges (inclusive) of the sizes a user gives; anything else is refused in one line.
RANGES: dict[str, tuple[float, float]] = {
    "layers": (1, 10_000), "hidden": (1, 1_000_000), "heads": (1, 100_000),
    "kv_heads": (1, 100_000), "ffn_hidden": (1, 10_000_000), "vocab": (1, 10_000_000),
    "experts": (1, 100_000), "experts_per_token": (1, 100_000), "dp": (1, 1_000_000),
    "tp": (1, 1024), "pp": (1, 1024), "ep": (1, 100_000), "seq_len": (1, 100_000_000),
    "micro_batch": (1, 65_536), "microbatches_in_flight": (1, 65_536), "lora_rank": (1, 65_536),
    "batch": (1, 1_000_000), "context_len": (1, 100_000_000), "gpus": (1, 1_000_000),
}

MAX_CONFIG_CHARS = 200_000  # the largest real config.json seen is under 20 kB


FP32_MAIN_GRADS = ("training: FP32 main gradients as Megatron-LM keeps them (bf16: an FP32 "
                   "gradient buffer, 18 bytes a parameter with AdamW; fp16: an FP32 copy beside "
                   "the 16-bit gradients, 20)")


class MemoryInput(CheckedInput):
    """A model (catalog name, or params_b and what is known of its shape) and a workload."""

    RANGES = RANGES

    model: str | None = Field(default=None, max_length=200,
                              description="catalog id or name as typed, e.g. 'Llama 3 70B'")
    config: dict[str, Any] | None = Field(
        default=None, description="a Hugging Face config.json, parsed: the model's shape for a "
        "model outside the catalog (instead of model or params_b)")
    params_b: float | None = Field(default=None, description="total parameters, in billions")
    layers: int | None = Field(default=None, description="with params_b: transformer layers")
    hidden: int | None = Field(default=None, description="with params_b: hidden size")
    heads: int | None = Field(default=None, description="with params_b: attention heads")
    kv_heads: int | None = Field(default=None, description="with params_b: KV heads (GQA/MQA)")
    ffn_hidden: int | None = Field(default=None, description="with params_b: FFN size (per expert)")
    vocab: int | None = Field(default=None, description="with params_b: vocabulary size")
    experts: int | None = Field(default=None, description="with params_b: experts per MoE layer")
    experts_per_token: int | None = Field(default=None, description="with params_b: routed top-k")
    active_params_b: float | None = Field(default=None, description="with params_b: active, in B")
    workload: Workload | None = Field(default=None, description="default inference")
    precision: Precision | None = Field(
        default=None, description="weights/compute; default bf16 (nf4 for qlora)")
    kv_precision: KvPrecision | None = Field(
        default=None,
        description="KV cache; default 16-bit (fp32 with fp32 weights), however weights are stored")
    bits_per_weight: float | None = Field(
        default=None, ge=1.5, le=16, description="inference: a quantisation's average bits per "
        "weight (EXL2 '4.65bpw'); the weights take params x bits / 8 (gptq-awq-formats#exl2-bpw)")
    optimizer: Optimizer | None = Field(default=None, description="training; default adamw")
    master_weights: bool | None = Field(
        default=None, description="FP32 master copy under mixed precision; default on")
    zero_stage: Literal[0, 1, 2, 3] | None = Field(
        default=None, description="ZeRO stage 0-3; default 3 (fully sharded data parallel)")
    fp32_main_grads: bool = Field(default=False, description=FP32_MAIN_GRADS)
    dp: int | None = Field(default=None, description="data parallel degree; default gpus/(tp·pp)")
    tp: int | None = Field(default=None, description="tensor parallel degree; default 1")
    pp: int | None = Field(default=None, description="pipeline parallel degree; default 1")
    ep: int | None = Field(default=None, description="expert parallel degree (MoE); default 1")
    seq_len: int | None = Field(default=None, description="training tokens per sequence; 4096")
    micro_batch: int | None = Field(default=None, description="sequences per GPU per step; 1")
    microbatches_in_flight: int | None = Field(
        default=None, description="micro-batches whose activations one pipeline stage holds at "
        "once; default pp (the first stage of a 1F1B schedule)")
    recompute: Recompute | None = Field(default=None, description="activation recompute; none")
    sequence_parallel: bool | None = Field(default=None, description="Megatron SP; default off")
    flash_attention: bool | None = Field(
        default=None, description="FlashAttention (no s x s scores kept); default on")
    lora_rank: int | None = Field(default=None, description="LoRA rank r; default 16")
    lora_targets: list[LoraTarget] | None = Field(
        default=None, description="linear layers with adapters; default all seven")
    batch: int | None = Field(default=None, description="inference: concurrent sequences; 1")
    context_len: int | None = Field(
        default=None, description="inference: prompt + generated tokens; default 4096")
    paging: bool | None = Field(
        default=None, description="inference: paged KV cache in 16-token pages; default on")
    gpu: str | None = Field(default=None, max_length=200, description="GPU kind, e.g. 'H100'")
    gpus: int | None = Field(default=None, description="GPUs in all; default dp·tp·pp")
    gpu_memory_gb: float | None = Field(
        default=None, gt=0, le=10_000, description="GPU memory in GB when no catalog GPU is "
        "named (e.g. 8 for an 8 GB card)")
    gpu_layers: int | None = Field(
        default=None, ge=0, le=10_000, description="inference: layers kept on the GPU, the rest "
        "in host RAM (llama.cpp -ngl); default all, or as many as fit gpu memory")
    offload: Literal["none", "optimizer", "optimizer_and_params"] | None = Field(
        default=None, description="training: ZeRO-Offload (optimizer states and gradients to "
        "host RAM) or ZeRO-Infinity (parameters too, ZeRO-3); default none")
    host_ram_gb: float | None = Field(
        default=None, gt=0, le=1_000_000, description="host RAM per node available, GB")
    host_bw_gbps: float | None = Field(
        default=None, gt=0, le=100_000, description="GB/s for offloaded bytes: RAM bandwidth "
        "for inference layers on the CPU (default 89.6), PCIe per direction for training "
        "offload (default 31.5)")

    @model_validator(mode="after")
    def _consistent(self) -> MemoryInput:
        if self.config is not None:
            if self.model is not None or self.params_b is not None:
                raise ValueError("config: a config.json brings its own model; give it alone, "
                                 "without model or params_b")
            if len(json.dumps(self.config)) > MAX_CONFIG_CHARS:
                raise ValueError(f"config: longer than {MAX_CONFIG_CHARS:,} characters; a "
                                 "config.json is a few kilobytes")
        else:
            self.check_model_or_size(ARCHITECTURE_FIELDS)
        self._check_shape_fields()
        self._check_precision()
        if self.bits_per_weight is not None and (self.workload or "inference") != "inference":
            raise ValueError("bits_per_weight: an average bit width is a served quantisation; "
                             "training keeps weights in 16 bits (or a 4-bit QLoRA base)")
        return self

    def _check_shape_fields(self) -> None:
        if (self.experts_per_token or 1) > (self.experts or 1):
            raise ValueError("experts_per_token: must not exceed experts")
        if self.active_params_b and self.params_b and self.active_params_b > self.params_b:
            raise ValueError("active_params_b: must not exceed params_b")
        if self.heads and self.kv_heads and self.heads % self.kv_heads:
            raise ValueError(f"kv_heads: {self.kv_heads} must divide heads ({self.heads})")

    def _check_precision(self) -> None:
        workload, precision = self.workload or "inference", self.precision
        if precision is None:
            return
        if workload == "qlora" and precision not in QUANTISED:
            raise ValueError(f"precision: qlora keeps its base in 4 bits; valid: "
                             f"{', '.join(QUANTISED)} (use workload lora for {precision})")
        if workload in ("pretrain", "full_finetune") and precision not in TRAINING_PRECISIONS \
                and precision not in QUANTISED:
            raise ValueError(f"precision: {workload} trains every weight, so valid precisions "
                             f"are {', '.join(TRAINING_PRECISIONS)}; not {precision}")
