"""When no cluster meets a goal: by how much the nearest one misses, and what would meet it.

A bare "no cluster meets the goal" leaves the user guessing which limit to move; the search
already knows the closest candidate for each kind of miss, so the answer names it."""

from __future__ import annotations

from clusterplan.tools.plan.input import PlanInput
from clusterplan.tools.plan.search import Search


def shortfall(inp: PlanInput, found: Search) -> str | None:
    """One sentence per miss the search recorded, nearest candidate first."""
    parts = []
    c = found.closest
    if c is not None and inp.deadline_days and c.days:
        ratio = c.days / inp.deadline_days
        parts.append(
            f"the fastest found, {c.gpus} x {c.gpu}, takes {c.days:.1f} days, {ratio:,.1f} x the "
            f"deadline (short by {c.days - inp.deadline_days:,.1f} days); a deadline of "
            f"{c.days:.1f} days would be met by it, or about {c.gpus * ratio:,.0f} GPUs if time "
            "fell in proportion (more GPUs than max_gpus, or a larger global batch)")
    o = found.cheapest_over
    if o is not None and inp.budget_usd:
        unit = "" if inp.training else " a month"
        parts.append(
            f"the cheapest found, {o.gpus} x {o.gpu} on {o.offer.provider}, costs "
            f"${o.cost_usd:,.0f}{unit}, ${o.cost_usd - inp.budget_usd:,.0f} "
            f"({o.cost_usd / inp.budget_usd - 1:.0%}) over the budget; a budget of "
            f"${o.cost_usd:,.0f}{unit} would meet it")
    for which, (ratio, gpu, tp, pp) in found.latency_miss.items():
        target = inp.ttft_ms if which == "ttft" else (inp.tpot_target_s or 0.0) * 1e3
        name = "time to first token" if which == "ttft" else "time per output token"
        parts.append(
            f"the quickest replica found, {gpu} at tp={tp}, pp={pp}, reaches a {name} of "
            f"{ratio * target:,.1f} ms, {ratio:,.2f} x the {target:g} ms target; a target of "
            f"{ratio * target:,.1f} ms would be met by it, or a faster GPU kind")
    return "; ".join(parts) or None
