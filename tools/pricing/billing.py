"""What a provider bills for a run of a given length: its billing increment and minimum.

Prices are quoted per hour, but no provider bills a 5-minute run as 5/60 of an hour on every
product: AWS and Google bill by the second after a first minute, Lambda and Hyperstack by the
minute, packet.ai by the hour, and an AWS Capacity Block by the day. Each rule names the note
that states it; a provider with no rule on record is billed for the exact hours, and the answer
says that is an assumption.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from clusterplan.tools.contract import Step, q
from clusterplan.tools.pricing.costs import COMMITTED_KINDS, term_billed_hours
from clusterplan.tools.pricing.offers import Offer

NOTE = "rental-billing-increments"


@dataclass(frozen=True)
class BillingRule:
    """Time is rounded up to whole increments, never below the minimum; past `coarse_from_s`
    the increment becomes `coarse_increment_s` (a Capacity Block: days, then weeks)."""

    increment_s: float
    minimum_s: float
    note: str
    coarse_from_s: float | None = None
    coarse_increment_s: float | None = None

    def billed_s(self, seconds: float) -> float:
        step = self.increment_s
        if self.coarse_from_s is not None and seconds > self.coarse_from_s:
            step = self.coarse_increment_s or step
        # 1e-9: a run of exactly n increments is n, not n + 1, after float division
        return max(self.minimum_s, math.ceil(seconds / step - 1e-9) * step)


_PER_SECOND_AWS = BillingRule(1, 60, f"{NOTE}#aws-per-second")
_PER_SECOND_GCP = BillingRule(1, 60, f"{NOTE}#gcp-per-second")
DAY_S, WEEK_S = 86_400, 7 * 86_400
RULES: dict[tuple[str, str], BillingRule] = {
    ("aws", "on_demand"): _PER_SECOND_AWS, ("aws", "spot"): _PER_SECOND_AWS,
    ("aws", "capacity_block"): BillingRule(DAY_S, DAY_S, "aws-capacity-blocks-2024#terms",
                                           coarse_from_s=14 * DAY_S, coarse_increment_s=WEEK_S),
    ("gcp", "on_demand"): _PER_SECOND_GCP, ("gcp", "spot"): _PER_SECOND_GCP,
    ("lambda", "on_demand"): BillingRule(60, 60, f"{NOTE}#lambda-per-minute"),
    ("hyperstack", "on_demand"): BillingRule(60, 60, f"{NOTE}#hyperstack-per-minute"),
    ("runpod", "on_demand"): BillingRule(1, 1, f"{NOTE}#runpod-per-second"),
    ("packet-ai", "on_demand"): BillingRule(3600, 3600, "pricing-models#packet-no-minimum"),
}


def rule_for(offer: Offer) -> BillingRule | None:
    return RULES.get((offer.provider, offer.kind))


def billing_notes(provider: str, kind: str) -> list[str]:
    """The note of the provider's billing increment for the kind, if one is on record."""
    rule = RULES.get((provider, kind))
    return [rule.note] if rule else []


def billed_hours(offer: Offer, hours: float) -> float | None:
    """Hours the offer bills for a run of `hours`: a commitment's whole term, else the run
    rounded up to the provider's increment and minimum; None if the run outlasts the longest
    term the kind sells."""
    term = term_billed_hours(offer.kind, hours)
    rule = rule_for(offer)
    if term is None or rule is None:
        return term
    return rule.billed_s(term * 3600) / 3600


def billing_step(offer: Offer, hours: float) -> tuple[float, Step | None, str | None]:
    """The hours billed for a run with the Step that rounds them, or the assumption made when
    no increment is on record for the provider."""
    billed = billed_hours(offer, hours)
    if billed is None:
        billed = hours
    rule = rule_for(offer)
    if rule is None:
        if offer.kind in COMMITTED_KINDS:
            return billed, None, None
        return billed, None, (f"{offer.provider} states no billing increment on record: "
                              f"billed for the exact hours used")
    step = Step(label="hours billed",
                formula="max(minimum, run rounded up to whole billing increments)",
                inputs={"run": q(round(hours * 3600, 3), "s"),
                        "increment": q(rule.increment_s, "s"),
                        "minimum": q(rule.minimum_s, "s")},
                result=q(round(billed, 6), "h"), notes=[rule.note])
    return billed, step, None
