"""Tool `plan`: for a training goal (a deadline, a budget, the cheapest, the fastest), search
every GPU kind, whole-node count, layout and hosting offer; the recommendation, the Pareto
options (cost vs time) and why the rest fail.

Contract: `PlanInput`, `PlanResult`, `run`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, Field

from clusterplan.tools.citing import cite
from clusterplan.tools.contract import Step, ToolResult, q
from clusterplan.tools.plan.input import PlanInput
from clusterplan.tools.plan.search import Option, search
from clusterplan.tools.registry import Tool

DEFAULT_FINETUNE_TOKENS = 1e9
MAX_OPTIONS = 8


class PlanOption(BaseModel):
    gpu: str
    gpus: int
    nodes: int
    layout: dict[str, Any]
    provider: str
    offer_kind: str
    product: str
    region: str
    usd_per_gpu_hour: float
    offer_note: str
    tokens_per_s: float
    mfu: float
    time_days: float
    billed_hours: float
    cost_usd: float
    meets_goal: bool


class PlanResult(ToolResult):
    goal: str
    tokens: float
    needed_tokens_per_s: float | None = None
    recommendation: str
    best: PlanOption | None = None
    options: list[PlanOption] = Field(default_factory=list, description="Pareto: cost vs time")
    rejected: dict[str, int] = Field(default_factory=dict)
    evaluated: int = 0
    gap: str | None = None


def run(inp: PlanInput) -> PlanResult:
    said: list[str] = []
    tokens = inp.tokens
    if tokens is None:
        if inp.workload == "pretrain":
            from clusterplan.tools.contract import ToolError
            raise ToolError("tokens: a pretraining plan needs the token budget, e.g. '2T'")
        tokens = DEFAULT_FINETUNE_TOKENS
        said.append(f"fine-tuning data: {tokens:,.0f} tokens (not given)")
    as_of = dt.date.today()
    found = search(inp, tokens, as_of)
    said += found.assumed
    said += ["layouts searched with ZeRO 1 and 3, micro-batch 1, 2, 4 (the solver's full space "
             "per count is narrowed for speed)",
             "one run billed for its whole duration; a commitment for its whole term",
             "multi-node clusters only on 8-GPU offers of providers with an inter-node fabric "
             "on record (CoreWeave's HGX H100/H200/B200 taken to have the InfiniBand its page "
             "describes for A100 HGX)"]
    opts = [_option(o, _meets(inp, o)) for o in found.options]
    for o in opts:
        if not o.meets_goal:
            key = "misses the deadline" if inp.goal == "deadline" else "over budget"
            found.reject(key)
    meeting = [o for o in opts if o.meets_goal]
    best = _pick(inp.goal, meeting)
    front = _pareto(meeting or opts)
    result = PlanResult(goal=inp.goal, tokens=tokens, best=best, options=front[:MAX_OPTIONS],
                        rejected=found.rejected, evaluated=found.evaluated, assumptions=said,
                        recommendation="")
    if inp.deadline_days:
        result.needed_tokens_per_s = tokens / (inp.deadline_days * 86400)
    result.steps = _steps(inp, result)
    result.recommendation = _sentence(inp, best) if best else "no option meets the goal"
    if best is None:
        result.gap = _gap(inp, opts)
    return cite(result)


def _meets(inp: PlanInput, o: Option) -> bool:
    if inp.goal == "deadline":
        return o.time_s <= (inp.deadline_days or 0) * 86400
    if inp.goal == "budget":
        return o.cost_usd <= (inp.budget_usd or 0)
    return True


def _option(o: Option, meets: bool) -> PlanOption:
    f = o.offer
    return PlanOption(gpu=o.gpu, gpus=o.gpus, nodes=o.nodes, layout=o.layout, provider=f.provider,
                      offer_kind=f.kind, product=f.product, region=f.region,
                      usd_per_gpu_hour=f.effective_usd_per_gpu_hour, offer_note=f.source_note,
                      tokens_per_s=round(o.tokens_per_s, 1), mfu=round(o.mfu, 4),
                      time_days=o.time_s / 86400, billed_hours=o.billed_hours,
                      cost_usd=round(o.cost_usd, 2), meets_goal=meets)


def _pick(goal: str, opts: list[PlanOption]) -> PlanOption | None:
    if not opts:
        return None
    if goal in ("fastest", "budget"):
        return min(opts, key=lambda o: (o.time_days, o.cost_usd))
    return min(opts, key=lambda o: (o.cost_usd, o.time_days))


def _pareto(opts: list[PlanOption]) -> list[PlanOption]:
    """Options no other beats on both cost and time, cheapest first."""
    front: list[PlanOption] = []
    for o in sorted(opts, key=lambda o: (o.cost_usd, o.time_days)):
        if not front or o.time_days < front[-1].time_days:
            front.append(o)
    return front


def _sentence(inp: PlanInput, b: PlanOption) -> str:
    where = f"{b.provider} {b.offer_kind}" + (f" ({b.product})" if b.product else "")
    return (f"Rent {b.gpus} x {b.gpu} ({b.nodes} node(s)) from {where} at "
            f"${b.usd_per_gpu_hour:g}/GPU-h; layout tp={b.layout['tp']} pp={b.layout['pp']} "
            f"dp={b.layout['dp']}: {b.time_days:.1f} days, ${b.cost_usd:,.0f}")


def _gap(inp: PlanInput, opts: list[PlanOption]) -> str:
    if not opts:
        return "no GPU kind with an offer that can host the job was found"
    if inp.goal == "deadline":
        fast = min(opts, key=lambda o: o.time_days)
        return (f"the fastest option ({fast.gpus} x {fast.gpu}) takes {fast.time_days:.1f} days, "
                f"{fast.time_days / (inp.deadline_days or 1):.2f}x the {inp.deadline_days:g}-day "
                f"deadline; a deadline of {fast.time_days:.1f} days or more GPUs "
                f"(max_gpus={inp.max_gpus}) would meet it")
    cheap = min(opts, key=lambda o: o.cost_usd)
    return (f"the cheapest option ({cheap.gpus} x {cheap.gpu}, {cheap.provider}) costs "
            f"${cheap.cost_usd:,.0f}, ${cheap.cost_usd - (inp.budget_usd or 0):,.0f} over the "
            f"budget; a budget of ${cheap.cost_usd:,.0f} would meet it")


def _steps(inp: PlanInput, r: PlanResult) -> list[Step]:
    steps = []
    if r.needed_tokens_per_s is not None:
        steps.append(Step(label="throughput needed", formula="tokens / (deadline days x 86,400 s)",
                          inputs={"tokens": q(r.tokens, "tokens"),
                                  "deadline": q(inp.deadline_days, "days")},
                          result=q(r.needed_tokens_per_s, "tokens/s"),
                          notes=["megatron-lm-2021#training-time-estimate"]))
    steps.append(Step(label="search", formula="every GPU kind with offers x whole-node counts "
                      "from peak x efficiency / (6 N) per GPU upward x the parallelism solver's "
                      "fastest layout x every offer that can host it",
                      result=q(r.evaluated, "priced candidates"),
                      notes=["mfu-calibration#efficiency-assumption", "multi-node-clusters",
                             "plan-cluster-fabrics"]))
    for reason, n in r.rejected.items():
        steps.append(Step(label="ruled out", formula=reason, result=q(n, "candidates")))
    if r.best:
        b = r.best
        steps.append(Step(label="run cost",
                          formula="units x GPUs per unit x $/GPU-h x billed hours",
                          inputs={"GPUs": q(b.gpus), "price": q(b.usd_per_gpu_hour, "USD/GPU-h"),
                                  "billed": q(b.billed_hours, "h")},
                          result=q(b.cost_usd, "USD"),
                          notes=[b.offer_note, "pricing-models#hours-per-month"]))
    return steps


TOOL = Tool(
    name="plan",
    description="The inverse question for training: for a goal (tokens by a deadline, a budget, "
                "the cheapest, the fastest) search every GPU kind, whole-node count, layout and "
                "hosting offer; the recommendation, the Pareto options and why the rest fail.",
    input_model=PlanInput, output_model=PlanResult, run=run)
