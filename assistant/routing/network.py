"""Interconnect questions: a collective's time, a unit conversion, two links compared, a write."""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table
from clusterplan.assistant.routing.dispatch import Calls, Reply, slot
from clusterplan.assistant.routing.link_facts import link_facts
from clusterplan.db.active import catalog
from clusterplan.tools.contract import Step, q

OP_WORDS = {"all_reduce": "all-reduce", "all_gather": "all-gather",
            "reduce_scatter": "reduce-scatter", "all_to_all": "all-to-all",
            "broadcast": "broadcast", "send_recv": "send/receive", "transfer": "transfer"}


def _links_by_scope(intent: Intent) -> dict[str, str]:
    rows = catalog().links.rows
    found: dict[str, str] = {}
    for link in intent.slots.get("links", []):
        scope = rows[link].scope if link in rows else ""
        found.setdefault(scope, link)
    return found


def collective(intent: Intent, calls: Calls) -> Reply:
    """Time of a collective (or a transfer) on the GPUs and links named."""
    op = slot(intent, "op", "transfer")
    sized = "size" in intent.slots or "size_gb" in intent.slots
    if not sized and op != "transfer" and _ranks_named(intent):
        return expected_busbw(intent, calls, op)  # "what all-reduce bandwidth should I expect?"
    if not sized and intent.slots.get("links"):
        return link_facts(intent)  # the links themselves are the question
    if op == "transfer":
        return transfer(intent, calls)
    result = calls.run("interconnect", _collective_payload(intent, op),
                       f"time of the {OP_WORDS[op]}")
    where = _where(result)
    lead = (f"An {OP_WORDS[op]} of {num(result['size_gb'])} GB across {where} takes about "
            f"**{num(result['time_s'])} s** ({result['algorithm']} algorithm, "
            f"{result['bandwidth']} bandwidth; bus bandwidth {num(result['busbw_gbps'])} GB/s, "
            f"bottleneck {result['bottleneck']}).")
    tables = _phase_tables(result)
    others = result.get("candidates") or []
    if others:
        tables.append(table(["algorithm", "time (s)"],
                            [[c["algorithm"], c["time_s"]] for c in others]))
    return Reply(headline=lead, tables=tables)


# A message this large sits where nccl-tests' busbw has stopped growing with size.
LARGE_MESSAGE_GB = 1.0
LARGE_MESSAGE = f"{LARGE_MESSAGE_GB:g} GB"


def _ranks_named(intent: Intent) -> bool:
    return any(intent.slots.get(k) for k in ("gpus", "ranks", "nodes"))


def _collective_payload(intent: Intent, op: str, size: str | None = None) -> dict[str, Any]:
    """A direct /interconnect call names ranks and links; a question names GPUs and link words."""
    links = _links_by_scope(intent)
    return {"op": op, "size": size or slot(intent, "size"), "size_gb": slot(intent, "size_gb"),
            "ranks": slot(intent, "gpus") or slot(intent, "ranks"),
            "gpus_per_node": slot(intent, "gpus_per_node"), "gpu": slot(intent, "gpu"),
            "nics_per_node": slot(intent, "nics_per_node"),
            "intra_link": links.get("intra_node") or slot(intent, "intra_link"),
            "inter_link": links.get("inter_node") or slot(intent, "inter_link")}


def _where(result: dict[str, Any]) -> str:
    return f"{result['ranks']} GPUs" + (f" in {result['nodes']} nodes"
                                        if (result.get("nodes") or 1) > 1 else "")


def _phase_tables(result: dict[str, Any]) -> list[str]:
    rows = [[p["name"], p["link"], p["size_gb"], p["bandwidth_gbps"], p["time_s"]]
            for p in result.get("phases", [])]
    return [table(["phase", "link", "GB per GPU", "GB/s one way", "time (s)"], rows)] \
        if rows else []


