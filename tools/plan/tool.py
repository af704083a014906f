"""Tool `plan`: the GPU kind, count, layout and offer that meet a goal (a deadline for a
number of training tokens, a serving throughput, a budget, or cheapest/fastest).

Contract: `PlanInput`, `PlanResult`, `run`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from clusterplan.tools.catalog_lookup import active_catalog
from clusterplan.tools.citing import cite
from clusterplan.tools.contract import Step, ToolResult, q
from clusterplan.tools.plan import affordable
from clusterplan.tools.plan.affordable import AffordableRow, affordable_assumptions
from clusterplan.tools.plan.input import PlanInput
from clusterplan.tools.plan.largest import largest, models_by_size
from clusterplan.tools.plan.search import (
    SECONDS_PER_DAY,
    Option,
    Search,
    Unpriced,
    cheapest_by_gpu,
    gpu_kinds,
    pareto,
    search_training,
)
from clusterplan.tools.plan.serving_search import search_serving
from clusterplan.tools.plan.shortfall import shortfall
from clusterplan.tools.pricing.billing import billing_notes
from clusterplan.tools.pricing.costs import HOURS_NOTE, HOURS_PER_MONTH
from clusterplan.tools.pricing.fabrics import fabric_providers
from clusterplan.tools.registry import Tool

__all__ = ["PlanInput", "PlanResult", "run"]

CHEAP_TIE = 0.01  # costs within 1% count as equal when picking the cheapest


class PlanOption(BaseModel):
    """One cluster that meets the goal: what to rent, its layout, its time or speed, its cost."""

    gpu: str
    gpus: int
    nodes: int
    gpus_per_node: int
    layout: dict[str, Any]
    provider: str
    offer: str
    offer_kind: str
    usd_per_gpu_hour: float
    billed_gpus: int
    hourly_usd: float
    cost_usd: float = Field(description="training: the run; serving: a month")
    gpu_peak_tflops: float | None = Field(default=None, description="dense BF16, datasheet")
    training_days: float | None = None
    billed_hours: float | None = Field(default=None, description="training: the run's hours as "
                                       "the offer bills them (its increment, or a term)")
    mfu: float | None = None
    tokens_per_s: float | None = None
    replicas: int | None = None
    gpus_per_replica: int | None = None
    concurrency_per_replica: int | None = None
    time_per_output_token_ms: float | None = None
    usd_per_million_output_tokens: float | None = Field(
        default=None, description="serving: hourly cost / (tokens/s x 3600) x 1e6")
    requests_per_s: float | None = None
    decode_bound: str | None = None
    decode_ms: dict[str, float] | None = Field(
        default=None, description="serving: one decode step (time per output token) by term: "
        "weights read, KV read, compute, TP communication, total")
    prefill_ms: dict[str, float] | None = Field(
        default=None, description="serving: one prompt's prefill (time to first token) by term")


class UnpricedOption(BaseModel):
    """A named GPU kind no offer rents: the smallest count meeting the deadline (or, when none
    does, the fastest found), with its layout and time and no price."""

    gpu: str
    gpus: int
    nodes: int
    gpus_per_node: int
    layout: dict[str, Any]
    training_days: float
    mfu: float
    tokens_per_s: float
    meets_deadline: bool


class PlanResult(ToolResult):
    """The recommendation, the cost/time Pareto front, and why the rest failed."""

    goal: str
    recommendation: PlanOption | None = None
    summary: str
    pareto: list[PlanOption] = Field(default_factory=list)
    by_gpu: list[PlanOption] = Field(default_factory=list, description="the cheapest option of "
                                     "each GPU kind that meets the goal, cheapest first")
    target_tokens_per_s: float | None = None
    needed_tokens_per_s: float | None = None
    failed: dict[str, int] = Field(default_factory=dict)
    evaluated: int = 0
    model: str | None = Field(default=None, description="the model planned for (largest_model: "
                              "the biggest the goal affords)")
    runner_up: PlanOption | None = Field(default=None, description="largest_model: the next "
                                         "size down, and its plan")
    runner_up_model: str | None = None
    affordable: list[AffordableRow] = Field(default_factory=list, description="largest_model "
                                            "fine-tunes: the biggest model each method affords "
                                            "on each data size")
    closest: PlanOption | None = Field(default=None, description="an unmet deadline: the "
                                       "fastest cluster found, and its days")
    shortfall: str | None = Field(default=None, description="an unmet goal: by how much, and "
                                  "what would meet it")
    unpriced: UnpricedOption | None = Field(default=None, description="a named GPU kind no "
                                            "offer rents: the count its deadline needs, "
                                            "unpriced")


def _goal(inp: PlanInput) -> str:
    parts = []
    if inp.training:
        parts.append(f"{inp.workload} on {inp.tokens:,.0f} tokens")
        if inp.deadline_days is not None:
            parts.append(f"within {inp.deadline_days:g} day"
                         + ("" if inp.deadline_days == 1 else "s"))
    elif inp.concurrent_users is not None:
        parts.append(f"serve {inp.concurrent_users} users x {inp.tokens_per_s_per_user:g} "
                     "tokens/s")
    elif inp.requests_per_s is not None:
        parts.append(f"serve {inp.requests_per_s:g} requests/s")
    else:
        parts.append(f"serve {inp.tokens_per_s:g} tokens/s")
    if inp.input_tokens is not None:
        parts.append(f"{inp.input_tokens} tokens in, {inp.output_tokens} out")
    if inp.ttft_ms is not None:
        parts.append(f"first token within {inp.ttft_ms:g} ms")
    if inp.tpot_ms is not None:
        parts.append(f"{inp.tpot_ms:g} ms per output token")
    if inp.budget_usd is not None:
        parts.append(f"budget ${inp.budget_usd:,.0f}" + ("" if inp.training else " a month"))
    if inp.objective:
        parts.append(inp.objective)
    return ", ".join(parts)


def _view(o: Option, peaks: dict[str, float | None]) -> PlanOption:
    return PlanOption(
        gpu=o.gpu, gpus=o.gpus, nodes=o.nodes, gpus_per_node=o.gpus_per_node, layout=o.layout,
        provider=o.offer.provider, offer=o.offer.label(), offer_kind=o.offer.kind,
        usd_per_gpu_hour=o.offer.effective_usd_per_gpu_hour, billed_gpus=o.billed_gpus,
        hourly_usd=o.hourly_usd, cost_usd=o.cost_usd, gpu_peak_tflops=peaks.get(o.gpu),
        training_days=o.days, billed_hours=o.billed_hours, mfu=o.mfu,
        tokens_per_s=o.tokens_per_s, replicas=o.replicas,
        gpus_per_replica=o.gpus_per_replica, concurrency_per_replica=o.concurrency_per_replica,
        time_per_output_token_ms=None if o.time_per_output_token_ms is None else
        round(o.time_per_output_token_ms, 4),
        requests_per_s=None if o.requests_per_s is None else round(o.requests_per_s, 4),
        decode_bound=o.decode_bound, decode_ms=o.decode_ms, prefill_ms=o.prefill_ms,
        usd_per_million_output_tokens=None if o.days is not None or not o.tokens_per_s else
        round(o.hourly_usd / (o.tokens_per_s * 3600) * 1e6, 4))


def _pick(inp: PlanInput, options: list[Option]) -> Option | None:
    if not options:
        return None
    if inp.objective == "fastest" or (inp.budget_usd is not None and inp.objective is None
                                      and inp.training and inp.deadline_days is None):
        key = (lambda o: (o.days or 0.0, o.cost_usd)) if inp.training else \
            (lambda o: (-(o.tokens_per_s or 0.0), o.cost_usd))
        return min(options, key=key)
    # cheapest: within 1% of the lowest cost (a rounding of the step time, not a real
    # saving) the fewest GPUs, which are also the easiest to rent
    low = min(o.cost_usd for o in options)
    near = [o for o in options if o.cost_usd <= low * (1 + CHEAP_TIE)]
    return min(near, key=lambda o: (o.gpus, o.cost_usd))


def run(inp: PlanInput) -> PlanResult:
    """Search GPU kinds x node counts, keep the ones meeting the goal, recommend one."""
    if inp.largest_model:
        return _largest(inp)
    kinds = gpu_kinds(inp)

    rows = active_catalog().gpus.rows
    peaks = {g.id: g.bf16_tflops for g in rows.values()}
    notes = {g.id: g.source_note for g in rows.values()}
    found = Search(kinds=[k for k, _ in kinds])
    result = PlanResult(goal=_goal(inp), summary="", model=inp.model)
    if inp.tokens_assumed:
        result.assumptions.append(
            f"no data size given: an Alpaca-sized fine-tune, 52,000 examples x 512 tokens x 3 "
            f"epochs = {inp.tokens:,.0f} tokens (note finetune-dataset-default)")
        result.steps.append(Step(
            label="fine-tuning tokens (assumed)", formula="examples x max length x epochs",
            inputs={"examples": q(52_000), "max length": q(512, "tokens"), "epochs": q(3)},
            result=q(inp.tokens, "tokens"), notes=["finetune-dataset-default#default-tokens"]))
    if inp.training:
        search_training(inp, kinds, found)
        if inp.deadline_days is not None and inp.tokens:
            need = inp.tokens / (inp.deadline_days * SECONDS_PER_DAY)
            result.needed_tokens_per_s = round(need, 3)
            result.steps.append(Step(
                label="tokens/s needed", formula="tokens / (deadline days x 86,400 s)",
                inputs={"tokens": q(inp.tokens, "tokens"),
                        "deadline": q(inp.deadline_days, "days")},
                result=q(round(need, 3), "tokens/s"),
                notes=["megatron-lm-2021#training-time-estimate"]))
    else:
        target = inp.target_tokens_per_s or 0.0
        result.target_tokens_per_s = target
        if inp.concurrent_users:
            inputs, formula = {"users": q(inp.concurrent_users), "per user": q(
                inp.tokens_per_s_per_user, "tokens/s")}, "users x tokens/s per user"
        elif inp.requests_per_s:
            inputs, formula = {"requests/s": q(inp.requests_per_s), "output tokens": q(
                inp.output_tokens, "tokens")}, "requests/s x output tokens a request"
        else:
            inputs, formula = {"tokens/s": q(inp.tokens_per_s, "tokens/s")}, "as given"
        result.steps.append(Step(label="aggregate output tokens/s", formula=formula,
                                 inputs=inputs, result=q(target, "tokens/s"),
                                 notes=["inference-roofline"]))
        search_serving(inp, kinds, found)
    result.failed, result.evaluated = found.failed, found.evaluated
    result.steps.append(Step(
        label="search", formula="every GPU kind x node counts 1, 2, 3, 4, 6, 8, 12, 16, ... "
        "(parallelism tool per count; cheapest hosting offer from the pricing tool)",
        inputs={"GPU kinds": q(len(kinds)), "max GPUs": q(inp.max_gpus, "GPUs")},
        result=q(len(found.options), "options meeting the goal"),
        notes=["multi-node-clusters", "node-form-factors"]))
    if inp.training:
        fabric = fabric_providers()
        result.steps.append(Step(
            label="cluster hosts (multi-node jobs)",
            formula="8-GPU offers of providers whose inter-node fabric a note states; "
            "single-GPU pods and providers stating none host one node at most",
            inputs={"providers with a fabric": q(", ".join(sorted(fabric)))},
            result=q(found.failed.get("no offer with an inter-node fabric", 0),
                     "node counts ruled out for want of a fabric"),
            notes=["plan-cluster-fabrics#single-gpu-pods", *fabric.values()]))
    time_key = (lambda o: o.days or 0.0) if inp.training else \
        (lambda o: -(o.tokens_per_s or 0.0))
    result.pareto = [_view(o, peaks) for o in pareto(found.options, time_key)[:6]]
    result.by_gpu = [_view(o, peaks) for o in cheapest_by_gpu(found.options, time_key)[:8]]
    best = _pick(inp, found.options)
    _assumptions(inp, result)
    if best is None and found.unpriced is not None:
        _unpriced(inp, found.unpriced, result, notes.get(found.unpriced.gpu, ""))
        return cite(result)
    if best is None:
        result.summary = ("no cluster meets the goal (" + _goal(inp) + "); ruled out: "
                          + (", ".join(f"{k} {v}" for k, v in found.failed.items()) or "none"))
        result.shortfall = shortfall(inp, found)
        if found.closest is not None and inp.deadline_days:
            result.closest = _view(found.closest, peaks)
        if result.shortfall:
            result.summary += "; " + result.shortfall
        return cite(result)
    rec = result.recommendation = _view(best, peaks)
    result.steps += _best_steps(inp, rec, notes.get(best.gpu, ""), best.offer.source_note)
    result.summary = _sentence(inp, rec)
    return cite(result)


def _unpriced(inp: PlanInput, found: Unpriced, result: PlanResult, gpu_note: str) -> None:
    """The count a deadline needs on a GPU kind no offer rents, said without a price."""
    deadline = inp.deadline_days or 0.0
    view = result.unpriced = UnpricedOption(
        gpu=found.gpu, gpus=found.gpus, nodes=found.nodes, gpus_per_node=found.gpus_per_node,
        layout=found.layout, training_days=round(found.days, 4), mfu=found.mfu,
        tokens_per_s=round(found.tokens_per_s, 3), meets_deadline=found.days <= deadline)
    result.assumptions.append(
        f"no offer in the price list rents {found.gpu}: the count is sized by time alone "
        "and carries no price")
    result.steps.append(Step(
        label="training time of the smallest count" if view.meets_deadline else
        "training time of the fastest count found",
        formula="parallelism tool: steps x step time (about 6 N D / (GPUs x peak x MFU))",
        inputs={"GPUs": q(found.gpus), "MFU": q(found.mfu),
                "deadline": q(deadline, "days")},
        result=q(view.training_days, "days"), notes=[gpu_note, "mfu-calibration"]))
    what = (f"{found.gpus} x {found.gpu} ({found.nodes} node(s) of {found.gpus_per_node}), "
            f"{_duration(found.days)} at MFU {found.mfu:.0%}, unpriced (no offer rents it)")
    if view.meets_deadline:
        result.summary = "the smallest count that meets the deadline: " + what
    else:
        result.summary = (f"no count up to {inp.max_gpus:,} GPUs meets the deadline; the "
                          f"fastest found: {what}")
        result.shortfall = (f"{_duration(found.days)} against {_duration(deadline)} allowed")


def _affordable(inp: PlanInput) -> PlanResult:
    """A fine-tune on a budget: the biggest model each method affords on each data size, and
    the asked method and size as the recommendation."""
    found = affordable.compare(inp)
    best, runner = found.picks[(inp.workload, float(inp.tokens or 0.0))]
    result = PlanResult(goal="largest model: " + _goal(inp), summary="", evaluated=found.searches,
                        affordable=found.rows)
    result.assumptions += affordable_assumptions(inp)
    if best is None:
        smallest = models_by_size()[0]
        result.summary = (f"no catalog model meets the goal ({_goal(inp)}), not even the "
                          f"smallest, {smallest[1]} ({smallest[0]:g}B)")
        result.shortfall = "a larger budget or less data"
        return cite(result)
    gpus = active_catalog().gpus.rows.values()
    peaks = {g.id: g.bf16_tflops for g in gpus}
    result.model, opt = best
    rec = result.recommendation = _view(opt, peaks)
    result.steps.append(Step(
        label="largest model by method and data size", formula="for each method and data "
        "size, bisect the catalog's model sizes; each model and GPU kind searched once per "
        "method (at the smallest node count that holds it), its time scaled to each size; a "
        "kind whose cost floor exceeds the budget or a plan found is skipped",
        inputs={"methods": q(len(affordable.METHODS)),
                "data sizes": q(len(affordable.sizes_for(inp))),
                "budget": q(inp.budget_usd, "USD")},
        result=q(found.searches, "(model, GPU kind) searches"),
        notes=["finetune-dataset-default#default-tokens",
               "megatron-lm-2021#training-time-estimate"]))
    result.steps += _best_steps(inp, rec, next(g.source_note for g in gpus if g.id == opt.gpu),
                                opt.offer.source_note)
    result.summary = f"the biggest model the goal affords is {result.model}: " + \
        _sentence(inp, rec)
    if runner is not None:
        result.runner_up_model, r = runner[0], _view(runner[1], peaks)
        result.runner_up = r
        result.summary += f"; runner-up {runner[0]}: {r.gpus} x {r.gpu}, about ${r.cost_usd:,.0f}"
    return cite(result)


def _largest(inp: PlanInput) -> PlanResult:
    """The biggest catalog model whose plan meets the goal, and the next size down."""
    if inp.workload in affordable.METHODS and inp.budget_usd is not None \
            and inp.deadline_days is None:
        return _affordable(inp)
    base = inp.model_dump(exclude={"largest_model"}, exclude_none=True)
    base.setdefault("objective", "cheapest")  # the plan that proves a size affordable

    def meets(model_id: str) -> PlanResult | None:
        res = run(PlanInput(**base, model=model_id))
        return res if res.recommendation is not None else None

    best, runner, searches = largest(meets)
    goal = "largest model: " + _goal(inp)
    if best is None:
        smallest = models_by_size()[0]
        return cite(PlanResult(goal=goal, summary=(
            f"no catalog model meets the goal ({_goal(inp)}), not even the smallest, "
            f"{smallest[1]} ({smallest[0]:g}B)"), shortfall="a larger budget or a later "
            "deadline", evaluated=searches))
    best.goal, best.runner_up_model = goal, None
    best.summary = f"the biggest model the goal affords is {best.model}: " + best.summary
    if runner is not None:
        best.runner_up, best.runner_up_model = runner.recommendation, runner.model
        r = runner.recommendation
        best.summary += (f"; runner-up {runner.model}: {r.gpus} x {r.gpu}, about "
                         f"${r.cost_usd:,.0f}")
    best.steps.insert(0, Step(
        label="largest model search", formula="bisect the catalog's model sizes, smallest to "
        "largest, running the plan search for each size probed",
        inputs={"sizes": q(len(models_by_size()))}, result=q(searches, "plan searches"),
        notes=["megatron-lm-2021#training-time-estimate"]))
    best.assumptions.append("a plan's existence is taken to fall as the model grows, so the "
                            "sizes are bisected rather than all searched; each size stands "
                            "for the catalog's models of that size")
    return best


def _best_steps(inp: PlanInput, rec: PlanOption, gpu_note: str, offer_note: str) -> list[Step]:
    steps = []
    if inp.training and rec.training_days is not None:
        steps.append(Step(
            label="training time of the recommendation",
            formula="parallelism tool: steps x step time (about 6 N D / (GPUs x peak x MFU))",
            inputs={"GPUs": q(rec.gpus), "peak": q(rec.gpu_peak_tflops, "TFLOP/s"),
                    "MFU": q(rec.mfu)},
            result=q(rec.training_days, "days"),
            notes=[gpu_note, "mfu-calibration"]))
        steps.append(Step(label="cost of the run",
                          formula="billed GPUs x $/GPU-h x hours billed (days x 24 rounded up "
                          "to the offer's billing increment, or its whole term)",
                          inputs={"billed GPUs": q(rec.billed_gpus),
                                  "$/GPU-h": q(rec.usd_per_gpu_hour, "USD"),
                                  "hours billed": q(rec.billed_hours, "h")},
                          result=q(rec.cost_usd, "USD"),
                          notes=[offer_note, *billing_notes(rec.provider, rec.offer_kind)]))
    else:
        d = rec.decode_ms or {}
        steps.append(Step(
            label="time per output token (one decode step)",
            formula="max(weights / (tp x HBM x 0.8) + batch x context x KV bytes / (tp x HBM x "
            "0.5), batch x (2 N + attention) / (tp x peak x efficiency)) + 2 all-reduces a layer "
            "+ fixed cost a layer (kernels, small all-reduces)",
            inputs={"tp": q(rec.layout.get("tp")), "batch": q(rec.concurrency_per_replica),
                    "weights read": q(d.get("weights_read_ms"), "ms"),
                    "KV read": q(d.get("kv_read_ms"), "ms"),
                    "compute": q(d.get("compute_ms"), "ms"),
                    "TP comm": q(d.get("tp_comm_ms"), "ms"),
                    "fixed cost": q(d.get("overhead_ms"), "ms")},
            result=q(d.get("total_ms"), "ms"),
            notes=["serving-latency#decode-step", "serving-latency#layer-overhead",
                   "serving-latency#small-all-reduce", gpu_note]))
        if rec.prefill_ms:
            p = rec.prefill_ms
            steps.append(Step(
                label="time to first token (one prompt's prefill)",
                formula="max(weights + KV written, P x (2 N + 2 layers x P x attention width) "
                "/ (tp x peak x efficiency)) + 2 all-reduces a layer + fixed cost a layer",
                inputs={"prompt": q(inp.input_tokens, "tokens"),
                        "weights read": q(p["weights_read_ms"], "ms"),
                        "KV write": q(p["kv_read_ms"], "ms"),
                        "compute": q(p["compute_ms"], "ms"),
                        "TP comm": q(p["tp_comm_ms"], "ms"),
                        "fixed cost": q(p.get("overhead_ms"), "ms")},
                result=q(p["total_ms"], "ms"),
                notes=["serving-latency#prefill", "serving-latency#layer-overhead"]))
        steps.append(Step(label="replicas", formula="ceil(target / per-replica rate), and at "
                          "least users / batch when users are given",
                          inputs={"GPUs per replica": q(rec.gpus_per_replica)},
                          result=q(rec.replicas, "replicas"),
                          notes=["serving-latency#requests-per-second"]))
        steps.append(Step(label="monthly cost", formula=f"billed GPUs x $/GPU-h x "
                          f"{HOURS_PER_MONTH} h",
                          inputs={"billed GPUs": q(rec.billed_gpus),
                                  "$/GPU-h": q(rec.usd_per_gpu_hour, "USD")},
                          result=q(rec.cost_usd, "USD"), notes=[offer_note, HOURS_NOTE]))
    return steps


def _assumptions(inp: PlanInput, result: PlanResult) -> None:
    result.assumptions += [
        "node counts tried: 1, 2, 3, 4, 6, 8, 12, 16, 24, ... whole nodes of the GPU's usual "
        "node size; a GPU kind stops growing once the deadline is met, and skips the counts that "
        "would miss it even if time fell in proportion to GPUs from a count measured, and "
        "once a count is over the budget (more nodes of the kind cost at least as much)",
        "a count whose GPUs do not divide the default global batch is retried with the batch "
        "rounded up to a multiple of the GPU count",
        "offers: available, of the kinds allowed (" + ", ".join(inp.offer_kinds) + "); a "
        "commitment bills its whole term; a multi-node training job only on an offer whose node "
        "is the cluster's multi-GPU node, from a provider whose inter-node fabric note "
        "plan-cluster-fabrics states",
    ]
    if not inp.training:
        result.assumptions.append(
            "a replica is tp GPUs in a node (pp whole nodes when one node cannot hold it); its "
            "batch is the most sequences whose KV cache at full context fits and whose decode "
            "step meets the per-token target; weights read at 80% and KV at 50% of datasheet "
            "HBM bandwidth (note serving-latency); time to first token is one prompt's prefill "
            f"on an idle replica, no queueing; serving cost is per month of {HOURS_PER_MONTH} h")


def _duration(days: float) -> str:
    if days >= 1:
        return f"{days:.1f} days"
    return f"{days * 24:.1f} hours" if days * 24 >= 1 else f"{days * 1440:.0f} minutes"


def _sentence(inp: PlanInput, rec: PlanOption) -> str:
    layout = ", ".join(f"{k}={v}" for k, v in rec.layout.items())
    if inp.training:
        return (f"rent {rec.gpus} x {rec.gpu} ({rec.nodes} node(s) of {rec.gpus_per_node}) from "
                f"{rec.offer} at ${rec.usd_per_gpu_hour:g}/GPU-h; layout {layout}; "
                f"{_duration(rec.training_days or 0.0)} at MFU {rec.mfu:.0%}; about "
                f"${rec.cost_usd:,.0f}")
    return (f"rent {rec.gpus} x {rec.gpu} as {rec.replicas} replica(s) of "
            f"{rec.gpus_per_replica} ({layout}) from {rec.offer} at "
            f"${rec.usd_per_gpu_hour:g}/GPU-h: {rec.tokens_per_s:,.0f} tokens/s, "
            f"{rec.time_per_output_token_ms:.1f} ms per output token at "
            f"{rec.concurrency_per_replica} sequences a replica"
            + (f", first token in {rec.prefill_ms['total_ms']:,.0f} ms" if rec.prefill_ms
               else "") + ", "
            f"${rec.cost_usd:,.0f} a month (${rec.usd_per_million_output_tokens:.2f} per million "
            "output tokens)")


TOOL = Tool(
    name="plan",
    description="Plan to a goal: search every GPU kind and whole-node count with the "
    "parallelism tool and the cheapest hosting offer; recommend the GPUs, count, layout and "
    "offer that meet a training deadline, a serving throughput, a budget, or cheapest/fastest, "
    "with the cost/time Pareto front and why the rest failed.",
    input_model=PlanInput,
    output_model=PlanResult,
    run=run,
)
