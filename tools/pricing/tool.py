"""Tool `pricing`: GPU rental offers from the SQLite catalog, and what they cost.

Cheapest offer, $/GPU-hour and $/node-hour, monthly cost at a utilisation, reserved vs
on-demand break-even, egress and the cost of a training run, each figure dated and cited.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field, model_validator

from clusterplan.db.rows import OfferKind
from clusterplan.tools.citing import cite
from clusterplan.tools.contract import ToolInput, ToolResult
from clusterplan.tools.pricing.billing import billing_step
from clusterplan.tools.pricing.commitment import CommitmentComparison, compare
from clusterplan.tools.pricing.costs import (
    HOURS_PER_MONTH,
    BreakEven,
    EgressBand,
    billed_gpus,
    period_cost,
    run_cost,
)
from clusterplan.tools.pricing.offers import Offer
from clusterplan.tools.pricing.parts import (
    add_break_even,
    add_egress,
    gather_offers,
    pick_cheapest,
    resolve,
)
from clusterplan.tools.registry import Tool


class PricingInput(ToolInput):
    """What to price: a GPU, how many, from whom, for how long, and the extras."""

    gpu: str | None = Field(default=None, description="a catalog GPU id or name, e.g. h100-sxm")
    gpus: int | None = Field(default=None, ge=1, le=1_000_000, description="GPUs wanted")
    nodes: int | None = Field(default=None, ge=1, le=100_000, description="whole nodes wanted")
    provider: str | None = Field(default=None, description="only this provider's offers")
    kind: Literal["any"] | OfferKind = Field(default="any", description="pricing kind")
    hours: float | None = Field(default=None, gt=0, le=1e6, description="hours to price")
    months: float | None = Field(default=None, gt=0, le=1200,
                                 description=f"months ({HOURS_PER_MONTH} h)")
    utilization: float | None = Field(default=None, gt=0, le=1,
                                      description="share of hours used, 0 < u <= 1 (default 1)")
    egress_tb: float | None = Field(default=None, ge=0, le=1e9,
                                    description="egress in decimal TB")
    egress_tib: float | None = Field(default=None, ge=0, le=1e9,
                                     description="egress in TiB (2^40 B)")
    egress_provider: str | None = Field(default=None, description="whose egress prices to use")
    egress_usd_per_gb: float | None = Field(default=None, ge=0, le=1000,
                                            description="a flat egress rate you were quoted")
    gpu_hours: float | None = Field(default=None, gt=0, le=1e12,
                                    description="GPU-hours of a run")
    reserved_discount: float | None = Field(default=None, gt=0, lt=1,
                                            description="reserved discount, e.g. 0.3 for 30%")
    compare_commitments: bool = Field(
        default=False, description="compare the cheapest on-demand and committed offers that "
        "can host the GPUs for the hours or months given")
    as_of: dt.date | None = Field(default=None, description="date to age offers on (today)")

    @model_validator(mode="after")
    def _consistent(self) -> PricingInput:
        for a, b in (("gpus", "nodes"), ("hours", "months"), ("egress_tb", "egress_tib")):
            if getattr(self, a) is not None and getattr(self, b) is not None:
                raise ValueError(f"give `{a}` or `{b}`, not both")
        sized = [f for f in ("gpus", "nodes", "hours", "months", "gpu_hours")
                 if getattr(self, f) is not None]
        if sized and not self.gpu:
            raise ValueError(f"`{sized[0]}` needs `gpu` (which GPU to price)")
        if self.compare_commitments and (not self.gpu or (self.hours is None
                                                          and self.months is None)):
            raise ValueError("`compare_commitments` needs `gpu` and `hours` or `months`")
        no_volume = self.egress_tb is None and self.egress_tib is None
        for f in ("egress_provider", "egress_usd_per_gb"):
            if getattr(self, f) is not None and no_volume:
                raise ValueError(f"`{f}` needs `egress_tb` or `egress_tib` (how much data)")
        return self


class PricingResult(ToolResult):
    """Offers sorted by effective $/GPU-hour, the cheapest, and the costs asked for."""

    offers: list[Offer] = Field(default_factory=list)
    offers_not_listed: int = Field(default=0, description="matching offers left out of `offers`")
    cheapest: Offer | None = None
    hours_per_month: int = HOURS_PER_MONTH
    billed_gpus: int | None = None
    hourly_usd: float | None = None
    monthly_usd: float | None = None
    period_hours: float | None = None
    billed_hours: float | None = Field(default=None, description="the period as the offer bills "
                                       "it: its increment and minimum, or a commitment's term")
    total_usd: float | None = None
    break_even_utilization: BreakEven | None = None
    egress_gb: float | None = None
    egress_usd: float | None = None
    egress_tiers: list[EgressBand] = Field(default_factory=list)
    run_usd: float | None = None
    commitments: CommitmentComparison | None = None


def run(inp: PricingInput) -> PricingResult:
    """Price the asked GPUs from the catalog's offers."""
    as_of = inp.as_of or dt.date.today()
    result = PricingResult()
    if inp.as_of is None:
        result.assumptions.append(f"as_of is today, {as_of}")
    ask = resolve(inp, as_of)
    if inp.gpu or inp.provider or not _only_extras(inp):
        gather_offers(inp, ask, result)
        pick_cheapest(inp, ask, result)
        if result.cheapest is not None:
            _add_costs(inp, result.cheapest, result)
    if inp.compare_commitments:
        _compare(inp, result)
    add_break_even(inp, ask, result)
    add_egress(inp, ask, result)
    return cite(result)