def expected_busbw(intent: Intent, calls: Calls, op: str) -> Reply:
    """The bus bandwidth a collective should reach at large messages, as nccl-tests prints
    it, so a user can set a run against it."""
    result = calls.run("interconnect", _collective_payload(intent, op, LARGE_MESSAGE),
                       f"bus bandwidth of the {OP_WORDS[op]} at a large message")
    lead = (f"An {OP_WORDS[op]} across {_where(result)} should reach about "
            f"**{num(result['busbw_gbps'])} GB/s bus bandwidth** (busbw, as nccl-tests prints "
            f"it; algorithm bandwidth {num(result['algbw_gbps'])} GB/s) at large messages, "
            f"bottleneck {result['bottleneck']} ({result['algorithm']} algorithm).")
    step = Step(label="message size", formula="a large message: busbw no longer grows with "
                "size there", inputs={}, result=q(LARGE_MESSAGE_GB, "GB"),
                notes=["nccl-tests-performance#small-sizes", "nccl-tests-performance#busbw"])
    return Reply(headline=lead, tables=_phase_tables(result), steps=[step],
                 assumptions=[f"message size {LARGE_MESSAGE}: bus bandwidth is read at large "
                              "sizes, where latency no longer counts"])


def transfer(intent: Intent, calls: Calls) -> Reply:
    size = slot(intent, "size")
    rate = slot(intent, "bandwidth")
    link = rate or next(iter(intent.slots.get("links", [])), None)
    result = calls.run("interconnect", {"op": "transfer", "size": size, "link": link},
                       "time to move the data")
    lead = f"Moving {size} over {link} takes about **{num(result['time_s'])} s** " \
           f"({num(result['time_s'] / 3600)} h)."
    return Reply(headline=lead)


def write_time(calls: Calls, size_gb: float, rate: str) -> tuple[float, list[str]]:
    """Seconds to write `size_gb` at `rate` (a bandwidth such as '10 GB/s')."""
    result = calls.run("interconnect", {"op": "transfer", "size_gb": size_gb, "link": rate},
                       "time to write the checkpoint")
    return float(result["time_s"]), []


def convert(intent: Intent, calls: Calls) -> Reply:
    value = slot(intent, "value") or slot(intent, "bandwidth") or slot(intent, "size")
    to = slot(intent, "to_unit")
    result = calls.run("interconnect", {"op": "convert", "value": value, "to": to},
                       "unit conversion")
    lead = f"{value} = **{result['value']:.6g} {result['unit']}**."
    explanation = str(result.get("explanation") or "")
    if explanation and not explanation.startswith(str(value)):
        lead += f" {explanation}"
    return Reply(headline=lead)


def counterpart(link: str, gpu: str | None) -> str:
    """What stands in for `link` when only it is named: PCIe of the same generation for
    NVLink, the GPU's own NVLink for a network link."""
    if link.startswith("nvlink"):  # NVLink 4 and 5 ship on PCIe 5 hosts, earlier on PCIe 4
        return "pcie-5" if link in ("nvlink-4", "nvlink-5") else "pcie-4"
    row = catalog().gpus.rows.get(gpu or "")
    return row.intra_link if row is not None and row.intra_link else "nvlink-4"


def link_compare(intent: Intent, calls: Calls) -> Reply:
    """Two links per direction per GPU, with the marketed figures beside them."""
    links = list(dict.fromkeys(intent.slots.get("links", [])))[:2]
    if len(links) == 1:  # "is NVLink required?": the link against what carries it otherwise
        links.append(counterpart(links[0], slot(intent, "gpu")))
    result = calls.run("interconnect", {"op": "compare", "links": links},
                       "the two links per direction")
    figures: list[dict[str, Any]] = result.get("links", [])
    a, b = figures[0], figures[1]
    lead = (f"{a['name']} carries **{num(a['per_direction_gbps'])} GB/s** per direction per GPU "
            f"and {b['name']} **{num(b['per_direction_gbps'])} GB/s**: "
            f"**{num(result['ratio'])}×** faster per direction.")
    if result.get("marketed_ratio") and abs(result["marketed_ratio"] - result["ratio"]) > 0.01:
        lead += (f" Setting the marketed figures side by side gives "
                 f"{num(result['marketed_ratio'])}×, which mixes a both-ways figure with a "
                 f"one-way one.")
    rows = [[f["name"], f["per_direction_gbps"], f["bidirectional_gbps"], f["marketed_as"]]
            for f in figures]
    return Reply(headline=lead, tables=[table(["link", "GB/s one way", "GB/s both ways",
                                               "marketed as"], rows)])
