"""The parts of a pricing answer that read the store: offers, cheapest, break-even, egress."""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clusterplan.db.active import active_store, catalog
from clusterplan.db.catalog import UnknownName
from clusterplan.db.offers import offer_providers
from clusterplan.db.rows import ProviderRow
from clusterplan.tools.contract import Step, ToolError, q
from clusterplan.tools.pricing.costs import (
    COMMITTED_KINDS,
    break_even,
    egress_cost,
    egress_gb,
)
from clusterplan.tools.pricing.fabrics import fabric_providers, hosts_as_one_cluster
from clusterplan.tools.pricing.lookup import Found, OfferFilter, find
from clusterplan.tools.pricing.offers import (
    STALE_AFTER_DAYS,
    Offer,
    price_disagreements,
    row_warnings,
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
    every_kind: Found | None = None  # the offers of every kind, once looked up
    found: Found | None = None  # the offers listed in the result, with every row's count


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
# Offers listed in a result: a store may hold 100,000 imported rows. The cheapest of each provider,
# kind, node size and status are listed besides, so a pick among them is the whole list's pick.
LISTED_OFFERS = 100


def gather_offers(inp: PricingInput, ask: Ask, result: PricingResult) -> None:
    """The matching offers, sorted, with their warnings and the lookup as a step."""
    kinds = () if inp.kind == "any" else (inp.kind,)
    # an offer verified after as_of was not known on that date (and would have a negative age)
    which = OfferFilter(gpu=ask.gpu, provider=ask.provider, kinds=kinds, until=ask.as_of)
    found = find(active_store(), which, ask.as_of, LISTED_OFFERS)
    ask.found = found
    if not kinds:
        ask.every_kind = found
    later = _count(OfferFilter(gpu=ask.gpu, provider=ask.provider, kinds=kinds)) - found.total
    if later:
        result.warnings.append(f"{later} offer(s) verified after as_of "
                               f"{ask.as_of} are left out: they were not known on that date")
    offers = found.listed
    result.offers = offers
    result.offers_not_listed = found.total - len(offers)
    if result.offers_not_listed:
        result.assumptions.append(
            f"{len(offers)} of {found.total} offers are listed: the cheapest "
            f"{LISTED_OFFERS} and the cheapest of each provider, kind, node size and status")
    inputs = {k: q(v) for k, v in (("gpu", ask.gpu), ("provider", ask.provider),
                                   ("kind", inp.kind), ("as_of", str(ask.as_of))) if v}
    result.steps.append(Step(label="offers on record", inputs=inputs,
                             formula="catalog offers, cheapest effective $/GPU-h first",
                             result=q(found.total, "offers"),
                             # the notes of the offers an answer can show, not of every row:
                             # 100,000 imported rows would otherwise be 100,000 citations
                             notes=list(dict.fromkeys(o.source_note
                                                      for o in offers[:CITED_OFFERS]))))
    result.warnings.extend(row_warnings(found.warned, ask.as_of))
    result.warnings.extend(price_disagreements(found.warned, found.spans, found.per_product))
    result.assumptions.append(f"an offer verified more than {STALE_AFTER_DAYS} days before "
                              "as_of is stale")
    if any(o.prices_disagree for o in found.warned):
        result.assumptions.append("an offer whose node price and per-GPU price disagree is "
                                  "priced at the dearer of the two")
    if not found.total:
        what = " ".join(x for x in (ask.gpu, inp.kind if kinds else "") if x) or "GPU"
        result.warnings.append(f"no {what} offer on record"
                               + (f" from {ask.provider}" if ask.provider else ""))


def pick_cheapest(inp: PricingInput, ask: Ask, result: PricingResult) -> None:
    """The cheapest available offer for the GPUs asked; announced ones only as a last resort."""
    if ask.gpu is None or not result.offers:
        return
    pool = [o for o in result.offers if o.status == "available"]
    if inp.kind == "any" and any(o.kind not in COMMITTED_KINDS for o in pool):
        # a commitment bills its whole term whatever the hours used, so an hourly price
        # question takes it only when asked for by kind
        if any(o.kind in COMMITTED_KINDS for o in pool):
            result.assumptions.append("committed prices (reserved, capacity blocks) are listed "
                                      "but not taken as the cheapest unless `kind` names one: "
                                      "they bill a whole term")
        pool = [o for o in pool if o.kind not in COMMITTED_KINDS]
    if not pool:
        pool = result.offers
        result.warnings.append("only announced offers match: the cheapest shown cannot be "
                               "rented yet")
    if inp.gpus is not None:
        pool = _clusters(pool, inp.gpus, ask, result)
    if inp.gpus is not None:  # whole nodes: a small instance may beat a cheaper-per-GPU big one
        # sorted is stable: equal bills keep the pool's order (no pool.index: that was n^2)
        pool = sorted(pool, key=lambda o: _billed_hourly(o, inp.gpus or 1))
    cheapest = pool[0]
    result.cheapest = cheapest
    result.steps.append(_price_step(cheapest))
    if cheapest.kind == "spot":
        result.warnings.append(f"the cheapest offer, {cheapest.label()}, is spot capacity, "
                               "which the provider can take back at short notice")


def _clusters(pool: list[Offer], gpus: int, ask: Ask, result: PricingResult) -> list[Offer]:
    """The offers that can host `gpus` as one cluster when they span several full nodes; all
    of them, with a warning, if none can (the price is then a lower bound). Up to one full
    node, separate instances are priced as they are (they may serve separate replicas)."""
    assert ask.gpu is not None
    full_node = catalog().gpus.rows[ask.gpu].gpus_per_node
    if gpus <= full_node:
        return pool
    hosts = [o for o in pool if hosts_as_one_cluster(o, gpus)]
    if not hosts:
        result.warnings.append(f"no offer sells {gpus} GPUs as one cluster (multi-GPU nodes "
                               "joined by a fabric): the cheapest shown rents separate instances")
        return pool
    if len(hosts) < len(pool):
        result.assumptions.append(
            f"{gpus} GPUs priced as one cluster: only multi-GPU nodes from providers whose "
            "inter-node fabric a note states (plan-cluster-fabrics) count as the cheapest; "
            "single-GPU pods and instances without a fabric are listed but do not make a "
            "cluster")
        result.steps.append(Step(
            label="offers that make one cluster", formula="multi-GPU nodes of a provider with "
            "an inter-node fabric", inputs={"GPUs": q(gpus, "GPU")},
            result=q(_rows_like(hosts, ask), "offers"),
            notes=["plan-cluster-fabrics#single-gpu-pods",
                                                  *sorted(set(fabric_providers().values()))]))
    return hosts


def _rows_like(offers: list[Offer], ask: Ask) -> int:
    """How many rows on record share a provider, kind, node size and status with one of
    `offers`: the listed offers hold one of each such group, the store may hold thousands."""
    if ask.found is None:
        return len(offers)
    groups = {(o.provider, o.kind, o.gpus_per_node, o.status) for o in offers}
    return sum(n for group, n in ask.found.groups.items() if group in groups)


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
    # The cheapest row of each provider and kind: a provider's best discount is its
    # cheapest reserved row against its cheapest on-demand row, whatever else it lists.
    kinds = (*RESERVED_KINDS, "on_demand")
    if ask.every_kind is not None:
        offers = [o for o in ask.every_kind.firsts
                  if o.kind in kinds and o.status == "available"]
    else:
        which = OfferFilter(gpu=ask.gpu, provider=ask.provider, kinds=kinds, until=ask.as_of,
                            available_only=True)
        offers = find(active_store(), which, ask.as_of, 0).firsts
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


def _count(which: OfferFilter) -> int:
    where, params = which.where()
    return active_store().conn.execute(f"select count(*) from offers where {where}",
                                       params).fetchone()[0]


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
