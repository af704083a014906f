"""The pricing arithmetic: GPUs billed, monthly cost, reserved break-even, egress, run cost.

Each function returns its figure with the Step that shows how it was reached.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from clusterplan.db.rows import ProviderRow, egress_bands
from clusterplan.tools.contract import Step, q
from clusterplan.tools.pricing.offers import Offer
from clusterplan.tools.units import convert

HOURS_PER_MONTH = 730  # 365 x 24 / 12, note pricing-models#hours-per-month
HOURS_NOTE = "pricing-models#hours-per-month"
# Kinds paid for every hour whether used or not; on-demand and spot are paid per hour used.
COMMITTED_KINDS = ("reserved_1m", "reserved_1y", "reserved_3y", "capacity_block")
# The hours a commitment bills at least, and at most (None: no ceiling). A 1-year reservation
# for a 3-month job still bills the year (pricing-models#two-models); a Capacity Block runs 1 to
# 182 days (aws-capacity-blocks-2024#terms).
TERM_HOURS: dict[str, tuple[float, float | None]] = {
    "on_demand": (0.0, None), "spot": (0.0, None),
    "reserved_1m": (HOURS_PER_MONTH, None), "reserved_1y": (12 * HOURS_PER_MONTH, None),
    "reserved_3y": (36 * HOURS_PER_MONTH, None), "capacity_block": (24.0, 182 * 24.0),
}


def term_billed_hours(kind: str, hours: float) -> float | None:
    """Hours a kind bills for a job of `hours`: at least its term; None if the job outlasts the
    longest term the kind sells."""
    low, high = TERM_HOURS.get(kind, (0.0, None))
    if high is not None and hours > high:
        return None
    return max(hours, low)


class BreakEven(BaseModel):
    """Utilisation above which reserved capacity costs less than on-demand, and why."""

    utilization: float
    discount: float
    discount_from: str


class EgressBand(BaseModel):
    """One band of an egress bill: the GB that fell in it, its rate and its cost."""

    from_gb: float
    to_gb: float | None
    gb: float
    usd_per_gb: float
    usd: float


def billed_gpus(offer: Offer, gpus: int | None, nodes: int | None) -> tuple[int, Step]:
    """GPUs paid for: whole nodes of the offer's size, at least the GPUs asked for."""
    n = offer.gpus_per_node
    node_count = nodes if nodes is not None else math.ceil((gpus or n) / n)
    step = Step(label="GPUs billed", formula="whole nodes x GPUs per node",
                inputs={"nodes": q(node_count), "gpus_per_node": q(n, "GPU")},
                result=q(node_count * n, "GPU"), notes=[offer.source_note])
    if gpus is not None:
        step.inputs["gpus_asked"] = q(gpus, "GPU")
        step.formula = "ceil(GPUs asked / GPUs per node) x GPUs per node"
    return node_count * n, step


def hourly_cost(offer: Offer, gpus: int) -> float:
    return offer.effective_usd_per_gpu_hour * gpus


def period_cost(offer: Offer, gpus: int, hours: float, utilization: float,
                label: str) -> tuple[float, Step]:
    """Cost over `hours`: committed kinds pay every hour, the others only the hours used."""
    committed = offer.kind in COMMITTED_KINDS
    used = 1.0 if committed else utilization
    usd = offer.effective_usd_per_gpu_hour * gpus * hours * used
    formula = "$/GPU-h x GPUs x hours" + ("" if committed else " x utilisation")
    step = Step(label=label, formula=formula,
                inputs={"usd_per_gpu_hour": q(offer.effective_usd_per_gpu_hour, "USD/GPU-h"),
                        "gpus": q(gpus, "GPU"), "hours": q(hours, "h"),
                        "utilization": q(used)},
                result=q(round(usd, 2), "USD"), notes=[offer.source_note, HOURS_NOTE])
    return round(usd, 2), step


def break_even(discount: float, discount_from: str, notes: list[str]) -> tuple[BreakEven, Step]:
    """Reserved wins when utilisation exceeds 1 - discount (pricing-models#break-even)."""
    utilization = round(1 - discount, 6)
    step = Step(label="reserved vs on-demand break-even", formula="1 - reserved discount",
                inputs={"discount": q(discount)}, result=q(utilization),
                notes=["pricing-models#break-even", *notes])
    return BreakEven(utilization=utilization, discount=discount,
                     discount_from=discount_from), step


def egress_gb(tb: float | None, tib: float | None) -> tuple[float, Step]:
    """The volume in decimal GB; TiB go through pint (2^40 bytes each)."""
    if tib is not None:
        gb = convert(tib, "TiB", "GB")
        inputs, formula = {"egress": q(tib, "TiB")}, "TiB x 2^40 bytes / 1e9 bytes per GB"
    else:
        gb = (tb or 0) * 1000
        inputs, formula = {"egress": q(tb, "TB")}, "TB x 1,000 GB (decimal TB)"
    step = Step(label="egress volume", formula=formula, inputs=inputs,
                result=q(round(gb, 3), "GB"), notes=["egress-fees"])
    return gb, step


def egress_cost(gb: float, provider: ProviderRow | None,
                flat_usd_per_gb: float | None) -> tuple[float, list[EgressBand], Step]:
    """Egress charged band by band: a flat rate, or the provider's free GB and tiers."""
    bands: list[tuple[float | None, float]]
    if flat_usd_per_gb is not None:
        bands, free, notes, who = [(None, flat_usd_per_gb)], 0.0, [], "the rate given"
    else:
        assert provider is not None
        free, notes, who = provider.egress_free_gb, [provider.source_note], provider.id
        bands = ([(b["up_to_gb"], b["usd_per_gb"]) for b in egress_bands(provider.egress_tiers)]
                 if provider.egress_tiers else [(None, provider.egress_usd_per_gb)])
    used = _fill_bands(gb, free, bands)
    total = round(sum(b.usd for b in used), 2)
    step = Step(label=f"egress cost ({who})", formula="sum over bands of GB in band x $/GB",
                inputs={"egress": q(round(gb, 3), "GB"), "free": q(free, "GB"),
                        **{f"band_{i + 1}": q(b.usd_per_gb, "USD/GB") for i, b in
                           enumerate(used)}},
                result=q(total, "USD"), notes=notes)
    return total, used, step


def _fill_bands(gb: float, free: float,
                bands: list[tuple[float | None, float]]) -> list[EgressBand]:
    """The GB of `gb` that fall in the free allowance and in each band, with their cost."""
    used = []
    if free > 0:
        used.append(EgressBand(from_gb=0, to_gb=free, gb=round(min(gb, free), 3), usd_per_gb=0,
                               usd=0))
    low = free
    for top, rate in bands:
        high = gb if top is None else min(gb, top)
        if high > low:
            used.append(EgressBand(from_gb=low, to_gb=top, gb=round(high - low, 3),
                                   usd_per_gb=rate, usd=round((high - low) * rate, 2)))
        low = max(low, top) if top is not None else low
        if top is None or top >= gb:
            break
    return used


def run_cost(offer: Offer, gpu_hours: float) -> tuple[float, Step]:
    """A training run's GPU-hours at the offer's effective $/GPU-hour."""
    usd = round(gpu_hours * offer.effective_usd_per_gpu_hour, 2)
    step = Step(label="cost of the run", formula="GPU-hours x $/GPU-h",
                inputs={"gpu_hours": q(gpu_hours, "GPU-h"),
                        "usd_per_gpu_hour": q(offer.effective_usd_per_gpu_hour, "USD/GPU-h")},
                result=q(usd, "USD"), notes=[offer.source_note])
    return usd, step
