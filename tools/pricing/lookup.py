"""Offer lookups done in SQL, so a store with 100,000 imported rows still answers at once.

Of all matching offers a price answer needs only: how many there are, the cheapest few in
`by_price` order, the first offer of each node size, status and kind (what the cheapest
whole-node pick and the planner choose from), the cheapest and dearest of each product
(the conflict check) and the rows that warn (stale, announced, prices disagreeing). SQLite
finds those few hundred rows through the `offers_lookup` index; only they become `Offer`s.

The effective price is the same IEEE arithmetic in SQL as in `offer_view`; every row whose
price could round to the same cent fraction is fetched and ordered in Python, so each answer
is the one the whole list gave.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from clusterplan.db.rows import OfferRow
from clusterplan.db.store import Store, effective_price_sql
from clusterplan.tools.pricing.offers import (
    _EPS,
    ROUNDING_USD,
    STALE_AFTER_DAYS,
    Offer,
    offer_view,
)

# Two prices that round to the same 6 decimals differ by under 1e-6; twice that is the
# margin within which rows are fetched and ordered in Python.
TIE_MARGIN = 2e-6
# A bucket: rows that agree on everything the conflict check and the cheapest pick group by.
BUCKET = ("provider", "gpu", "kind", "gpus_per_node", "status", "region", "product")


def effective(t: str = "") -> str:
    """SQL for `offer_view`'s effective $/GPU-hour before rounding: the dearer of the two."""
    return effective_price_sql(t)


def _per_gpu(t: str) -> str:
    return f"coalesce({t}usd_per_gpu_hour, {t}usd_per_node_hour / {t}gpus_per_node)"


def _per_node_over_n(t: str) -> str:
    return (f"(coalesce({t}usd_per_node_hour, {_per_gpu(t)} * {t}gpus_per_node) "
            f"/ {t}gpus_per_node)")


def _warns(t: str) -> str:
    """SQL true for a row that warns: stale (first parameter: the last fresh date),
    announced, or node and GPU prices disagreeing beyond rounding."""
    both = f"{t}usd_per_gpu_hour is not null and {t}usd_per_node_hour is not null"
    return (f"({t}verified_on < ? or {t}status = 'announced' or case when {both} then "
            f"abs({_per_node_over_n(t)} - {_per_gpu(t)}) > {ROUNDING_USD + _EPS!r} "
            "else 0 end)")


@dataclass(frozen=True)
class OfferFilter:
    """Which offers: every condition given must hold (all are bound parameters)."""

    gpu: str | None = None
    provider: str | None = None
    kinds: tuple[str, ...] = ()
    until: dt.date | None = None  # verified on or before
    available_only: bool = False

    def where(self, t: str = "") -> tuple[str, list[Any]]:
        clauses, params = ["1"], []
        for column, value in (("gpu", self.gpu), ("provider", self.provider)):
            if value is not None:
                clauses.append(f"{t}{column} = ?")
                params.append(value)
        if self.kinds:
            clauses.append(f"{t}kind in ({', '.join('?' * len(self.kinds))})")
            params.extend(self.kinds)
        if self.until is not None:
            clauses.append(f"{t}verified_on <= ?")
            params.append(self.until.isoformat())
        if self.available_only:
            clauses.append(f"{t}status = 'available'")
        return " and ".join(clauses), params


@dataclass
class Found:
    """The offers a price answer reads, each list in `by_price` order."""

    total: int = 0
    listed: list[Offer] = field(default_factory=list)  # the cheapest, and each kind's first
    firsts: list[Offer] = field(default_factory=list)  # the first offer of every bucket
    spans: list[Offer] = field(default_factory=list)  # the cheapest and dearest of every bucket
    warned: list[Offer] = field(default_factory=list)  # stale, announced or disagreeing rows
    per_product: dict[tuple[str, str, str, int], int] = field(default_factory=dict)
    # rows by (provider, kind, node size, status): what a pick among offers filters by
    groups: dict[tuple[str, str, int, str], int] = field(default_factory=dict)


def find(store: Store, which: OfferFilter, as_of: dt.date, limit: int | None) -> Found:
    """The offers matching `which`, seen on `as_of`; `limit` cheapest listed (None: all)."""
    where, params = which.where()
    last_fresh = (as_of - dt.timedelta(days=STALE_AFTER_DAYS)).isoformat()
    buckets = store.conn.execute(
        f"select {', '.join(BUCKET)}, count(*), sum({_warns('')}) from offers where {where} "
        "group by gpu, provider, kind, gpus_per_node, status, region, product",
        [last_fresh, *params]).fetchall()
    found = Found(total=sum(b[7] for b in buckets))
    for b in buckets:
        key = (b[0], b[1], b[2], b[3])
        found.per_product[key] = found.per_product.get(key, 0) + b[7]
        group = (b[0], b[2], b[3], b[4])
        found.groups[group] = found.groups.get(group, 0) + b[7]
    lows, highs = _bucket_ends(store, which, [b[:7] for b in buckets], as_of)
    found.firsts = _offers(lows)
    found.spans = _offers(_in_order(lows + highs))
    warned = [list(b[:7]) for b in buckets if b[8]]
    if warned:  # only the buckets that hold such rows are read, through the index
        found.warned = _offers(_in_order(
            _view(r, as_of) for r in _rows_in(store, which, warned, _warns("o."), [last_fresh])))
    found.listed = _offers(_listed(store, which, as_of, limit, found.total, lows))
    return found


