"""Every layout a training search evaluated, one row each: accepted with its step-time parts,
or rejected with the rule it broke (and, for memory, what it needed and what it would take).

The search itself counts a shape that breaks a structural rule once for all its ZeRO stages,
micro-batches and recompute modes; here each of those is a row, so the rows number exactly the
`evaluated` of the tool's result. The walk is the search's own (the same candidates and rules,
layout_search), run again at the batch and calibration the tool's answer settled on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from clusterplan.tools.contract import ToolError
from clusterplan.tools.parallelism.cluster import resolve_cluster, resolve_job
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.layout_search import (
    BATCH_SPLIT,
    EP_NOT_DP,
    NO_FIT,
    Layout,
    SearchSpace,
    divisors,
    pp_candidates,
    pp_rule,
    tp_candidates,
    tp_rule,
)
from clusterplan.tools.parallelism.result import ParallelismResult
from clusterplan.tools.parallelism.training_plans import fits_for, score_for, space_for

COLUMNS = ("tp", "pp", "dp", "ep", "zero_stage", "micro_batch", "num_microbatches", "recompute",
           "status", "rejected_because", "per_gpu_gb", "step_time_s", "compute_s", "tp_comm_s",
           "pp_comm_s", "dp_comm_s", "ep_comm_s", "bubble_s", "virtual_stages", "mfu",
           "tokens_per_s")


def every_layout(inp: ParallelismInput, answer: ParallelismResult) -> list[dict[str, Any]]:
    """The rows of every layout the answer's search evaluated (training only)."""
    if answer.workload == "inference" or answer.global_batch is None:
        raise ToolError("all layouts: a training search lists its layouts; serving sizes "
                        "replicas instead (see the result's plans)")
    said: list[str] = []
    ctx = resolve_job(inp, concurrency=inp.concurrency)
    cluster = dataclasses.replace(resolve_cluster(inp, ctx.job.precision, said),
                                  efficiency_scale=answer.efficiency_scale)
    seq_len = answer.seq_len or ctx.job.seq_len
    space = space_for(inp, cluster, ctx, answer.global_batch)
    fits = fits_for(cluster, ctx, inp.min_headroom_gb)
    score = score_for(inp, cluster, ctx, seq_len)
    rows = []
    for layout, reason in _walk(space):
        row: dict[str, Any] = {**layout.as_dict(), "status": "rejected" if reason else "",
                               "rejected_because": reason or ""}
        if reason is None:
            gb, ok, _ = fits(layout)
            t = score(layout, gb)
            row |= {"status": "accepted" if ok else "rejected",
                    "rejected_because": "" if ok else NO_FIT, "per_gpu_gb": round(gb, 3),
                    "step_time_s": t.step_s, "compute_s": t.compute_s, "tp_comm_s": t.tp_s,
                    "pp_comm_s": t.pp_s, "dp_comm_s": t.dp_s, "ep_comm_s": t.ep_s,
                    "bubble_s": t.bubble_s, "virtual_stages": t.virtual_stages, "mfu": t.mfu,
                    "tokens_per_s": t.tokens_per_s}
        rows.append({c: row.get(c, "") for c in COLUMNS})
    return rows


def _walk(space: SearchSpace) -> Iterator[tuple[Layout, str | None]]:
    """Every (layout, the rule it breaks or None) in layout_search.search's order."""
    for tp in tp_candidates(space):
        broken = tp_rule(space, tp)
        pps = [1] if broken else pp_candidates(space, tp)
        for pp in pps:
            dp = space.gpus // (tp * pp)
            reason = broken or pp_rule(space, tp, pp)
            for ep in [1] if reason else divisors(space.experts):
                why = reason or (EP_NOT_DP if dp % ep else None)
                yield from _choices(space, tp, pp, max(dp, 1) if why else dp, ep, why)


def _choices(space: SearchSpace, tp: int, pp: int, dp: int, ep: int,
             reason: str | None) -> Iterator[tuple[Layout, str | None]]:
    for mb in space.micro_batches:
        split = None if space.global_batch % (dp * mb) else space.global_batch // (dp * mb)
        why = reason or (None if split else BATCH_SPLIT)
        for zero in space.zero_stages:
            for rc in space.recompute:
                yield Layout(tp, pp, dp, ep, zero, mb, split or 0, rc), why
