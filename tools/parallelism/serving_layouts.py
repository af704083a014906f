"""Serving layouts: the fewest GPUs per replica that hold weights and KV cache, and their speed.

TP grows inside a node first (1, 2, 4, 8...), PP across nodes only when one node is not enough.
Decode is bounded by HBM bandwidth (every weight and the live KV cache are read once per output
token) or by compute, whichever is slower; prefill is bounded by compute.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from clusterplan.tools.parallelism.layout_search import Rejections
from clusterplan.tools.parallelism.serving_step import pass_overhead_s
from clusterplan.tools.parallelism.step_time import TP_ALL_REDUCE, Collective

# Shares of the datasheet HBM bandwidth a decode step's reads reach (measured with Nsight
# Compute): weights stream at 0.8, the paged KV cache at 0.5.
WEIGHTS_READ_EFFICIENCY = 0.8  # serving-latency#weights-read-efficiency
KV_READ_EFFICIENCY = 0.5  # serving-latency#kv-read-efficiency


@dataclass(frozen=True)
class ServingMemory:
    """Per GPU of a replica, from the memory tool."""

    per_gpu_gb: float
    weights_gb: float
    kv_cache_gb: float
    kv_bytes_per_token: float  # whole model, one token


@dataclass(frozen=True)
class ServingSpace:
    """The cluster, the model's facts, the load, and the GPU's speeds."""

    gpus: int
    gpus_per_node: int
    heads: int
    kv_heads: int
    layers: int
    hidden: int
    attn_dim: int
    active_params: float
    concurrency: int
    context_len: int
    hbm_gb: float
    hbm_tb_s: float
    peak_flops: float
    efficiency: float
    act_bytes: float
    # the kind of link a TP group of each size all-reduces over (serving_step.tp_link_kind)
    link_kind_by_tp: Mapping[int, str]
    min_headroom_gb: float = 0.0
    target_latency_ms: float | None = None
    max_gpus: int | None = None  # search beyond the cluster (smallest cluster that would fit)
    weights_read_share: float = 1.0  # of the weights, what a decode step reads (MoE: < 1)


@dataclass(frozen=True)
class ReplicaPlan:
    tp: int
    pp: int
    replicas: int
    per_gpu_gb: float
    kv_capacity_tokens: int
    decode_tokens_per_s: float
    decode_tokens_per_s_per_replica: float
    time_per_output_token_ms: float
    prefill_tokens_per_s_per_replica: float
    decode_bound: str
    decode_overhead_ms: float


NO_FIT = "weights and KV cache do not fit in GPU memory"
TOO_SLOW = "misses the per-token latency target"


def replica_shapes(space: ServingSpace) -> Iterator[tuple[int, int]]:
    """(tp, pp) by GPUs per replica: TP inside one node first, then PP over whole nodes. Any
    stage count: serving engines split layers unevenly (vLLM spreads the remainder over the
    stages), or a prime layer count (DeepSeek-V3's 61) could only grow one stage per layer."""
    valid_tp = [t for t in range(1, space.gpus_per_node + 1)
                if space.gpus_per_node % t == 0 and space.heads % t == 0
                and space.kv_heads % t == 0]
    for tp in valid_tp:
        yield tp, 1
    widest = valid_tp[-1]
    for pp in range(2, space.layers + 1):
        yield widest, pp


def plan_replicas(space: ServingSpace, memory: Callable[[int, int], ServingMemory],
                  comm: Collective) -> tuple[list[ReplicaPlan], Rejections]:
    """Every (tp, pp) up to the cluster (or max_gpus) that fits, fewest GPUs first."""
    limit = space.max_gpus or space.gpus
    plans: list[ReplicaPlan] = []
    rejected = Rejections()
    for tp, pp in replica_shapes(space):
        if tp * pp > limit:
            break
        mem = memory(tp, pp)
        example = {"tp": tp, "pp": pp, "per_gpu_gb": round(mem.per_gpu_gb, 2)}
        if mem.per_gpu_gb + space.min_headroom_gb > space.hbm_gb:
            rejected.add(NO_FIT, example)
            continue
        plan = _plan(space, tp, pp, mem, comm)
        if space.target_latency_ms and plan.time_per_output_token_ms > space.target_latency_ms:
            rejected.add(TOO_SLOW, {**example, "time_per_output_token_ms":
                                    round(plan.time_per_output_token_ms, 2)})
            continue
        plans.append(plan)
    return plans, rejected


def _plan(space: ServingSpace, tp: int, pp: int, mem: ServingMemory,
          comm: Collective) -> ReplicaPlan:
    gpus = tp * pp
    free_gb = space.hbm_gb - space.min_headroom_gb - (mem.per_gpu_gb - mem.kv_cache_gb)
    capacity = max(0, math.floor(free_gb * 1e9 * gpus / mem.kv_bytes_per_token))
    memory_s, compute_s = decode_bounds(space, tp, pp, mem)
    overhead_s = pass_overhead_s(space.layers, tp, space.link_kind_by_tp[tp])
    step_s = max(memory_s, compute_s) + decode_comm_s(space, tp, pp, comm) + overhead_s
    per_replica = space.concurrency / step_s
    replicas = max(1, space.gpus // gpus)
    return ReplicaPlan(
        tp=tp, pp=pp, replicas=replicas, per_gpu_gb=mem.per_gpu_gb,
        kv_capacity_tokens=capacity,
        decode_tokens_per_s=per_replica * replicas,
        decode_tokens_per_s_per_replica=per_replica,
        time_per_output_token_ms=step_s * 1e3,
        prefill_tokens_per_s_per_replica=prefill_tokens_per_s(space, gpus),
        decode_bound="memory bandwidth" if memory_s >= compute_s else "compute",
        decode_overhead_ms=overhead_s * 1e3,
    )


def decode_bounds(space: ServingSpace, tp: int, pp: int, mem: ServingMemory) -> tuple[float, float]:
    """Seconds per decode step: HBM bound (weights + KV read) and compute bound.

    A token visits the pp stages one after another, so each stage's time adds up: the replica
    reads its weights (a MoE's the experts its tokens were routed to) and KV once per step at tp
    GPUs' bandwidth.
    """
    # the reads reach a measured share of the datasheet bandwidth, weights more than paged KV
    read_s = (mem.weights_gb * space.weights_read_share / WEIGHTS_READ_EFFICIENCY
              + mem.kv_cache_gb / KV_READ_EFFICIENCY) * 1e9 / (space.hbm_tb_s * 1e12)
    memory_s = pp * read_s
    flops = space.concurrency * (2 * space.active_params
                                 + 4 * space.layers * space.context_len * space.attn_dim)
    compute_s = flops / (tp * space.peak_flops * space.efficiency)
    return memory_s, compute_s


def decode_comm_s(space: ServingSpace, tp: int, pp: int, comm: Collective) -> float:
    """TP all-reduces (two per layer) and PP sends on every decode step."""
    size = space.concurrency * space.hidden * space.act_bytes
    tp_s = 2 * space.layers * comm(TP_ALL_REDUCE, size, tp, tp) if tp > 1 else 0.0
    per_node = 2 if tp * pp <= space.gpus_per_node else 1
    pp_s = (pp - 1) * comm("send_recv", size, 2, per_node) if pp > 1 else 0.0
    return tp_s + pp_s


def prefill_flops_per_token(space: ServingSpace) -> float:
    """FLOPs of one prompt token: 2 per parameter it passes through, plus attention (QK and
    AV, 2 FLOPs a multiply-add each) over the tokens before it, half the prompt on average
    under the causal mask: 4 · layers · (context / 2) · d_attn, as the plan's prefill counts
    it (inference-roofline#prefill-compute-bound)."""
    return 2 * space.active_params + 2 * space.layers * space.context_len * space.attn_dim


def prefill_tokens_per_s(space: ServingSpace, gpus: int) -> float:
    """Prompt tokens per second of one replica when compute bound."""
    return gpus * space.peak_flops * space.efficiency / prefill_flops_per_token(space)
