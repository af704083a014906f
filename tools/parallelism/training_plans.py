"""The training search: every layout through the hard rules, the memory tool and the step-time
model, ranked by the objective; the smallest cluster when nothing fits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from clusterplan.tools.memory.optimizers import update_traffic_bytes
from clusterplan.tools.memory.terms import adapter_params
from clusterplan.tools.parallelism.cluster import Cluster, JobContext, memory_of
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.layout_search import (
    Accepted,
    Fits,
    Layout,
    Score,
    SearchOutcome,
    SearchSpace,
    search,
)
from clusterplan.tools.parallelism.matmul_efficiency import layer_efficiency
from clusterplan.tools.parallelism.result import SmallestCluster, TrainingPlan
from clusterplan.tools.parallelism.step_time import (
    StepShape,
    StepTime,
    bubble_fraction,
    fastest_schedule,
    step_time,
)

OPERAND_BYTES = {"fp8_tflops": 1.0, "fp32_tflops": 4.0}  # GEMM operands; 16-bit otherwise
MOST_FRUGAL = ("full", "selective", "none")  # recompute modes, least memory first
MAX_SEARCH_GPUS = 1 << 20
# context-parallelism#min-tokens-per-rank: Llama 3 split 131,072-token sequences 16 ways.
CP_MIN_TOKENS = 8192
CP_MAX = 64


def context_parallel_degrees(inp: ParallelismInput, seq_len: int) -> tuple[int, ...]:
    """The cp degrees to weigh: the user's, or 1 and every power of 2 that divides the
    sequence and leaves each rank at least CP_MIN_TOKENS of it."""
    if inp.context_parallel:
        return tuple(c for c in inp.context_parallel if seq_len % c == 0) or (1,)
    degrees, cp = [1], 2
    while cp <= CP_MAX and seq_len % cp == 0 and seq_len // cp >= CP_MIN_TOKENS:
        degrees.append(cp)
        cp *= 2
    return tuple(degrees)


@dataclass
class TrainingSearch:
    """What the search saw and chose."""

    space: SearchSpace
    outcome: SearchOutcome
    ranked: list[Accepted]
    seq_len: int


def space_for(inp: ParallelismInput, cluster: Cluster, ctx: JobContext, batch: int,
              gpus: int | None = None, frugal: bool = False) -> SearchSpace:
    """The search space; `frugal` keeps only the least memory-hungry choice of each option."""
    s = ctx.shape
    zero, mbs, rc = tuple(inp.zero_stages), tuple(inp.micro_batches), tuple(inp.recompute)
    if frugal:
        zero, mbs = (max(zero),), (min(mbs),)
        rc = (next(r for r in MOST_FRUGAL if r in rc),)
    cp = (1,) if frugal else context_parallel_degrees(inp, ctx.job.seq_len)
    return SearchSpace(gpus=gpus or cluster.gpus, gpus_per_node=cluster.gpus_per_node,
                       heads=s.heads, kv_heads=s.kv_heads, layers=s.layers, experts=s.experts,
                       global_batch=batch, zero_stages=zero, micro_batches=mbs, recompute=rc,
                       uneven_stages=inp.uneven_stages, context_parallel=cp,
                       hybrid_sharding=inp.hybrid_sharding and not frugal)


def fits_for(cluster: Cluster, ctx: JobContext, headroom_gb: float) -> Fits:
    """The memory rule: the memory tool's bytes on the busiest GPU, plus headroom, within HBM."""
    hbm = cluster.gpu.memory_gb

    def fits(x: Layout) -> tuple[float, bool, str]:
        gb = memory_of(ctx.job, x.tp, x.pp, x.zero_ranks, x.ep, x.zero_stage, x.micro_batch,
                       x.recompute, cp=x.cp).total / 1e9
        ok = gb + headroom_gb <= hbm
        return gb, ok, f"needs {gb:,.1f} GB of {hbm:.3g} GB" + (
            f" with {headroom_gb:g} GB headroom" if headroom_gb else "")

    return fits


