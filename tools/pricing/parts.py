"""The parts of a pricing answer that read the store: offers, cheapest, break-even, egress."""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clusterplan.db.active import active_store, catalog
from clusterplan.db.catalog import UnknownName
from clusterplan.db.offers import find_offers, offer_providers
from clusterplan.db.rows import ProviderRow
from clusterplan.tools.contract import Step, ToolError, q
from clusterplan.tools.pricing.costs import (
    COMMITTED_KINDS,
    break_even,
    egress_cost,
    egress_gb,
)
from clusterplan.tools.pricing.offers import (
    STALE_AFTER_DAYS,
    Offer,
    by_price,
    makes_cluster,
    offer_view,
    offer_warnings,
)

if TYPE_CHECKING:
    from clusterplan.tools.pricing.tool import PricingInput, PricingResult

RESERVED_KINDS = ("reserved_1m", "reserved_1y", "reserved_3y")


@dataclass
class Ask:
    """The input with its names resolved to catalog ids and its date fixed."""

    gpu: str | None
    provider: str | None
    as_of: dt.date


def resolve(inp: PricingInput, as_of: dt.date) -> Ask:
    """Catalog ids for the GPU and provider asked for, or a one-line error with the nearest."""
    gpu = None
    if inp.gpu:
        try:
            gpu = catalog().gpus.find(inp.gpu).id
        except UnknownName as exc:
            raise ToolError(f"gpu: {exc}") from None
    return Ask(gpu=gpu, provider=_provider(inp.provider, "provider"), as_of=as_of)


def _provider(name: str | None, field: str, with_egress: bool = False) -> str | None:
    """A provider id from the catalog, or a name that only imported offers use."""
    if not name:
        return None
    table = catalog().providers
    try:
        return table.find(name).id
    except UnknownName as exc:
        known = [] if with_egress else offer_providers(active_store())
        if name in known:
            return name
        names = list(dict.fromkeys(table.ids() + known))
        nearest = difflib.get_close_matches(name, names, n=3, cutoff=0.4)
        raise ToolError(f"{field}: unknown provider {name!r}; nearest: "
                        f"{', '.join(nearest or exc.nearest)}") from None


CITED_OFFERS = 20


def gather_offers(inp: PricingInput, ask: Ask, result: PricingResult) -> None:
    """The matching offers, sorted, with their warnings and the lookup as a step."""
    kinds = () if inp.kind == "any" else (inp.kind,)
    found = find_offers(active_store(), ask.gpu, ask.provider, kinds)
    # an offer verified after as_of was not known on that date (and would have a negative age)
    rows = [r for r in found if r.verified_on <= ask.as_of]
    if len(rows) < len(found):
        result.warnings.append(f"{len(found) - len(rows)} offer(s) verified after as_of "
                               f"{ask.as_of} are left out: they were not known on that date")
    offers = by_price([offer_view(r, ask.as_of) for r in rows])
    result.offers = offers
    inputs = {k: q(v) for k, v in (("gpu", ask.gpu), ("provider", ask.provider),
                                   ("kind", inp.kind), ("as_of", str(ask.as_of))) if v}
    result.steps.append(Step(label="offers on record", inputs=inputs,
                             formula="catalog offers, cheapest effective $/GPU-h first",
                             result=q(len(offers), "offers"),
                             # the notes of the offers an answer can show, not of every row:
                             # 100,000 imported rows would otherwise be 100,000 citations
                             notes=list(dict.fromkeys(o.source_note
                                                      for o in offers[:CITED_OFFERS]))))
    result.warnings.extend(offer_warnings(offers, ask.as_of))
    result.assumptions.append(f"an offer verified more than {STALE_AFTER_DAYS} days before "
                              "as_of is stale")
    if any(o.prices_disagree for o in offers):
        result.assumptions.append("an offer whose node price and per-GPU price disagree is "
                                  "priced at the dearer of the two")
    if not offers:
        what = " ".join(x for x in (ask.gpu, inp.kind if kinds else "") if x) or "GPU"
        result.warnings.append(f"no {what} offer on record"
                               + (f" from {ask.provider}" if ask.provider else ""))


def pick_cheapest(inp: PricingInput, ask: Ask, result: PricingResult) -> None:
    """The cheapest available offer for the GPUs asked; announced ones only as a last resort."""
    if ask.gpu is None or not result.offers:
        return
    pool = [o for o in result.offers if o.status == "available"]
    if not pool:
        pool = result.offers
        result.warnings.append("only announced offers match: the cheapest shown cannot be "
                               "rented yet")
    if inp.gpus is not None:
        pool = _clusters(pool, inp.gpus, ask.gpu, result)
    if inp.gpus is not None:  # whole nodes: a small instance may beat a cheaper-per-GPU big one
        # sorted is stable: equal bills keep the pool's order (no pool.index: that was n^2)
        pool = sorted(pool, key=lambda o: _billed_hourly(o, inp.gpus or 1))
    cheapest = pool[0]
    result.cheapest = cheapest
    result.steps.append(_price_step(cheapest))
    if cheapest.kind == "spot":
        result.warnings.append(f"the cheapest offer, {cheapest.label()}, is spot capacity, "
                               "which the provider can take back at short notice")


