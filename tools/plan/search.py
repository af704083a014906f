"""The training search: for each GPU kind, whole-node counts through the parallelism solver,
then every offer that can host the cluster, priced for the run."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from dataclasses import dataclass, field
from typing import Any

from clusterplan.db.active import active_store, catalog
from clusterplan.db.offers import find_offers
from clusterplan.tools.parallelism.cluster import (
    EFFICIENCY,
    JobContext,
    resolve_cluster,
    resolve_job,
)
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.training_plans import DEFAULT_BATCH_TOKENS, run_search
from clusterplan.tools.plan.hosting import EXCLUDED, host_problem, run_cost
from clusterplan.tools.plan.input import PlanInput
from clusterplan.tools.pricing.offers import Offer, offer_view

NO_OFFER = "no rental offer for this GPU in the catalog"
NO_FIT = "the parallelism solver finds no layout that fits at this GPU count"
NO_PEAK = "no usable peak for the precision"


@dataclass
class Option:
    """One priced way to meet the goal."""

    gpu: str
    gpus: int
    nodes: int
    layout: dict[str, Any]
    tokens_per_s: float
    mfu: float
    time_s: float
    offer: Offer
    units: int
    billed_hours: float
    cost_usd: float


@dataclass
class Found:
    options: list[Option] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)
    evaluated: int = 0
    assumed: list[str] = field(default_factory=list)

    def reject(self, reason: str, n: int = 1) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + n


def search(inp: PlanInput, tokens: float, as_of: dt.date) -> Found:
    """Every GPU kind, node counts from the throughput bound upward, every hosting offer."""
    found = Found()
    base = ParallelismInput(**inp.ident, workload=inp.workload, gpu="h100-sxm", gpus=8)
    ctx = resolve_job(base)
    found.assumed += list(ctx.assumed)
    kinds = [catalog().gpus.find(g).id for g in inp.gpus] or list(catalog().gpus.rows)
    for gpu in kinds:
        offers = _offers(inp, gpu, as_of, found)
        if not offers:
            continue
        for gpus, plan in _counts(inp, ctx, gpu, tokens, found):
            for offer in offers:
                found.evaluated += 1
                problem = host_problem(offer, gpus, plan["node_gpus"])
                if problem:
                    found.reject(problem)
                    continue
                units, billed, cost = run_cost(offer, gpus, plan["time_s"] / 3600)
                found.options.append(Option(
                    gpu=gpu, gpus=gpus, nodes=plan["nodes"], layout=plan["layout"],
                    tokens_per_s=plan["tokens_per_s"], mfu=plan["mfu"], time_s=plan["time_s"],
                    offer=offer, units=units, billed_hours=billed, cost_usd=cost))
    return found


def _offers(inp: PlanInput, gpu: str, as_of: dt.date, found: Found) -> list[Offer]:
    rows = find_offers(active_store(), gpu)
    if not rows:
        found.reject(NO_OFFER)
        return []
    keep = []
    for row in rows:
        if (row.kind not in inp.offer_kinds or (inp.providers and row.provider not in inp.providers)
                or (inp.regions and row.region not in inp.regions)):
            found.reject(EXCLUDED)
            continue
        keep.append(offer_view(row, as_of))
    return keep


def _counts(inp: PlanInput, ctx: JobContext, gpu: str, tokens: float,
            found: Found) -> list[tuple[int, dict[str, Any]]]:
    """Solved cluster sizes for one GPU kind: the smallest that fits (and meets the deadline
    when one is set), then twice and four times it for the cost-time trade-off."""
    probe = ParallelismInput(**inp.ident, workload=inp.workload, gpu=gpu, gpus=1)
    try:
        cluster = resolve_cluster(probe, ctx.job.precision, [])
    except ValueError:
        found.reject(NO_PEAK)
        return []
    node = cluster.gpu.gpus_per_node
    # Upper bound of one GPU's speed: peak x efficiency / (6 N) tokens/s (megatron-lm-2021).
    ideal = cluster.peak_flops * EFFICIENCY / (6 * ctx.shape.active_params_b * 1e9)
    need = 1
    if inp.deadline_days:
        need = math.ceil(tokens / (inp.deadline_days * 86400) / ideal)
    gpus = need if need < node else math.ceil(need / node) * node
    gpus = 1 << (gpus - 1).bit_length() if gpus < node else gpus
    out: list[tuple[int, dict[str, Any]]] = []
    while gpus <= inp.max_gpus and len(out) < 3:
        plan = _solve(inp, ctx, gpu, gpus, tokens)
        if plan is None:
            found.reject(NO_FIT)
            gpus = gpus * 2
            continue
        deadline_s = (inp.deadline_days or 0) * 86400
        if not out and deadline_s and plan["time_s"] > deadline_s and gpus < inp.max_gpus:
            grown = math.ceil(gpus * plan["time_s"] / deadline_s / node) * node
            gpus = min(max(grown, gpus + node), inp.max_gpus)
            out.append((plan["gpus"], plan))
            continue
        out.append((plan["gpus"], plan))
        gpus *= 2
    return out


def _solve(inp: PlanInput, ctx: JobContext, gpu: str, gpus: int,
           tokens: float) -> dict[str, Any] | None:
    """The parallelism solver's fastest layout on `gpus` GPUs, or None when nothing fits."""
    seq = ctx.job.seq_len
    # About 4M tokens a step (mfu-calibration#llama3-batch), rounded to a multiple of the GPU
    # count so that every count, not only powers of two, splits the batch evenly.
    batch = max(1, round(DEFAULT_BATCH_TOKENS / seq / gpus)) * gpus
    p = ParallelismInput(**inp.ident, workload=inp.workload, gpu=gpu, gpus=gpus,
                         tokens=tokens, zero_stages=[1, 3], micro_batches=[1, 2, 4],
                         global_batch=batch)
    cluster = resolve_cluster(p, ctx.job.precision, [])
    job = dataclasses.replace(ctx.job)
    res = run_search(p, cluster, JobContext(job, ctx.assumed), batch, seq)
    if not res.ranked:
        return None
    best = res.ranked[0]
    steps = math.ceil(tokens / (batch * seq))
    x = best.layout
    return {"gpus": gpus, "nodes": cluster.nodes, "node_gpus": cluster.gpus_per_node,
            "layout": {"tp": x.tp, "pp": x.pp, "dp": x.dp, "zero": x.zero_stage,
                       "micro_batch": x.micro_batch, "recompute": x.recompute},
            "tokens_per_s": best.score.tokens_per_s, "mfu": best.score.mfu,
            "time_s": steps * best.score.step_s}
