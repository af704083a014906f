"""Offers as the pricing tool shows them: both prices, age, staleness, and what looks wrong."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel

from clusterplan.db.rows import OfferRow
from clusterplan.figures import usd_rate

STALE_AFTER_DAYS = 90
# Per-GPU prices are quoted to the cent, so a node price may differ from per-GPU x GPUs by up
# to half a cent per GPU-hour through rounding alone; more than that is a real disagreement.
ROUNDING_USD = 0.005
_EPS = 1e-9


class Offer(BaseModel):
    """One dated price point, with both prices shown and the one the tool uses."""

    provider: str
    gpu: str
    kind: str
    usd_per_gpu_hour: float
    usd_per_node_hour: float
    gpus_per_node: int
    region: str
    verified_on: dt.date
    age_days: int
    stale: bool
    status: str
    source_note: str
    product: str = ""
    origin: str = "catalog"
    effective_usd_per_gpu_hour: float
    usd_per_node_hour_from_gpu_price: float | None = None
    prices_disagree: bool = False

    def label(self) -> str:
        extra = ", ".join(x for x in (self.product, self.region) if x)
        return f"{self.provider} {self.gpu} {self.kind}" + (f" ({extra})" if extra else "")


def offer_view(row: OfferRow, as_of: dt.date) -> Offer:
    """An offer row seen on `as_of`: missing price derived, disagreement and staleness marked."""
    n = row.gpus_per_node
    stated_gpu, stated_node = row.usd_per_gpu_hour, row.usd_per_node_hour
    per_gpu = stated_gpu if stated_gpu is not None else stated_node / n
    per_node = stated_node if stated_node is not None else per_gpu * n
    disagree = abs(per_node / n - per_gpu) > ROUNDING_USD + _EPS
    age = (as_of - row.verified_on).days
    return Offer(
        provider=row.provider, gpu=row.gpu, kind=row.kind, usd_per_gpu_hour=round(per_gpu, 6),
        usd_per_node_hour=round(per_node, 6), gpus_per_node=n, region=row.region,
        verified_on=row.verified_on, age_days=age, stale=age > STALE_AFTER_DAYS,
        status=row.status, source_note=row.source_note, product=row.product, origin=row.origin,
        # When the two figures disagree the row cannot say which is right: price the dearer.
        effective_usd_per_gpu_hour=round(max(per_gpu, per_node / n), 6),
        usd_per_node_hour_from_gpu_price=round(stated_gpu * n, 6) if stated_gpu else None,
        prices_disagree=disagree,
    )


def by_price(offers: list[Offer]) -> list[Offer]:
    """Cheapest effective $/GPU-hour first; among equal prices the newest reading first."""
    return sorted(offers, key=lambda o: (o.effective_usd_per_gpu_hour, -o.verified_on.toordinal(),
                                         o.provider, o.gpus_per_node))


def offer_warnings(offers: list[Offer], as_of: dt.date) -> list[str]:
    """Stale rows, announced rows, per-GPU vs per-node disagreements and conflicting rows."""
    return row_warnings(offers, as_of) + price_disagreements(offers)


def row_warnings(offers: list[Offer], as_of: dt.date) -> list[str]:
    """A warning for each stale and each announced row."""
    warnings = []
    for o in offers:
        if o.stale:
            warnings.append(f"{o.label()} at {usd_rate(o.effective_usd_per_gpu_hour)}/GPU-h was "
                            f"verified on {o.verified_on}, {o.age_days} days before {as_of} (over "
                            f"{STALE_AFTER_DAYS}): it may no longer be the price")
        if o.status == "announced":
            warnings.append(f"{o.label()} at {usd_rate(o.effective_usd_per_gpu_hour)}/GPU-h is "
                            "announced, not available yet; it is not taken as the cheapest while "
                            "an available offer exists")
    return warnings


def price_disagreements(offers: list[Offer], spans: list[Offer] | None = None,
                        per_product: dict[tuple[str, str, str, int], int] | None = None,
                        ) -> list[str]:
    """Rows whose node price is not per-GPU price x GPUs, and rows that contradict each other.
    `spans` (the cheapest and dearest rows of each product) and `per_product` (its row count)
    stand in for the whole list when `offers` holds only the rows that warn."""
    found = [
        f"{o.label()}: the node price ${o.usd_per_node_hour:g}/node-h is not "
        f"{o.gpus_per_node} x ${o.usd_per_gpu_hour:g}/GPU-h = "
        f"${o.usd_per_node_hour_from_gpu_price:g}/node-h; it is priced at the dearer "
        f"${o.effective_usd_per_gpu_hour:g}/GPU-h until one figure is confirmed "
        f"(note {o.source_note})"
        for o in offers if o.prices_disagree]
    return found + _conflicts(offers if spans is None else spans, per_product)


def _conflicts(offers: list[Offer],
               per_product: dict[tuple[str, str, str, int], int] | None = None) -> list[str]:
    """Rows for the same product whose prices differ beyond rounding: one warning a product,
    naming its widest disagreement. Rows are grouped by product key first, so the work grows
    with the number of rows, not with its square (100,000 imported rows are one pass)."""
    groups: dict[tuple[str, str, str, int], list[Offer]] = {}
    for o in offers:
        groups.setdefault((o.provider, o.gpu, o.kind, o.gpus_per_node), []).append(o)
    found = []
    for rows in groups.values():
        if len(rows) < 2:
            continue
        pair = _widest_pair(rows)
        if pair is None:
            continue
        a, b = pair
        key = (a.provider, a.gpu, a.kind, a.gpus_per_node)
        others = (per_product[key] if per_product else len(rows)) - 2
        found.append(
            f"conflicting prices for {a.provider} {a.gpu} {a.kind} ({a.gpus_per_node} GPUs "
            f"a node): ${a.effective_usd_per_gpu_hour:g}/GPU-h (verified {a.verified_on}, "
            f"note {a.source_note}) vs ${b.effective_usd_per_gpu_hour:g}/GPU-h (verified "
            f"{b.verified_on}, note {b.source_note})"
            + (f"; {others} more row(s) for it" if others else ""))
    return found


_Span = tuple[Offer, Offer]  # the cheapest and the dearest row of a set


def _widen(span: _Span | None, other: _Span | None) -> _Span | None:
    if span is None or other is None:
        return span or other
    low = min(span[0], other[0], key=_price)
    high = max(span[1], other[1], key=_price)
    return low, high


def _add(spans: dict[Any, _Span], key: Any, o: Offer) -> None:
    low, high = spans.get(key, (o, o))
    spans[key] = (min(low, o, key=_price), max(high, o, key=_price))


def _price(o: Offer) -> float:
    return o.effective_usd_per_gpu_hour


def _widest_pair(rows: list[Offer]) -> tuple[Offer, Offer] | None:
    """The cheapest and dearest rows of one product key that may be the same product (region
    and product agree or one is unstated), when they differ beyond rounding."""
    buckets: dict[tuple[str, str], _Span] = {}
    by_region: dict[str, _Span] = {}
    by_product: dict[str, _Span] = {}
    every: _Span | None = None
    for o in rows:
        _add(buckets, (o.region, o.product), o)
        _add(by_region, o.region, o)
        _add(by_product, o.product, o)
        every = _widen(every, (o, o))
    best: tuple[float, Offer, Offer] | None = None
    for (region, product), own in buckets.items():
        if region and product:
            near: _Span | None = None
            for key in ((region, product), (region, ""), ("", product), ("", "")):
                near = _widen(near, buckets.get(key))
        elif product:  # any region
            near = _widen(by_product.get(product), by_product.get(""))
        elif region:  # any product
            near = _widen(by_region.get(region), by_region.get(""))
        else:
            near = every
        assert near is not None
        for low, high in ((own[0], near[1]), (near[0], own[1])):
            gap = _price(high) - _price(low)
            if gap > ROUNDING_USD + _EPS and (best is None or gap > best[0]):
                best = (gap, low, high)
    return None if best is None else (best[1], best[2])
