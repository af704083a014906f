"""The largest micro-batch that fits at a layout: what a user can raise it to before memory runs
out, as solvers report it beside their best plan."""

from __future__ import annotations

from clusterplan.tools.contract import Step, q
from clusterplan.tools.parallelism.cluster import Cluster, JobContext, memory_of
from clusterplan.tools.parallelism.layout_search import Layout


def largest_micro_batch(ctx: JobContext, cluster: Cluster, x: Layout, batch: int,
                        headroom_gb: float) -> int | None:
    """The largest micro-batch whose busiest GPU fits at x's tp, pp, dp, ZeRO stage and
    recompute, up to the sequences one data-parallel replica gets a step (batch / dp); None
    when not even one sequence fits. Activations grow with the micro-batch and nothing else
    does, so the fitting ones are 1..n: doubling finds a bound, bisection n."""
    limit = max(1, batch // x.dp)

    def fits(mb: int) -> bool:
        gb = memory_of(ctx.job, x.tp, x.pp, x.zero_ranks, x.ep, x.zero_stage, mb, x.recompute,
                       cp=x.cp).total
        return gb / 1e9 + headroom_gb <= cluster.gpu.memory_gb

    if not fits(1):
        return None
    low = 1  # fits
    high = 2
    while high <= limit and fits(high):
        low, high = high, high * 2
    high = min(high, limit + 1)  # does not fit, or past the limit
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low


def micro_batch_step(x: Layout, largest: int | None, batch: int) -> Step:
    return Step(label="largest micro-batch that fits",
                formula="the largest micro-batch whose memory (activations grow with it) fits "
                        "at the best layout, at most global batch / dp",
                inputs={"tp": q(x.tp), "pp": q(x.pp), "dp": q(x.dp),
                        "zero_stage": q(x.zero_stage), "recompute": q(x.recompute),
                        "global batch": q(batch, "sequences")},
                result=q(largest, "sequences"), notes=["activation-memory#per-layer"])