def score_for(inp: ParallelismInput, cluster: Cluster, ctx: JobContext,
              seq_len: int) -> Score:
    """The step-time model for one layout."""
    s, job = ctx.shape, ctx.job
    trainable = adapter_params(job) if job.adapters else s.dense_params
    experts = 0.0 if job.adapters else s.expert_params
    act_bytes = 4.0 if job.precision == "fp32" else 2.0
    attn_dim, kv_dim = s.heads * s.head_dim, s.kv_heads * s.head_dim
    operand_bytes = OPERAND_BYTES.get(cluster.peak_column, 2.0)
    update_bytes = update_traffic_bytes(job.optimizer, job.precision) if job.optimizer else 0.0

    def efficiency(x: Layout) -> float:
        if cluster.efficiency_given:
            base = cluster.efficiency
        else:
            base = layer_efficiency(x.micro_batch * seq_len // x.cp, s.hidden, attn_dim, kv_dim,
                                    s.ffn_hidden, x.tp, cluster.ridge_flop_per_byte,
                                    operand_bytes) * cluster.gpu_scale
        return min(1.0, base * cluster.efficiency_scale)  # a calibration never passes the peak

    def score(x: Layout, gb: float) -> StepTime:
        shape = StepShape(
            gpus=cluster.gpus, tp=x.tp, pp=x.pp, dp=x.dp, ep=x.ep, zero_stage=x.zero_stage,
            micro_batch=x.micro_batch, microbatches=x.num_microbatches, recompute=x.recompute,
            seq_len=seq_len, layers=s.layers, hidden=s.hidden, params=s.active_params_b * 1e9,
            dense_params=trainable, expert_params=experts, attn_dim=s.heads * s.head_dim,
            experts_per_token=s.experts_per_token, moe=s.is_moe, act_bytes=act_bytes,
            grad_bytes=job.grad_bytes, peak_flops=cluster.peak_flops,
            efficiency=efficiency(x), ranks_per_node=cluster.gpus_per_node,
            dp_overlap=inp.dp_overlap, sequence_parallel=job.sequence_parallel,
            frozen_weights=inp.workload in ("lora", "qlora"), cp=x.cp,
            shard_group=x.shard_group, kv_dim=kv_dim, vocab=s.vocab,
            balanced_stages=inp.uneven_stages, update_bytes=update_bytes,
            hbm_bytes_per_s=cluster.gpu.memory_bandwidth_tb_s * 1e12)
        return fastest_schedule(shape, cluster.comm) if inp.interleaved else \
            step_time(shape, cluster.comm)

    return score


def rank_key(objective: str, hbm_gb: float) -> Callable[[Accepted], tuple[float, float]]:
    """Sort key: fastest step (time, and cost on a fixed cluster) or most memory left."""
    if objective == "headroom":
        return lambda a: (a.per_gpu_gb - hbm_gb, a.score.step_s)
    return lambda a: (a.score.step_s, a.per_gpu_gb)


def run_search(inp: ParallelismInput, cluster: Cluster, ctx: JobContext, batch: int,
               seq_len: int) -> TrainingSearch:
    """Search every layout of the cluster and rank the survivors."""
    space = space_for(inp, cluster, ctx, batch)
    outcome = search(space, fits_for(cluster, ctx, inp.min_headroom_gb),
                     score_for(inp, cluster, ctx, seq_len))
    ranked = sorted(outcome.accepted, key=rank_key(inp.objective, cluster.gpu.memory_gb))
    return TrainingSearch(space, outcome, ranked, seq_len)


def smallest_cluster(inp: ParallelismInput, cluster: Cluster, ctx: JobContext,
                     batch: int) -> SmallestCluster | None:
    """Fewest whole nodes of the same GPU where some layout fits: doubling, then bisection."""
    fits = fits_for(cluster, ctx, inp.min_headroom_gb)

    def fitting(nodes: int) -> Accepted | None:
        space = space_for(inp, cluster, ctx, batch, nodes * cluster.gpus_per_node, frugal=True)
        found = search(space, fits, lambda x, gb: None).accepted
        return min(found, key=lambda a: a.per_gpu_gb) if found else None

    low = cluster.gpus // cluster.gpus_per_node  # whole nodes known not to fit (0: part of one)
    high = max(1, low * 2)
    best = fitting(high)
    while best is None and high * cluster.gpus_per_node < MAX_SEARCH_GPUS:
        low, high = high, high * 2
        best = fitting(high)
    if best is None:
        return None
    while high - low > 1:
        mid = (low + high) // 2
        found = fitting(mid)
        low, high, best = (low, mid, found) if found else (mid, high, best)
    layout = {k: v for k, v in best.layout.said().items() if k != "num_microbatches"}
    return SmallestCluster(gpus=high * cluster.gpus_per_node, nodes=high, layout=layout,
                           per_gpu_gb=round(best.per_gpu_gb, 2))


def to_plan(rank: int, a: Accepted, cluster: Cluster, steps_needed: int | None) -> TrainingPlan:
    """An accepted layout as the contract's plan, with training time when a budget is given."""
    x, t = a.layout, a.score
    days = hours = None
    if steps_needed is not None:
        seconds = steps_needed * t.step_s
        days, hours = seconds / 86400, seconds * cluster.gpus / 3600
    return TrainingPlan(
        rank=rank, tp=x.tp, pp=x.pp, dp=x.dp, ep=x.ep, zero_stage=x.zero_stage,
        micro_batch=x.micro_batch, num_microbatches=x.num_microbatches, recompute=x.recompute,
        per_gpu_gb=round(a.per_gpu_gb, 3), headroom_gb=round(cluster.gpu.memory_gb
                                                            - a.per_gpu_gb, 3),
        step_time_s=t.step_s, compute_s=t.compute_s, comm_s=t.comm_s, tp_comm_s=t.tp_s,
        pp_comm_s=t.pp_s, dp_comm_s=t.dp_s, ep_comm_s=t.ep_s, bubble_s=t.bubble_s,
        bubble_fraction=bubble_fraction(x.pp, x.num_microbatches, t.virtual_stages),
        virtual_stages=t.virtual_stages, cp=x.cp, shard_group=x.shard_group or None,
        cp_comm_s=t.cp_s, update_s=t.update_s, mfu=t.mfu,
        tflops_per_gpu=t.mfu * cluster.peak_flops / 1e12, tokens_per_s=t.tokens_per_s,
        training_days=days, gpu_hours=hours)
