"""Price lookups done in SQL (issue 23) give the answers the whole list gave: the reference
here reads every row, sorts them with `by_price` and warns with `offer_warnings`, as the
tool did before; the lookup must agree on the count, the cheapest rows in order, every
warning word for word, the cheapest whole-node pick and the reserved discount."""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplan.db.offers import find_offers, forget_offers
from clusterplan.db.store import Store
from clusterplan.tools.pricing.lookup import OfferFilter, find
from clusterplan.tools.pricing.offers import (
    by_price,
    offer_view,
    offer_warnings,
    price_disagreements,
    row_warnings,
)
from tests.conftest import run_cli

AS_OF = dt.date(2026, 12, 1)
# Prices a cent fraction apart, node prices that do and do not match 8 x the GPU price, dates
# either side of the 90-day staleness line and after as_of: the ties and warnings that matter.
ROWS = st.fixed_dictionaries({
    "provider": st.sampled_from(["acme", "zed"]),
    "gpu": st.just("h100-sxm"),
    "gpus_per_node": st.sampled_from([1, 8]),
    "kind": st.sampled_from(["on_demand", "spot", "reserved_1y"]),
    "usd_per_gpu_hour": st.sampled_from([None, 1.0, 1.004, 1.01, 2.0]),
    "usd_per_node_hour": st.sampled_from([None, 8.0, 8.04, 16.0]),
    "region": st.sampled_from(["", "eu"]),
    "product": st.sampled_from(["", "p"]),
    "verified_on": st.sampled_from(["2026-01-02", "2026-09-01", "2026-11-30", "2026-12-02"]),
    "status": st.sampled_from(["available", "announced"]),
}).filter(lambda r: r["usd_per_gpu_hour"] or r["usd_per_node_hour"])


def _store(rows: list[dict]) -> Store:
    store = Store.memory()
    store.db["offers"].insert_all(
        [{**r, "origin": "user", "source_note": f"n{i}"} for i, r in enumerate(rows)])
    forget_offers(store)
    return store


def _whole_list(store: Store, which: OfferFilter) -> list:
    rows = [r for r in find_offers(store, which.gpu, which.provider, which.kinds)
            if which.until is None or r.verified_on <= which.until]
    rows = [r for r in rows if not which.available_only or r.status == "available"]
    return by_price([offer_view(r, AS_OF) for r in rows])


def _best_discount(offers: list):
    """The pricing tool's reserved-discount search, as it ran over the whole list."""
    best = None
    for reserved in (o for o in offers if o.kind == "reserved_1y" and o.status == "available"):
        on_demand = next((o for o in offers if o.kind == "on_demand" and o.status == "available"
                          and o.provider == reserved.provider), None)
        if on_demand is None:
            continue
        discount = round(1 - reserved.effective_usd_per_gpu_hour
                         / on_demand.effective_usd_per_gpu_hour, 6)
        if 0 < discount < 1 and (best is None or discount > best[0]):
            best = (discount, reserved, on_demand)
    return best


def _pick(offers: list, gpus: int):
    pool = [o for o in offers if o.status == "available"] or offers
    return min(pool, key=lambda o: -(-gpus // o.gpus_per_node) * o.gpus_per_node
               * o.effective_usd_per_gpu_hour, default=None)


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(ROWS, max_size=40), limit=st.sampled_from([1, 3, 100]),
       kinds=st.sampled_from([(), ("on_demand",)]), provider=st.sampled_from([None, "zed"]))
def test_the_lookup_agrees_with_the_whole_list(rows, limit, kinds, provider):
    store = _store(rows)
    which = OfferFilter(gpu="h100-sxm", provider=provider, kinds=kinds, until=AS_OF)
    every = _whole_list(store, which)
    found = find(store, which, AS_OF, limit)
    assert found.total == len(every)
    assert found.listed[:limit] == every[:limit]
    assert (row_warnings(found.warned, AS_OF)
            + price_disagreements(found.warned, found.spans, found.per_product)
            == offer_warnings(every, AS_OF))
    if not kinds:  # the break-even search reads each bucket's first row only
        assert _best_discount(found.firsts) == _best_discount(every)
    for gpus in (1, 3, 8, 16):
        assert _pick(found.listed, gpus) == _pick(every, gpus)
        for node in (1, 8):  # the first available offer of a node size, as a question asks
            assert next((o for o in found.listed if o.gpus_per_node == node
                         and o.status == "available"), None) == \
                next((o for o in every if o.gpus_per_node == node
                      and o.status == "available"), None)
            for host in ("acme", "zed"):  # and of a provider (one with a cluster fabric)
                assert _pick([o for o in found.listed if o.provider == host
                              and o.kind != "reserved_1y"], gpus) == \
                    _pick([o for o in every if o.provider == host
                           and o.kind != "reserved_1y"], gpus)
    groups = {}
    for o in every:
        key = (o.provider, o.kind, o.gpus_per_node, o.status)
        groups[key] = groups.get(key, 0) + 1
    assert found.groups == groups


def test_a_long_list_is_cut_with_a_count_of_the_rest(tmp_path):
    db = str(tmp_path / "store.db")
    csv = tmp_path / "offers.csv"
    lines = ["provider,gpu,gpus_per_node,kind,usd_per_gpu_hour,verified_on,source_note"]
    lines += [f"bulk,h100,8,on_demand,{1 + i / 100:.2f},2026-11-30,n{i}" for i in range(150)]
    csv.write_text("\n".join(lines) + "\n")
    assert run_cli("--db", db, "prices", "import", str(csv)).exit_code == 0
    listed = run_cli("--db", db, "prices", "list", "--provider", "bulk", "--limit", "10")
    lines = listed.output.splitlines()
    assert lines[1].split()[3] == "1.000" and lines[10].split()[3] == "1.090"
    assert lines[11] == "140 more offer(s) not listed; --limit 0 lists all 150"
    every = run_cli("--db", db, "prices", "list", "--provider", "bulk", "--limit", "0")
    assert sum(line.startswith("bulk ") for line in every.output.splitlines()) == 150
    assert "more offer(s) not listed" not in every.output
