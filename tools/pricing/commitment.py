"""On-demand against committed prices for one cluster and one period, from the rows on record.

"Is reserving cheaper?" depends on three things a discount alone hides: the committed price a
provider really publishes, the term it bills whatever the job's length (a 1-year reservation
for a 3-month job bills a year), and whether the offer can host the cluster at all (a
multi-node cluster needs an inter-node fabric, note plan-cluster-fabrics). This compares the
cheapest of each side that passes those tests, and gives the utilisation at which they cross.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from clusterplan.tools.contract import Step, q
from clusterplan.tools.pricing.billing import billed_hours
from clusterplan.tools.pricing.costs import COMMITTED_KINDS
from clusterplan.tools.pricing.fabrics import hosts_as_one_cluster
from clusterplan.tools.pricing.offers import Offer

TERM_NOTE = "pricing-models#two-models"  # a reservation is a monthly or yearly contract


class Priced(BaseModel):
    """One offer priced for the cluster and period."""

    offer: Offer
    billed_gpus: int
    billed_hours: float
    total_usd: float
    unused_hours: float = Field(default=0.0, description="hours the term bills beyond the job's: "
                                "a 1-year term for a 3-month job pays 8,760 - 2,190 = 6,570 idle")


class CommitmentComparison(BaseModel):
    """The cheapest on-demand and committed ways to run the cluster for the period."""

    gpus: int
    hours: float
    utilization: float
    on_demand: Priced | None = None
    committed: Priced | None = None
    terms: list[Priced] = Field(default_factory=list, description="the cheapest offer of each "
                                "committed kind (1-month, 1-year, 3-year, capacity block)")
    cheaper: str | None = Field(default=None, description="'on_demand' or 'committed'")
    saving_usd: float | None = None
    break_even_utilization: float | None = Field(
        default=None, description="utilisation above which the commitment costs less: its total "
        "/ the on-demand cost at 100%")
    stated_discount: float | None = None
    stated_break_even_utilization: float | None = None
    ruled_out: dict[str, int] = Field(default_factory=dict)


def _hosts(o: Offer, gpus: int, ruled: dict[str, int]) -> bool:
    if not hosts_as_one_cluster(o, gpus):
        ruled["no inter-node fabric for a multi-node cluster"] = \
            ruled.get("no inter-node fabric for a multi-node cluster", 0) + 1
        return False
    return True


def _term_step(p: Priced) -> Step:
    """A commitment's total: its price for every hour of its term, used or not."""
    return Step(label=f"{p.offer.kind} for the period",
                formula="$/GPU-h x billed GPUs x max(hours, the term's minimum)",
                inputs={"$/GPU-h": q(p.offer.effective_usd_per_gpu_hour, "USD"),
                        "GPUs": q(p.billed_gpus), "billed hours": q(p.billed_hours, "h")},
                result=q(p.total_usd, "USD"), notes=[p.offer.source_note, TERM_NOTE])


def _keep_cheapest_term(terms: list[Priced], priced: Priced) -> None:
    """Keep one row per committed kind: the cheapest total for the period."""
    for i, p in enumerate(terms):
        if p.offer.kind == priced.offer.kind:
            if priced.total_usd < p.total_usd:
                terms[i] = priced
            return
    terms.append(priced)


def compare(offers: list[Offer], gpus: int, hours: float, utilization: float,
            stated_discount: float | None) -> tuple[CommitmentComparison, list[Step]]:
    """Cheapest on-demand (billed for the hours used) against cheapest commitment (billed for
    its whole term) for `gpus` GPUs over `hours`."""
    out = CommitmentComparison(gpus=gpus, hours=hours, utilization=utilization,
                               stated_discount=stated_discount)
    for o in offers:
        if o.status != "available" or o.kind == "spot" or not _hosts(o, gpus, out.ruled_out):
            continue
        billed = math.ceil(gpus / o.gpus_per_node) * o.gpus_per_node
        committed = o.kind in COMMITTED_KINDS
        term = billed_hours(o, hours)
        if term is None:
            out.ruled_out["period longer than the longest term sold"] = \
                out.ruled_out.get("period longer than the longest term sold", 0) + 1
            continue
        total = o.effective_usd_per_gpu_hour * billed * term * (1.0 if committed else utilization)
        priced = Priced(offer=o, billed_gpus=billed, billed_hours=term, total_usd=round(total, 2),
                        unused_hours=round(term - hours, 6))
        side = "committed" if committed else "on_demand"
        best = getattr(out, side)
        if best is None or priced.total_usd < best.total_usd:
            setattr(out, side, priced)
        if committed:
            _keep_cheapest_term(out.terms, priced)
    out.terms.sort(key=lambda p: p.total_usd)
    steps = []
    od, cm = out.on_demand, out.committed
    if od is not None:
        steps.append(Step(label="on-demand for the period",
                          formula="$/GPU-h x billed GPUs x hours x utilisation",
                          inputs={"$/GPU-h": q(od.offer.effective_usd_per_gpu_hour, "USD"),
                                  "GPUs": q(od.billed_gpus), "hours": q(hours, "h"),
                                  "utilisation": q(utilization)},
                          result=q(od.total_usd, "USD"), notes=[od.offer.source_note]))
    steps += [_term_step(p) for p in out.terms]
    if od is not None and cm is not None:
        full = od.offer.effective_usd_per_gpu_hour * od.billed_gpus * hours
        out.break_even_utilization = round(cm.total_usd / full, 6)
        out.cheaper = "committed" if cm.total_usd < od.total_usd else "on_demand"
        out.saving_usd = round(abs(od.total_usd - cm.total_usd), 2)
        steps.append(Step(label="break-even utilisation (prices on record)",
                          formula="committed total / on-demand cost at 100% utilisation",
                          inputs={"committed": q(cm.total_usd, "USD"),
                                  "on-demand at 100%": q(round(full, 2), "USD")},
                          result=q(out.break_even_utilization),
                          notes=["pricing-models#break-even"]))
    if stated_discount is not None:
        out.stated_break_even_utilization = round(1 - stated_discount, 6)
        steps.append(Step(label="break-even at the stated discount", formula="1 - discount",
                          inputs={"discount": q(stated_discount)},
                          result=q(out.stated_break_even_utilization),
                          notes=["pricing-models#break-even"]))
    return out, steps
