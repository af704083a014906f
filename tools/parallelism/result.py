"""The parallelism tool's output: ranked plans, why the other layouts lose, and the totals."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from clusterplan.tools.contract import ToolResult


class TrainingPlan(BaseModel):
    """One training layout with its memory, step time and utilisation (seconds per step)."""

    model_config = ConfigDict(extra="forbid")

    rank: int
    tp: int
    pp: int
    dp: int
    ep: int
    zero_stage: int
    micro_batch: int
    num_microbatches: int
    recompute: str
    per_gpu_gb: float
    headroom_gb: float
    step_time_s: float
    compute_s: float
    comm_s: float
    tp_comm_s: float
    pp_comm_s: float
    dp_comm_s: float
    ep_comm_s: float
    bubble_s: float
    bubble_fraction: float
    virtual_stages: int = Field(default=1, description="model chunks per GPU: 1 = plain 1F1B, "
                                "more = the interleaved schedule")
    cp: int = Field(default=1, description="context-parallel ranks splitting each sequence")
    shard_group: int | None = Field(default=None, description="HSDP: ZeRO-3 shards within "
                                    "groups of this many GPUs, replicated across them")
    cp_comm_s: float = 0.0
    update_s: float = Field(default=0.0, description="the optimizer's update, after the "
                            "backward pass")
    mfu: float
    tflops_per_gpu: float = Field(description="model TFLOP/s achieved per GPU")
    tokens_per_s: float
    training_days: float | None = None
    gpu_hours: float | None = None


class ServingPlan(BaseModel):
    """One serving layout: a replica's shape, how many fit, and how fast they decode."""

    model_config = ConfigDict(extra="forbid")

    rank: int
    tp: int
    pp: int
    gpus_per_replica: int
    replicas: int
    per_gpu_gb: float
    kv_capacity_tokens: int = Field(description="tokens of KV cache one replica can hold")
    decode_tokens_per_s: float = Field(description="output tokens/s of all replicas")
    decode_tokens_per_s_per_replica: float
    time_per_output_token_ms: float
    prefill_tokens_per_s_per_replica: float
    decode_bound: str
    decode_overhead_ms: float = Field(description="of the decode step, the fixed cost: kernels "
                                      "a layer and small TP all-reduces")


class SmallestCluster(BaseModel):
    """The fewest GPUs of the same kind (whole nodes) on which some layout fits."""

    model_config = ConfigDict(extra="forbid")

    gpus: int
    nodes: int
    layout: dict[str, Any]
    per_gpu_gb: float


class RecipeComparison(BaseModel):
    """The standard layout (TP = GPUs per node inside the node, PP = nodes across) against
    the best plan."""

    model_config = ConfigDict(extra="forbid")

    tp: int
    pp: int
    dp: int
    found: bool
    rank: int | None = None
    shape_rank: int | None = Field(default=None, description="rank among (tp, pp, ep) shapes")
    step_time_s: float | None = None
    slower_than_best: float | None = Field(default=None, description="step time / best's")
    rejected_because: str | None = None


class ParallelismResult(ToolResult):
    """Ranked plans (training or serving), the rejections by reason, and the totals."""

    workload: str
    model: str
    gpu: str
    gpus: int
    nodes: int
    gpus_per_node: int
    fits: bool
    verdict: str
    plans: list[TrainingPlan | ServingPlan] = Field(default_factory=list)
    by_shape: list[dict[str, Any]] = Field(
        default_factory=list, description="best plan of each (tp, pp, ep) shape, ranked")
    recipe: RecipeComparison | None = None
    rejected: dict[str, int] = Field(default_factory=dict)
    rejected_examples: dict[str, dict[str, Any]] = Field(default_factory=dict)
    evaluated: int = 0
    smallest_cluster: SmallestCluster | None = None
    global_batch: int | None = None
    seq_len: int | None = None
    tokens: float | None = None
    active_params_b: float | None = Field(
        default=None, description="parameters a token passes through, billions (all, if dense)")
    model_flops_per_token: float | None = Field(
        default=None, description="6·N_active + 12·l·s·d_attn (4·N with frozen weights)")
    prefill_flops_per_token: float | None = Field(
        default=None, description="serving: 2·N_active + 4·l·context·d_attn FLOPs a prompt token")
    efficiency_scale: float = Field(
        default=1.0, description="factor on every layout's compute efficiency: 1 unless "
        "calibrated on a measurement (measured_*) or given (efficiency_scale)")
    largest_micro_batch: int | None = Field(
        default=None, description="the largest micro-batch (sequences) that fits at the best "
        "layout, at most global batch / dp")
    training_steps: int | None = None
    training_days: float | None = None
    gpu_hours: float | None = None
    gpus_needed_for_target: int | None = None
