"""Price questions: what GPUs cost an hour and a month, the cheapest offer, break-even, egress."""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, pct, table, usd, usd_rate
from clusterplan.assistant.parsing.jobs import gpu_name
from clusterplan.assistant.routing.cluster import training
from clusterplan.assistant.routing.dispatch import Calls, Reply, slot
from clusterplan.assistant.routing.layout_rule import has_model
from clusterplan.figures import days
from clusterplan.tools.citing import note_ref
from clusterplan.tools.units import convert, parse

# The note's range of reserved discounts, used when no reserved price is on record.
DISCOUNT_RANGE = (0.2, 0.4)
DISCOUNT_NOTE = "pricing-models#reserved-discount"
SPOT_NOTE = "pricing-models#spot-reclaimed"
MAX_OFFERS = 8


def pricing(intent: Intent, calls: Calls) -> Reply:
    if slot(intent, "egress"):
        return egress(intent, calls)
    if slot(intent, "commitments") and slot(intent, "gpu") and slot(intent, "hours"):
        return commitments(intent, calls)
    if slot(intent, "break_even"):
        return break_even(intent, calls)
    if _a_run(intent):  # "how much would that cost?" after a training time: the run's cost
        return training(intent, calls)
    return offers(intent, calls)


def _a_run(intent: Intent) -> bool:
    """A training run is on the table (a model and a token budget, carried or said) and no
    rental period was asked ("per month?" asks the cluster's rent): its cost is the run's
    GPU-hours, not a month of the cluster."""
    return (has_model(intent) and bool(intent.slots.keys() & {"tokens", "samples"})
            and not slot(intent, "hours") and not intent.slots.get("period")
            and slot(intent, "workload") not in (None, "inference"))


def commitments(intent: Intent, calls: Calls) -> Reply:
    """On-demand against the cheapest committed price on record for the cluster and period."""
    payload = {"gpu": slot(intent, "gpu"), "gpus": slot(intent, "gpus"),
               "hours": slot(intent, "hours"), "provider": slot(intent, "provider"),
               "compare_commitments": True, "reserved_discount": slot(intent, "discount")}
    result = calls.run("pricing", payload, "cheapest on-demand and committed offers that can "
                       "host the cluster for the period")
    c = result["commitments"]
    od, cm = c.get("on_demand"), c.get("committed")
    gpus, hours = c["gpus"], c["hours"]
    if od is None or cm is None:
        side = "on-demand" if od is None else "committed"
        return Reply(headline=f"No {side} offer on record can host {gpus}× {payload['gpu']} "
                     f"for {num(hours)} hours" + (" (ruled out: " + ", ".join(
                         f"{k} {v}" for k, v in c["ruled_out"].items()) + ")"
                         if c["ruled_out"] else "") + ".")
    winner = cm if c["cheaper"] == "committed" else od
    lead = (f"For {gpus}× {payload['gpu']} over {num(hours)} hours, **"
            + ("committed" if winner is cm else "on-demand") + f" is cheaper by "
            f"{usd(c['saving_usd'])}**: {cm['offer']['provider']} {cm['offer']['kind']} at "
            f"{usd(cm['offer']['effective_usd_per_gpu_hour'])}/GPU-h = "
            f"{usd(cm['total_usd'])} (billed {num(cm['billed_hours'])} h) against "
            f"{od['offer']['provider']} on-demand at "
            f"{usd(od['offer']['effective_usd_per_gpu_hour'])}/GPU-h = {usd(od['total_usd'])}. "
            f"On these prices the commitment wins above **{pct(c['break_even_utilization'])} "
            f"utilisation** (its total over the on-demand cost at 100%); "
            + (f"at the stated {pct(c['stated_discount'])} discount the break-even is "
               f"{pct(c['stated_break_even_utilization'])}." if c["stated_discount"] else
               f"at the usual {pct(DISCOUNT_RANGE[0])}–{pct(DISCOUNT_RANGE[1])} reserved "
               f"discounts it is {pct(1 - DISCOUNT_RANGE[1])}–{pct(1 - DISCOUNT_RANGE[0])}."))
    lead += _longer_terms(c["terms"], hours)
    rows = [[p["offer"]["provider"], p["offer"]["kind"], p["offer"]["product"],
             p["offer"]["effective_usd_per_gpu_hour"], p["billed_gpus"], p["billed_hours"],
             num(p["unused_hours"]), usd(p["total_usd"]), p["offer"]["verified_on"]]
            for p in (od, *c["terms"])]
    tables = [table(["provider", "kind", "product", "$/GPU-h", "GPUs", "hours billed",
                     "hours unused", "total", "verified"], rows)]
    if c["ruled_out"]:
        tables.append(table(["ruled out because", "offers"],
                            [[k, num(v)] for k, v in c["ruled_out"].items()]))
    return Reply(headline=lead, tables=tables,
                 citations=[] if c["stated_discount"] else [note_ref(DISCOUNT_NOTE)])


TERM_WORDS = {"reserved_1m": "1-month term", "reserved_1y": "1-year term",
              "reserved_3y": "3-year term", "capacity_block": "Capacity Block"}


def _longer_terms(terms: list[dict[str, Any]], hours: float) -> str:
    """Say what each commitment longer than the job bills: the whole term, used or not."""
    said = [f"the {TERM_WORDS.get(p['offer']['kind'], p['offer']['kind'])} "
            f"({p['offer']['provider']} at {usd_rate(p['offer']['effective_usd_per_gpu_hour'])}"
            f"/GPU-h) bills {num(p['billed_hours'])} h, {num(p['unused_hours'])} of them unused: "
            f"{usd(p['total_usd'])}" for p in terms if p["unused_hours"] > 0]
    if not said:
        return ""
    return (f" A commitment bills whole terms whatever the job's {num(hours)} hours: "
            + "; ".join(said) + ".")


