"""A question about links themselves ("why is H800 NVLink 160 GB/s, not 400?", "is IB's
50 GB/s one direction?"): each link named, per direction and both ways, and the quoted rates.

Marketing quotes NVLink both ways added, InfiniBand per port one way in Gb/s, and measured
bus bandwidth below either; setting the three side by side is most of the answer.
"""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table
from clusterplan.assistant.routing.dispatch import Reply
from clusterplan.db.active import catalog
from clusterplan.tools.contract import Step, q
from clusterplan.tools.units import UnitError, parse


def link_facts(intent: Intent) -> Reply:
    """Per-direction and both-ways rates of each link named; a quoted Gb/s in GB/s."""
    rows_db = catalog().links.rows
    rows: list[list[Any]] = []
    steps: list[Step] = []
    said: list[str] = []
    for link_id in intent.slots.get("links", []):
        row = rows_db.get(link_id)
        if row is None:
            continue
        one_way = float(row.line_rate_per_direction_gb_s)
        both = one_way * 2
        effective = row.effective_per_direction_gb_s
        rows.append([row.name, one_way, both, effective if effective else "-",
                     row.latency_us, row.source_note])
        steps.append(Step(label=f"{row.name}: rates", formula="per direction (line rate); both "
                          "ways = 2 × per direction", inputs={"per_direction": q(one_way,
                                                                                  "GB/s")},
                          result=q(both, "GB/s both ways"), notes=[row.source_note]))
        said.append(f"{row.name}: **{num(one_way)} GB/s per direction**, {num(both)} GB/s both "
                    "ways" + (f" ({num(float(effective))} GB/s effective one way)"
                              if effective else ""))
    quoted = _quoted(intent.slots.get("bandwidth"))
    if quoted and rows:
        one_way = float(rows[0][1])
        in_bits = "b/s" in str(intent.slots["bandwidth"]) or "bps" in str(
            intent.slots["bandwidth"]).lower()
        said.append(f"the {intent.slots['bandwidth']} quoted"
                    + (f" is {num(quoted)} GB/s," if in_bits else "")
                    + f" is {num(100 * quoted / one_way)} % of {rows[0][0]}'s per-direction "
                    "line rate")
    lead = "; ".join(said) + "." if said else "No link in the catalog was named."
    lead += (" NVLink figures are usually quoted both ways added; InfiniBand and Ethernet per "
             "port, one way, in Gb/s (÷ 8 for GB/s); measured bus bandwidth sits below the "
             "line rate.")
    head = ["link", "GB/s per direction", "GB/s both ways", "GB/s effective (one way)",
            "latency (µs)", "note"]
    return Reply(headline=lead, tables=[table(head, rows)] if rows else [], steps=steps)


def _quoted(bandwidth: Any) -> float | None:
    try:
        return float(parse(str(bandwidth), "GB/s").to("GB/s").magnitude) if bandwidth else None
    except (UnitError, ValueError):
        return None
