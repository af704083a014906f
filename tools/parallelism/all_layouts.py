"""Every layout a training search evaluated: accepted with its step-time parts, or rejected with
the rule it broke (and, for memory, what it needed and what it would have taken).

The search is run again at the batch and calibration the tool's answer settled on, with every
evaluation recorded as it happens: a layout through the memory rule is a row of its own; a
shape that breaks a structural rule (tp across nodes, pp not dividing the layers...) is
rejected by the search for all its ZeRO stages, micro-batches and recompute modes at once, and
is one row whose `layouts` says how many it stands for. The `layouts` column sums to the
answer's `evaluated`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from clusterplan.tools.contract import ToolError
from clusterplan.tools.parallelism.cluster import resolve_cluster, resolve_job
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.layout_search import NO_FIT, Layout, Rejections, search
from clusterplan.tools.parallelism.result import ParallelismResult
from clusterplan.tools.parallelism.step_time import StepTime
from clusterplan.tools.parallelism.training_plans import fits_for, score_for, space_for

COLUMNS = ("tp", "pp", "dp", "ep", "cp", "shard_group", "zero_stage", "micro_batch",
           "num_microbatches", "recompute", "layouts", "status", "rejected_because",
           "per_gpu_gb", "step_time_s", "compute_s", "tp_comm_s", "pp_comm_s", "dp_comm_s",
           "ep_comm_s", "cp_comm_s", "bubble_s", "update_s", "virtual_stages", "mfu",
           "tokens_per_s")


class _Listed(Rejections):
    """The search's tally, which also lists each structural rejection as a row."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__()
        self.rows = rows

    def add(self, reason: str, example: dict[str, Any] | None, count: int = 1) -> None:
        super().add(reason, example, count)
        if reason != NO_FIT:  # a layout the memory rule rejected is listed where it is weighed
            self.rows.append({**(example or {}), "layouts": count, "status": "rejected",
                              "rejected_because": reason})


def every_layout(inp: ParallelismInput, answer: ParallelismResult) -> list[dict[str, Any]]:
    """The rows of every layout the answer's search evaluated (training only)."""
    if answer.workload == "inference" or answer.global_batch is None:
        raise ToolError("all layouts: a training search lists its layouts; serving sizes "
                        "replicas instead (see the result's plans)")
    said: list[str] = []
    ctx = resolve_job(inp, concurrency=inp.concurrency)
    cluster = dataclasses.replace(resolve_cluster(inp, ctx.job.precision, said),
                                  efficiency_scale=answer.efficiency_scale)
    fits = fits_for(cluster, ctx, inp.min_headroom_gb)
    score = score_for(inp, cluster, ctx, answer.seq_len or ctx.job.seq_len)
    rows: list[dict[str, Any]] = []

    def weighed(x: Layout) -> tuple[float, bool, str]:
        gb, ok, detail = fits(x)
        if not ok:  # what it would have taken, had it fitted
            rows.append(_row(x, gb, score(x, gb), NO_FIT))
        return gb, ok, detail

    def priced(x: Layout, gb: float) -> StepTime:
        t = score(x, gb)
        rows.append(_row(x, gb, t, ""))
        return t

    search(space_for(inp, cluster, ctx, answer.global_batch), weighed, priced, _Listed(rows))
    return [{c: row.get(c, "") for c in COLUMNS} for row in rows]


def _row(x: Layout, gb: float, t: StepTime, reason: str) -> dict[str, Any]:
    return {**x.as_dict(), "layouts": 1, "status": "rejected" if reason else "accepted",
            "rejected_because": reason, "per_gpu_gb": round(gb, 3), "step_time_s": t.step_s,
            "compute_s": t.compute_s, "tp_comm_s": t.tp_s, "pp_comm_s": t.pp_s,
            "dp_comm_s": t.dp_s, "ep_comm_s": t.ep_s, "cp_comm_s": t.cp_s, "bubble_s": t.bubble_s,
            "update_s": t.update_s,
            "virtual_stages": t.virtual_stages, "mfu": t.mfu, "tokens_per_s": t.tokens_per_s}
