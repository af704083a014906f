"""The parallelism tool's input: the model, the cluster, the workload and the choices to search."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from clusterplan.tools.input_checks import CheckedInput
from clusterplan.tools.memory.input import FP32_MAIN_GRADS, KvPrecision, Recompute
from clusterplan.tools.memory.model_shape import ARCHITECTURE_FIELDS
from clusterplan.tools.memory.optimizers import Optimizer
from clusterplan.tools.memory.precision import Precision

Workload = Literal["pretrain", "train", "full_finetune", "lora", "qlora", "inference"]
Objective = Literal["time", "cost", "headroom"]

RANGES: dict[str, tuple[float, float]] = {
    "gpus": (1, 1_000_000), "nodes": (1, 1_000_000), "gpus_per_node": (1, 1024),
    "nics_per_node": (1, 64), "seq_len": (1, 10_000_000), "global_batch": (1, 100_000_000),
    "global_batch_tokens": (1, 1e12), "top_k": (1, 1000), "context_len": (1, 100_000_000),
    "concurrency": (1, 10_000_000), "layers": (1, 10_000), "hidden": (1, 1_000_000),
    "heads": (1, 100_000), "kv_heads": (1, 100_000), "ffn_hidden": (1, 10_000_000),
    "vocab": (1, 10_000_000), "experts": (1, 100_000), "experts_per_token": (1, 100_000),
}
_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15}
MAX_TOKENS = 1e18
INFERENCE_ONLY = ("context_len", "concurrency", "target_tokens_per_s", "target_latency_ms",
                  "kv_precision")
TRAINING_ONLY = ("seq_len", "global_batch", "global_batch_tokens", "optimizer", "zero_stages",
                 "recompute", "micro_batches", "sequence_parallel", "tokens", "dp_overlap",
                 "context_parallel", "hybrid_sharding", "measured_tflops_per_gpu",
                 "measured_step_s", "measured_layout", "efficiency_scale")


def token_budget(value: float | str | None) -> float | None:
    """A token count as given ('2T', 1.5e12), refused outside (0, 1e18] in one line."""
    if value is None:
        return None
    count = parse_count(value)
    if not 0 < count <= MAX_TOKENS:
        raise ValueError(f"{count:,.0f} tokens is outside the valid range: above 0 and at "
                         "most 1e18")
    return count


def parse_count(text: str | float) -> float:
    """'15T', '300B', '2.5e12' or a number as a count of tokens."""
    if isinstance(text, int | float):
        return float(text)
    found = re.fullmatch(r"\s*([0-9][0-9_,]*\.?[0-9]*(?:e[+-]?\d+)?)\s*([kmbgtp]?)\s*(tokens?)?\s*",
                         text.lower())
    if not found:
        raise ValueError(f"cannot read {text!r} as a token count; write it like '15T', '300B' "
                         "or 2e12")
    return float(found.group(1).replace(",", "").replace("_", "")) * _SUFFIX[found.group(2)]


class MeasuredLayout(BaseModel):
    """The layout a measurement was taken on; what is left out is the best layout's."""

    model_config = ConfigDict(extra="forbid")

    tp: int | None = Field(default=None, ge=1, le=1024)
    pp: int | None = Field(default=None, ge=1, le=100_000)
    micro_batch: int | None = Field(default=None, ge=1, le=65_536)
    zero_stage: Literal[0, 1, 2, 3] | None = None
    recompute: Recompute | None = None