def _clusters(pool: list[Offer], gpus: int, gpu: str, result: PricingResult) -> list[Offer]:
    """The offers that can host `gpus` as one cluster when they span several full nodes; all
    of them, with a warning, if none can (the price is then a lower bound). Up to one full
    node, separate instances are priced as they are (they may serve separate replicas)."""
    full_node = catalog().gpus.rows[gpu].gpus_per_node
    if gpus <= full_node:
        return pool
    hosts = [o for o in pool if makes_cluster(o, gpus, full_node)]
    if not hosts:
        result.warnings.append(f"no offer sells {gpus} GPUs as one cluster (whole {full_node}-GPU "
                               "nodes): the cheapest shown rents separate instances")
        return pool
    if len(hosts) < len(pool):
        result.assumptions.append(
            f"{gpus} GPUs priced as one cluster: only offers of whole {full_node}-GPU nodes "
            "(or one node that holds them all) count as the cheapest; single-GPU and part-node "
            "instances are listed but do not make a cluster")
    return hosts


def _billed_hourly(offer: Offer, gpus: int) -> float:
    nodes = -(-gpus // offer.gpus_per_node)
    return offer.effective_usd_per_gpu_hour * nodes * offer.gpus_per_node


def _price_step(offer: Offer) -> Step:
    n = offer.gpus_per_node
    inputs: dict[str, Any] = {"usd_per_gpu_hour": q(offer.usd_per_gpu_hour, "USD/GPU-h"),
                              "usd_per_node_hour": q(offer.usd_per_node_hour, "USD/node-h"),
                              "gpus_per_node": q(n, "GPU")}
    formula = ("the dearer of $/GPU-h and $/node-h / GPUs per node (they disagree)"
               if offer.prices_disagree else "$/node-h / GPUs per node = $/GPU-h")
    return Step(label=f"cheapest offer: {offer.label()}, verified {offer.verified_on}",
                formula=formula, inputs=inputs,
                result=q(offer.effective_usd_per_gpu_hour, "USD/GPU-h"),
                notes=[offer.source_note])


def add_break_even(inp: PricingInput, ask: Ask, result: PricingResult) -> None:
    """Break-even from the discount given, else from a reserved row against on-demand."""
    if inp.reserved_discount is not None:
        result.break_even_utilization, step = break_even(
            inp.reserved_discount, "reserved_discount given in the input", [])
        result.steps.append(step)
        return
    if ask.gpu is None:
        return
    found = _reserved_discount(ask)
    if found is None:
        result.assumptions.append(
            f"no reserved price on record for {ask.gpu} and no reserved_discount given: at the "
            "20-40% discounts of note pricing-models, reserving pays above 60-80% utilisation")
        return
    discount, reserved, on_demand = found
    why = (f"{reserved.label()} ${reserved.effective_usd_per_gpu_hour:g}/GPU-h vs "
           f"{on_demand.label()} ${on_demand.effective_usd_per_gpu_hour:g}/GPU-h")
    result.break_even_utilization, step = break_even(
        discount, why, [reserved.source_note, on_demand.source_note])
    result.steps.append(step)


def _reserved_discount(ask: Ask) -> tuple[float, Offer, Offer] | None:
    rows = find_offers(active_store(), ask.gpu, ask.provider, (*RESERVED_KINDS, "on_demand"))
    offers = by_price([offer_view(r, ask.as_of) for r in rows
                       if r.status == "available" and r.verified_on <= ask.as_of])
    best = None
    for reserved in (o for o in offers if o.kind in COMMITTED_KINDS):
        on_demand = next((o for o in offers if o.kind == "on_demand"
                          and o.provider == reserved.provider), None)
        if on_demand is None:
            continue
        discount = round(1 - reserved.effective_usd_per_gpu_hour
                         / on_demand.effective_usd_per_gpu_hour, 6)
        if 0 < discount < 1 and (best is None or discount > best[0]):
            best = (discount, reserved, on_demand)
    return best


def add_egress(inp: PricingInput, ask: Ask, result: PricingResult) -> None:
    """Egress cost at a flat rate given, or by the provider's free GB and tiers."""
    if inp.egress_tb is None and inp.egress_tib is None:
        return
    gb, step = egress_gb(inp.egress_tb, inp.egress_tib)
    result.steps.append(step)
    if inp.egress_tb is not None:
        result.assumptions.append("TB is decimal: 1 TB = 1,000 GB = 1e12 bytes")
    provider = None if inp.egress_usd_per_gb is not None else _egress_provider(inp, ask, result)
    if provider is not None and provider.egress_tiers:
        result.assumptions.append(f"{provider.id} egress bands are read in decimal GB over the "
                                  "month's total egress")
    result.egress_gb = round(gb, 3)
    result.egress_usd, result.egress_tiers, step = egress_cost(gb, provider,
                                                               inp.egress_usd_per_gb)
    result.steps.append(step)


def _egress_provider(inp: PricingInput, ask: Ask, result: PricingResult) -> ProviderRow:
    table = catalog().providers
    name = _provider(inp.egress_provider, "egress_provider", with_egress=True) or ask.provider
    if name is None and result.cheapest is not None:
        name = result.cheapest.provider
    if name is None or name not in table.rows:
        raise ToolError("egress_provider: give egress_provider or egress_usd_per_gb; providers "
                        f"with egress prices on record: {', '.join(table.ids())}")
    if inp.egress_provider is None:
        result.assumptions.append(f"egress priced at {name}'s rates")
    return table.rows[name]
