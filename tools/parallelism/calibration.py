"""Calibration on the user's own measurement: one factor on the compute efficiency.

A measured step time (or achieved model TFLOP/s per GPU, the same thing at a fixed layout:
TFLOP/s = model FLOPs of a step / (GPUs · step time)) at a stated layout fixes the factor that
every layout's matmul efficiency is multiplied by, so that the model gives exactly the
measured step there. Communication, the bubble and memory are left as the model has them:
what a measurement cannot tell apart is put on the compute, the term the model knows least
(mfu-calibration#user-calibration). The factor is found by bisection: the step time falls
as the efficiency rises, and the efficiency may not pass the dense peak.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from clusterplan.tools.contract import Step, ToolError, q
from clusterplan.tools.parallelism.cluster import Cluster, JobContext
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.layout_search import Accepted, Layout
from clusterplan.tools.parallelism.step_time import StepTime
from clusterplan.tools.parallelism.training_plans import score_for

ROUNDS = 60  # bisection rounds on log(scale): 2^-60 of the bracket, far below any rounding
LOWEST_SCALE = 1e-3  # a tenth of a percent of the model's efficiency: slower is a typo


@dataclasses.dataclass(frozen=True)
class Calibration:
    """The factor found and what it was matched to."""

    scale: float
    layout: Layout
    predicted_s: float
    measured_s: float
    what: str  # the measurement as the user gave it


def measured(inp: ParallelismInput) -> bool:
    """Whether the input carries a measurement to calibrate on."""
    return bool(inp.measured_step_s or inp.measured_tflops_per_gpu)


def calibrate(inp: ParallelismInput, cluster: Cluster, ctx: JobContext, batch: int,
              seq_len: int, best: Accepted | None) -> tuple[Cluster, Calibration]:
    """The cluster with its efficiency scaled so the measured layout takes the measured time."""
    layout = measured_layout(inp, cluster, batch, best)
    time_at = _step_time(inp, cluster, ctx, seq_len, layout)
    predicted = time_at(1.0)
    if inp.measured_step_s:
        target, what = inp.measured_step_s, f"{inp.measured_step_s:g} s per step"
    else:
        tflops = predicted.mfu * cluster.peak_flops / 1e12
        measured_tflops = inp.measured_tflops_per_gpu or tflops
        target = predicted.step_s * tflops / measured_tflops
        what = f"{measured_tflops:g} TFLOP/s per GPU"
    highest = 1.0 / predicted.efficiency  # the dense peak itself
    if time_at(highest).step_s > target:
        raise ToolError(f"measured {what} is faster than {cluster.gpu.id} can run "
                        f"{_said(layout)} at its dense peak ({time_at(highest).step_s:.3g} s "
                        "per step); check the figure and the layout it was measured on")
    if time_at(LOWEST_SCALE).step_s < target:
        raise ToolError(f"measured {what} is over 1,000 times slower than the model's "
                        f"{predicted.step_s:.3g} s per step at {_said(layout)}; check the "
                        "figure and the layout it was measured on")
    scale = _bisect(lambda s: time_at(s).step_s, target, LOWEST_SCALE, highest)
    return (dataclasses.replace(cluster, efficiency_scale=scale),
            Calibration(scale, layout, predicted.step_s, target, what))


def measured_layout(inp: ParallelismInput, cluster: Cluster, batch: int,
                    best: Accepted | None) -> Layout:
    """The stated layout, what it leaves out taken from the best one found (or tp 1, pp 1)."""
    given = inp.measured_layout
    base = best.layout if best else Layout(1, 1, cluster.gpus, 1, 0, 1, batch, "none")
    pick = {k: v for k, v in (given.model_dump() if given else {}).items() if v is not None}
    tp, pp = pick.get("tp", base.tp), pick.get("pp", base.pp)
    mb, cp = pick.get("micro_batch", base.micro_batch), base.cp
    if cluster.gpus % (tp * pp * cp):
        raise ToolError(f"measured_layout: tp·pp = {tp * pp} does not divide the "
                        f"{cluster.gpus} GPUs" + (f" with context parallel {cp}" if cp > 1
                                                  else ""))
    dp = cluster.gpus // (tp * pp * cp)
    if batch % (dp * mb):
        raise ToolError(f"measured_layout: the global batch of {batch:,} sequences does not "
                        f"split into dp {dp} x micro-batch {mb}")
    zero = pick.get("zero_stage", base.zero_stage)
    group = base.shard_group if zero == 3 and base.shard_group and dp % base.shard_group == 0 \
        else 0
    return Layout(tp, pp, dp, base.ep if dp % base.ep == 0 else 1, zero, mb, batch // (dp * mb),
                  pick.get("recompute", base.recompute), cp, group)


def calibration_step(c: Calibration) -> Step:
    """The factor, with what it matched, for the trace."""
    return Step(label="calibration on your measurement",
                formula="efficiency x scale, scale chosen so the measured layout's step time "
                        "equals the measured one",
                inputs={"measured": q(c.what), "layout": q(_said(c.layout)),
                        "model's step time": q(round(c.predicted_s, 4), "s"),
                        "measured step time": q(round(c.measured_s, 4), "s")},
                result=q(round(c.scale, 4)), notes=["mfu-calibration#user-calibration",
                                                     "mfu-calibration#efficiency-curve"])


def calibration_assumption(c: Calibration) -> str:
    return (f"calibration: every layout's matmul efficiency x {c.scale:.3g}, matched to your "
            f"measured {c.what} at {_said(c.layout)} (the model alone: "
            f"{c.predicted_s:.3g} s per step; with the factor: {c.measured_s:.3g} s)")


def _step_time(inp: ParallelismInput, cluster: Cluster, ctx: JobContext, seq_len: int,
               layout: Layout) -> Callable[[float], StepTime]:
    """The layout's step time at an efficiency scale."""
    def at(scale: float) -> StepTime:
        scaled = dataclasses.replace(cluster, efficiency_scale=scale)
        return score_for(inp, scaled, ctx, seq_len)(layout, 0.0)
    return at


def _bisect(step_s: Callable[[float], float], target: float, low: float, high: float) -> float:
    """The scale in [low, high] whose step time is `target` (step time falls as scale rises)."""
    for _ in range(ROUNDS):
        mid = (low * high) ** 0.5
        if step_s(mid) > target:
            low = mid
        else:
            high = mid
    return (low * high) ** 0.5


def _said(x: Layout) -> str:
    return (f"tp={x.tp} pp={x.pp} dp={x.dp}, micro-batch {x.micro_batch}, ZeRO-{x.zero_stage}, "
            f"recompute {x.recompute}")