def _compare(inp: PricingInput, result: PricingResult) -> None:
    hours = inp.hours if inp.hours is not None else (inp.months or 0) * HOURS_PER_MONTH
    gpus = inp.gpus or (inp.nodes or 1) * (result.cheapest.gpus_per_node if result.cheapest
                                           else 8)
    found, steps = compare(result.offers, gpus, hours, inp.utilization or 1.0,
                           inp.reserved_discount)
    result.commitments = found
    result.steps += steps
    result.assumptions.append("a cluster larger than one node is hosted only on 8-GPU offers "
                              "of providers with an inter-node fabric (note "
                              "plan-cluster-fabrics); a commitment bills its whole term")


def _only_extras(inp: PricingInput) -> bool:
    """A question about egress or break-even alone needs no offer list."""
    return inp.reserved_discount is not None or inp.egress_tb is not None or \
        inp.egress_tib is not None


def _add_costs(inp: PricingInput, offer: Offer, result: PricingResult) -> None:
    """GPUs billed, hourly and monthly cost, the asked period, and a run's GPU-hours."""
    if inp.gpu is None:
        return
    gpus, step = billed_gpus(offer, inp.gpus, inp.nodes)
    result.steps.append(step)
    if inp.gpus is None and inp.nodes is None:
        result.assumptions.append(f"GPUs not given: one node of the cheapest offer ({gpus} GPUs)")
    elif inp.gpus is not None and gpus != inp.gpus:
        result.warnings.append(f"{offer.label()} rents whole nodes of {offer.gpus_per_node} "
                               f"GPUs: {inp.gpus} GPUs are billed as {gpus}")
    utilization = inp.utilization if inp.utilization is not None else 1.0
    if inp.utilization is None:
        result.assumptions.append("utilisation 100% (every hour of the month used)")
    result.billed_gpus = gpus
    result.hourly_usd = round(offer.effective_usd_per_gpu_hour * gpus, 4)
    result.assumptions.append(f"a month is {HOURS_PER_MONTH} hours (365 x 24 / 12)")
    result.monthly_usd, step = period_cost(offer, gpus, HOURS_PER_MONTH, utilization,
                                           "monthly cost")
    result.steps.append(step)
    if inp.hours is not None or inp.months is not None:
        hours = inp.hours if inp.hours is not None else (inp.months or 0) * HOURS_PER_MONTH
        result.period_hours = hours
        billed, rounding, assumed = billing_step(offer, hours)
        result.billed_hours = round(billed, 6)
        result.steps += [rounding] if rounding else []
        result.assumptions += [assumed] if assumed else []
        result.total_usd, step = period_cost(offer, gpus, billed, utilization,
                                             "cost of the period")
        result.steps.append(step)
    if inp.gpu_hours is not None:
        result.run_usd, step = run_cost(offer, inp.gpu_hours)
        result.steps.append(step)
        result.assumptions.append("the run is billed per GPU-hour used, without rounding "
                                  "up to whole nodes")


TOOL = Tool(
    name="pricing",
    description=("GPU rental offers from the catalog, each dated and cited: cheapest offer, "
                 "$/GPU-hour and $/node-hour, monthly cost at a utilisation, reserved vs "
                 "on-demand break-even, egress cost and the cost of a training run."),
    input_model=PricingInput,
    output_model=PricingResult,
    run=run,
)