class ParallelismInput(CheckedInput):
    """A model, a cluster and a workload: the layouts to search and how to rank them."""

    RANGES = RANGES

    model: str | None = Field(default=None, max_length=200, description="catalog name")
    params_b: float | None = Field(default=None, description="total parameters, in billions")
    layers: int | None = Field(default=None, description="with params_b: transformer layers")
    hidden: int | None = Field(default=None, description="with params_b: hidden size")
    heads: int | None = Field(default=None, description="with params_b: attention heads")
    kv_heads: int | None = Field(default=None, description="with params_b: KV heads")
    ffn_hidden: int | None = Field(default=None, description="with params_b: FFN size")
    vocab: int | None = Field(default=None, description="with params_b: vocabulary size")
    experts: int | None = Field(default=None, description="with params_b: experts per layer")
    experts_per_token: int | None = Field(default=None, description="with params_b: top-k")
    active_params_b: float | None = Field(default=None, description="with params_b: active, B")
    workload: Workload = Field(default="pretrain", description="'train' means pretrain")
    gpu: str = Field(max_length=200, description="GPU kind, e.g. 'H100' or 'h100-sxm'")
    gpus: int | None = Field(default=None, description="GPUs in all (or nodes x gpus_per_node)")
    nodes: int | None = Field(default=None, description="servers; with gpus_per_node")
    gpus_per_node: int | None = Field(default=None, description="default: the GPU's usual node")
    intra_link: str | None = Field(default=None, description="link inside a node; default GPU's")
    inter_link: str | None = Field(default=None, description="link between nodes; ib-ndr")
    nics_per_node: int | None = Field(default=None, description="default one per GPU")
    seq_len: int | None = Field(default=None, description="training tokens per sequence; 4096")
    global_batch: int | None = Field(default=None, description="sequences per optimizer step")
    global_batch_tokens: int | None = Field(default=None, description="or tokens per step")
    precision: Precision | None = Field(default=None, description="default bf16 (nf4 qlora)")
    kv_precision: KvPrecision | None = Field(default=None, description="inference KV cache")
    optimizer: Optimizer | None = Field(default=None, description="default adamw")
    zero_stages: list[Literal[0, 1, 2, 3]] = Field(default=[0, 1, 2, 3], min_length=1)
    recompute: list[Recompute] = Field(default=["none", "selective", "full"], min_length=1)
    micro_batches: list[int] = Field(default=[1, 2, 4, 8, 16], min_length=1,
                                     description="micro-batch sizes (sequences) to try")
    sequence_parallel: bool | None = Field(default=None, description="Megatron SP; default on")
    context_parallel: list[int] | None = Field(
        default=None, min_length=1, description="context-parallel degrees to try; default: "
        "1, and powers of 2 that leave each rank at least 8,192 tokens of a sequence")
    hybrid_sharding: bool = Field(default=True, description="also weigh ZeRO-3 sharded within "
                                  "a node and replicated across nodes (HSDP)")
    uneven_stages: bool = Field(default=False, description="training: allow pp not dividing "
                                "the layers (serving always may, as its engines do)")
    interleaved: bool = Field(default=True, description="weigh the interleaved pipeline "
                              "schedule (Megatron-LM); false: plain 1F1B, as DeepSpeed runs")
    tokens: float | str | None = Field(default=None, description="training budget, e.g. '15T'")
    objective: Objective = Field(default="time", description="time | cost | headroom")
    top_k: int = Field(default=5, description="plans to return")
    min_headroom_gb: float = Field(default=0.0, ge=0, le=10_000,
                                   description="HBM to keep free beyond the memory estimate")
    efficiency: float | None = Field(default=None, ge=0.01, le=1,
                                     description="share of dense peak the matmuls reach; 0.6")
    dp_overlap: bool = Field(default=True, description="overlap gradient reduction with backward")
    flash_attention: bool | None = Field(default=None, description="FlashAttention (scores "
                                         "kept on chip); default on")
    fp32_main_grads: bool = Field(default=False, description=FP32_MAIN_GRADS)
    measured_tflops_per_gpu: float | None = Field(
        default=None, gt=0, le=100_000, description="model TFLOP/s per GPU you measured; the "
        "compute efficiency is scaled to match it (at measured_layout)")
    measured_step_s: float | None = Field(
        default=None, gt=0, le=1e7, description="seconds per optimizer step you measured at "
        "measured_layout (and this batch); the compute efficiency is scaled to match it")
    efficiency_scale: float | None = Field(
        default=None, gt=0, le=1000, description="a factor on every layout's compute "
        "efficiency, as an earlier calibration found it (the result's efficiency_scale)")
    measured_layout: MeasuredLayout | None = Field(
        default=None, description="the layout measured: tp, pp, micro_batch, zero_stage, "
        "recompute; what is left out is the best layout's")
    context_len: int | None = Field(default=None, description="inference: prompt + output")
    concurrency: int | None = Field(default=None,
                                    description="inference: sequences one replica serves at once")
    target_tokens_per_s: float | None = Field(default=None, gt=0, le=1e12,
                                              description="inference: output tokens/s, all")
    target_latency_ms: float | None = Field(default=None, gt=0, le=1e7,
                                            description="inference: ms per output token")

    _ignored: list[str] = PrivateAttr(default_factory=list)

    @property
    def ignored(self) -> list[str]:
        """Fields given that the workload does not use (warned about, not refused)."""
        return self._ignored

    @field_validator("micro_batches", mode="after")
    @classmethod
    def _micro_batches(cls, value: list[int]) -> list[int]:
        if any(not 1 <= v <= 65_536 for v in value):
            raise ValueError("each micro-batch must be between 1 and 65,536 sequences")
        return sorted(set(value))

    @field_validator("context_parallel", mode="after")
    @classmethod
    def _context_parallel(cls, value: list[int] | None) -> list[int] | None:
        if value is not None and any(not 1 <= v <= 1024 for v in value):
            raise ValueError("each context-parallel degree must be between 1 and 1,024")
        return sorted(set(value)) if value else value

    @field_validator("tokens", mode="after")
    @classmethod
    def _tokens(cls, value: float | str | None) -> float | None:
        return token_budget(value)

    @model_validator(mode="after")
    def _consistent(self) -> ParallelismInput:
        if self.workload == "train":
            self.workload = "pretrain"
        self.check_model_or_size(ARCHITECTURE_FIELDS)
        if self.gpus is None and self.nodes is None:
            raise ValueError("give `gpus`, or `nodes` (with `gpus_per_node` or the GPU's usual "
                             "node size)")
        if self.gpus and self.nodes and self.gpus_per_node and \
                self.gpus != self.nodes * self.gpus_per_node:
            raise ValueError(f"gpus: {self.gpus} is not nodes x gpus_per_node "
                             f"({self.nodes} x {self.gpus_per_node})")
        if self.global_batch and self.global_batch_tokens:
            raise ValueError("give `global_batch` (sequences) or `global_batch_tokens`, not both")
        if self.measured_tflops_per_gpu and self.measured_step_s:
            raise ValueError("give `measured_tflops_per_gpu` or `measured_step_s`, not both")
        self._ignored = [f for f in (INFERENCE_ONLY if self.workload != "inference"
                                     else TRAINING_ONLY)
                         if f in self.model_fields_set and getattr(self, f) is not None]
        self.zero_stages = sorted(set(self.zero_stages))
        self.recompute = list(dict.fromkeys(self.recompute))
        return self
