"""Price questions: what GPUs cost an hour and a month, the cheapest offer, break-even, egress."""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, pct, table, usd
from clusterplan.assistant.routing.dispatch import Calls, Reply, slot
from clusterplan.tools.citing import note_ref
from clusterplan.tools.units import convert, parse

# The note's range of reserved discounts, used when no reserved price is on record.
DISCOUNT_RANGE = (0.2, 0.4)
DISCOUNT_NOTE = "pricing-models#reserved-discount"
MAX_OFFERS = 8


def pricing(intent: Intent, calls: Calls) -> Reply:
    if slot(intent, "egress"):
        return egress(intent, calls)
    if slot(intent, "break_even"):
        return break_even(intent, calls)
    return offers(intent, calls)


def price_payload(intent: Intent) -> dict[str, Any]:
    kind = slot(intent, "kind", "any")
    payload: dict[str, Any] = {"gpu": slot(intent, "gpu"), "gpus": slot(intent, "gpus"),
                               "kind": kind, "utilization": slot(intent, "utilization"),
                               "provider": slot(intent, "provider")}
    if slot(intent, "hours"):
        payload["hours"] = slot(intent, "hours")
    return payload


def offers(intent: Intent, calls: Calls) -> Reply:
    """The cheapest offer for the GPUs asked, with its hourly and monthly cost."""
    payload = price_payload(intent)
    result = calls.run("pricing", payload, "offers for the GPUs asked, cheapest first")
    node = slot(intent, "gpus_per_node") if "gpus_per_node" in intent.slots else None
    cheapest = result.get("cheapest")
    if node and cheapest and cheapest["gpus_per_node"] != node:
        whole = [o for o in result["offers"] if o["gpus_per_node"] == node
                 and o["status"] == "available"]
        if whole:
            again = payload | {"provider": whole[0]["provider"]}
            result = calls.run("pricing", again, f"the cheapest offer of whole {node}-GPU nodes")
            cheapest = result.get("cheapest")
    if not cheapest:
        return Reply(headline=f"No offer for {slot(intent, 'gpu')} is on record"
                     + (f" as {payload['kind']}" if payload["kind"] != "any" else "") + ".")
    gpus = result["billed_gpus"]
    lead = (f"The cheapest {cheapest['kind'].replace('_', '-')} offer for {gpus}× "
            f"{cheapest['gpu']} is {cheapest['provider']} at "
            f"**{usd(cheapest['effective_usd_per_gpu_hour'])} per GPU-hour** "
            f"({usd(result['hourly_usd'])} an hour): **{usd(result['monthly_usd'])} a month** "
            f"at {result['hours_per_month']} hours"
            + (f" and {pct(slot(intent, 'utilization'))} utilisation"
               if slot(intent, "utilization") else "") + ".")
    if result.get("total_usd") and slot(intent, "hours"):
        lead += f" For {num(result['period_hours'])} hours: {usd(result['total_usd'])}."
    return Reply(headline=lead, tables=[offers_table(result["offers"])])


def offers_table(rows: list[dict[str, Any]]) -> str:
    return table(["provider", "GPU", "kind", "$/GPU-h", "$/node-h", "GPUs/node", "verified",
                  "status"],
                 [[o["provider"], o["gpu"], o["kind"], o["effective_usd_per_gpu_hour"],
                   o["usd_per_node_hour"], o["gpus_per_node"], o["verified_on"],
                   o["status"] + (" (stale)" if o["stale"] else "")]
                  for o in rows[:MAX_OFFERS]])


def break_even(intent: Intent, calls: Calls) -> Reply:
    """Utilisation above which reserved beats on-demand: from prices on record, else the range."""
    gpu = slot(intent, "gpu")
    if gpu:
        result = calls.run("pricing", {"gpu": gpu, "provider": slot(intent, "provider")},
                           "reserved and on-demand prices on record")
        found = result.get("break_even_utilization")
        if found:
            lead = (f"Reserved {gpu} capacity beats on-demand above **"
                    f"{pct(found['utilization'])} utilisation** (a "
                    f"{pct(found['discount'])} discount: {found['discount_from']}).")
            return Reply(headline=lead)
    low, high = (calls.run("pricing", {"reserved_discount": d},
                           f"break-even at a {pct(d)} reserved discount")
                 ["break_even_utilization"] for d in DISCOUNT_RANGE)
    lead = (f"Reserving pays when the GPUs are busy more than 1 − discount of the time: at the "
            f"usual {pct(DISCOUNT_RANGE[0])}–{pct(DISCOUNT_RANGE[1])} reserved "
            f"discounts, above **{pct(high['utilization'])}–{pct(low['utilization'])} "
            f"utilisation**"
            + (f" (no reserved {gpu} price is on record)" if gpu else "") + ".")
    rows = [[pct(r["discount"]), pct(r["utilization"])] for r in (low, high)]
    return Reply(headline=lead, tables=[table(["reserved discount", "break-even utilisation"],
                                              rows)], citations=[note_ref(DISCOUNT_NOTE)])


def egress(intent: Intent, calls: Calls) -> Reply:
    """The bill for data leaving a provider, band by band."""

    size = slot(intent, "size")
    quantity = parse(size, "B")
    tb = convert(quantity.magnitude, str(quantity.units), "TB")
    result = calls.run("pricing", {"egress_tb": tb, "egress_provider": slot(intent, "provider")},
                       "egress bill by the provider's bands")
    lead = (f"Sending {size} out of {slot(intent, 'provider')} costs about "
            f"**{usd(result['egress_usd'])}** ({num(result['egress_gb'])} GB at the provider's "
            f"published rates).")
    bands = [[b.get("from_gb"), b.get("to_gb") if b.get("to_gb") is not None else "and above",
              b.get("gb"), b.get("usd_per_gb"), b.get("usd")]
             for b in result.get("egress_tiers", [])]
    tables = [table(["from GB", "to GB", "GB in band", "$/GB", "$"], bands)] if bands else []
    return Reply(headline=lead, tables=tables)