# pricing-models#reserved-discount: a reserved contract is 20 to 40 percent under on-demand
RESERVED_DISCOUNT = (0.20, 0.40)
TERMS = {"reserved_1m": "1-month", "reserved_1y": "1-year", "reserved_3y": "3-year"}


def _commitment_estimate(intent: Intent, calls: Calls, payload: dict[str, Any]) -> Reply:
    """A commitment no offer on record lists: said so, and its month estimated from the same
    provider's (or the cheapest) on-demand price at the note's 20-40% discount."""
    term = TERMS.get(str(payload["kind"]), str(payload["kind"]))
    where = f" at {payload['provider']}" if payload.get("provider") else ""
    base = calls.run("pricing", payload | {"kind": "on_demand", "hours": None},
                     "the on-demand price a commitment is discounted from")
    cheapest = base.get("cheapest")
    lead = f"No {term} commitment price for {gpu_name(str(payload['gpu']))} is on record{where}."
    if not cheapest:
        return Reply(headline=lead + " Nor is an on-demand one, so it is not estimated.")
    monthly = float(base["monthly_usd"])
    low, high = (monthly * (1 - d) for d in reversed(RESERVED_DISCOUNT))
    lead += (f" On demand{where} it is {usd_rate(cheapest['effective_usd_per_gpu_hour'])} per "
             f"GPU-hour, **{usd(monthly)} a month** for {base['billed_gpus']} GPUs; reserved "
             f"contracts run 20-40% under on-demand, so a {term} commitment would be about "
             f"**{usd(low)}-{usd(high)} a month**: ask the provider for the quote.")
    return Reply(headline=lead, citations=[note_ref("pricing-models#reserved-discount")])


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
    if not cheapest and str(payload["kind"]).startswith("reserved"):
        return _commitment_estimate(intent, calls, payload)
    if not cheapest:
        return Reply(headline=f"No offer for {slot(intent, 'gpu')} is on record"
                     + (f" as {payload['kind']}" if payload["kind"] != "any" else "") + ".")
    spot = None
    if payload["kind"] == "any" and cheapest["kind"] == "spot":
        # no kind asked: the price a run can count on is on demand; spot is named beside it
        steady = calls.run("pricing", payload | {"kind": "on_demand"},
                           "the cheapest on-demand offer (spot may be reclaimed)")
        if steady.get("cheapest"):
            spot, result, cheapest = cheapest, steady, steady["cheapest"]
    gpus = result["billed_gpus"]
    lead = (f"The cheapest {cheapest['kind'].replace('_', '-')} offer for {gpus}× "
            f"{gpu_name(cheapest['gpu'])} is {cheapest['provider']} at "
            f"**{usd_rate(cheapest['effective_usd_per_gpu_hour'])} per GPU-hour** "
            f"({usd(result['hourly_usd'])} an hour): **{usd(result['monthly_usd'])} a month** "
            f"at {result['hours_per_month']} hours"
            + (f" and {pct(slot(intent, 'utilization'))} utilisation"
               if slot(intent, "utilization") else "") + ".")
    if result.get("total_usd") and slot(intent, "hours"):
        asked, billed = result["period_hours"], result.get("billed_hours") or result["period_hours"]
        lead += f" For {days(asked / 24)}: {usd(result['total_usd'])}" + (
            f" (billed as {days(billed / 24)}: the provider's billing increment or minimum)"
            if billed > asked * (1 + 1e-9) else "") + "."
    citations = []
    if spot:
        lead += (f" Spot is cheaper, {spot['provider']} at "
                 f"{usd_rate(spot['effective_usd_per_gpu_hour'])} per GPU-hour, but can be "
                 "reclaimed at any time.")
        citations.append(note_ref(SPOT_NOTE))
    tables = [offers_table(result["offers"])]
    if len(listed := intent.slots.get("provider_list") or []) >= 2:
        said, table_rows = _providers(intent, calls, payload, listed)
        lead, tables = said + " " + lead, [table_rows, *tables]
    return Reply(headline=lead, tables=tables, citations=citations)


def _providers(intent: Intent, calls: Calls, payload: dict[str, Any], listed: list[str]
               ) -> tuple[str, str]:
    """"compare with coreweave" after lambda: each provider's cheapest on-demand offer for
    the same GPUs, side by side, and what the month costs at each."""
    rows, said = [], []
    for provider in listed:
        result = calls.run("pricing", payload | {"provider": provider, "kind": "on_demand"},
                           f"{provider}'s cheapest on-demand offer")
        best = result.get("cheapest")
        if not best:
            rows.append([provider, "-", "-", "no offer on record"])
            said.append(f"{provider} has no on-demand offer on record")
            continue
        rows.append([provider, best["effective_usd_per_gpu_hour"], usd(result["monthly_usd"]),
                     best["verified_on"]])
        said.append(f"{provider} {usd_rate(best['effective_usd_per_gpu_hour'])} per GPU-hour, "
                    f"**{usd(result['monthly_usd'])} a month**")
    return ("Side by side, on demand: " + "; ".join(said) + ".",
            table(["provider", "$/GPU-h", "a month", "verified"], rows))


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