def _bucket_ends(store: Store, which: OfferFilter, buckets: list[tuple[Any, ...]],
                 as_of: dt.date) -> tuple[list[_Seen], list[_Seen]]:
    """The first row of every bucket, and its first row at the bucket's dearest price."""
    if not buckets:
        return [], []
    where, params = which.where("o.")
    inner_where, inner_params = which.where("i.")
    picks = ", ".join(f"json_extract(value, '$[{i}]') as {c}" for i, c in enumerate(BUCKET))
    joined = " and ".join(f"o.{c} = b.{c}" for c in BUCKET)
    inner = " and ".join(f"i.{c} = b.{c}" for c in BUCKET) + f" and {inner_where}"
    price, inner_price = effective("o."), effective("i.")
    # the cheapest and dearest price of each bucket by index seeks, then the rows near them
    ends = (f"with b as materialized (select {picks} from json_each(?)), "
            f"s as materialized (select b.*, (select min({inner_price}) from offers i "
            f"where {inner}) as lo, (select max({inner_price}) from offers i where {inner}) "
            "as hi from b) ")
    near = (f"select o.id from s as b cross join offers o on {joined} where {where} and "
            f"{price} {{}} ")
    ids = store.conn.execute(
        ends + near.format(f"<= b.lo + {TIE_MARGIN!r}") + " union " +
        near.format(f">= b.hi - {TIE_MARGIN!r}"),
        [json.dumps(buckets), *inner_params, *inner_params, *params, *params]).fetchall()
    rows = store.rows("select * from offers where id in (select value from json_each(?))",
                      [json.dumps([i for (i,) in ids])])
    grouped: dict[tuple[Any, ...], list[_Seen]] = {}
    for seen in _in_order(_view(r, as_of) for r in rows):
        grouped.setdefault(tuple(getattr(seen.offer, c) for c in BUCKET), []).append(seen)
    lows = [group[0] for group in grouped.values()]
    highs = []
    for group in grouped.values():
        top = max(s.offer.effective_usd_per_gpu_hour for s in group)
        highs.append(next(s for s in group if s.offer.effective_usd_per_gpu_hour == top))
    return _in_order(lows), _in_order(highs)


def _rows_in(store: Store, which: OfferFilter, buckets: list[list[Any]], condition: str,
             params: list[Any]) -> list[dict[str, Any]]:
    """The rows of `buckets` matching `which` and `condition` (columns as `o.`)."""
    where, where_params = which.where("o.")
    picks = ", ".join(f"json_extract(value, '$[{i}]') as {c}" for i, c in enumerate(BUCKET))
    joined = " and ".join(f"o.{c} = b.{c}" for c in BUCKET)
    ids = store.conn.execute(
        f"with b as materialized (select {picks} from json_each(?)) select o.id from b "
        f"cross join offers o on {joined} where {where} and {condition}",
        [json.dumps(buckets), *where_params, *params]).fetchall()
    return store.rows("select * from offers where id in (select value from json_each(?))",
                      [json.dumps([i for (i,) in ids])])


def _listed(store: Store, which: OfferFilter, as_of: dt.date, limit: int | None, total: int,
            firsts: list[_Seen]) -> list[_Seen]:
    """The `limit` cheapest offers, with the first of each provider, kind, node size and
    status (so a pick filtered by any of them finds what the whole list held)."""
    where, params = which.where()
    sql = f"select * from offers where {where}"
    if limit == 0:
        sql += " and 0"
    elif limit is not None and total > limit:
        edge = store.conn.execute(
            f"select {effective()} as eff from offers where {where} order by eff "
            "limit 1 offset ?", [*params, max(limit - 1, 0)]).fetchone()
        sql += f" and {effective()} <= ?"
        params = [*params, edge[0] + TIE_MARGIN]
    cheapest = _in_order(_view(r, as_of) for r in store.rows(sql, params))
    if limit is not None:
        cheapest = cheapest[:limit]
    groups = {_group(s.offer) for s in cheapest}
    extra = []
    for seen in firsts:
        group = _group(seen.offer)
        if group not in groups:
            groups.add(group)
            extra.append(seen)
    return _in_order(cheapest + extra)


def _group(o: Offer) -> tuple[str, str, int, str]:
    return (o.provider, o.kind, o.gpus_per_node, o.status)


@dataclass(frozen=True)
class _Seen:
    """An offer and its row id (the last tie-break of the store's order)."""

    offer: Offer
    row_id: int

    def key(self) -> tuple[Any, ...]:
        o = self.offer
        return (o.effective_usd_per_gpu_hour, -o.verified_on.toordinal(), o.provider,
                o.gpus_per_node, o.gpu, o.kind, self.row_id)


def _view(record: dict[str, Any], as_of: dt.date) -> _Seen:
    fields = OfferRow.model_fields
    row = OfferRow.model_validate({k: v for k, v in record.items() if k in fields})
    return _Seen(offer_view(row, as_of), record["id"])


def _in_order(seen: Any) -> list[_Seen]:
    """`by_price` order, ties in the order the store lists rows (provider, GPU, kind, node
    size, newest first, then row id), as the whole list was sorted."""
    unique = {s.row_id: s for s in seen}
    return sorted(unique.values(), key=_Seen.key)


def _offers(seen: list[_Seen]) -> list[Offer]:
    return [s.offer for s in seen]
