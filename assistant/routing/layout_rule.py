"""A parallel layout with no model named: the split the GPUs and their links dictate.

"TP or PP across two nodes?", "how do I load one model on several machines?" are answered by
where the fast links are, before any model is sized: tensor parallelism inside a node's
NVLink domain, pipeline stages across nodes, data parallelism once a replica fits. The answer
says so for the cluster the question describes and asks for the model only to rank layouts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table
from clusterplan.assistant.parsing.jobs import gpu_name
from clusterplan.assistant.routing.dispatch import Calls, Reply, slot
from clusterplan.assistant.routing.network import LARGE_MESSAGE
from clusterplan.db.active import catalog
from clusterplan.tools.contract import Step, q

NOTES = ["megatron-lm-2021#tp-within-node", "parallelism-strategies#tp-inside-node",
         "parallelism-strategies#pp-standard-multi-node",
         "parallelism-strategies#add-dp-when-replicas-fit"]


def has_model(intent: Intent) -> bool:
    return any(k in intent.slots for k in ("model", "params_b", "config"))


def rule_of_thumb(intent: Intent, calls: Calls) -> Reply:
    """TP = the GPUs of a node, PP = the nodes: the layout for one replica on the whole cluster."""
    gpu = slot(intent, "gpu")
    per_node = int(slot(intent, "gpus_per_node") or 8)
    gpus = int(slot(intent, "gpus") or per_node)
    if "nodes" in intent.slots:
        nodes = int(intent.slots["nodes"])
        per_node = max(1, gpus // nodes) if "gpus" in intent.slots else per_node
    else:
        nodes = max(1, -(-gpus // per_node))
    tp = min(per_node, gpus)
    pp = max(1, gpus // tp)
    where = (f"{gpus}× {gpu_name(gpu) if gpu else 'GPU'} ({nodes} node"
             f"{'s' if nodes != 1 else ''} of {per_node})")
    link = _node_link(intent, tp)
    fabric = "NVLink" if link is None or link.kind == "nvlink" else link.name
    lead = (f"On {where}, one model replica across all of them splits as **TP {tp} × PP {pp}**: "
            f"tensor parallelism inside each node, where {fabric} carries its two all-reduces "
            f"per layer, and pipeline stages across nodes, which pass only activations over the "
            f"network.")
    bare = over_pcie(gpu, min(tp, gpus), calls)
    if nodes == 1:
        lead = (f"On {where}, split one replica with **TP {tp}** inside the node ({fabric} "
                f"carries its all-reduces); pipeline parallelism only pays across nodes, or where "
                f"the GPUs have no NVLink between them.")
    if nodes == 1 and bare is not None and bare.bridged and tp > bare.bridged:
        group = bare.bridged
        lead = (f"On {where}, one replica on all {tp} splits as **TP {tp}** over PCIe, or as "
                f"**TP {group} × PP {tp // group}**: each bridged group of {group} keeps its "
                f"all-reduces on NVLink and the pipeline stages pass only activations over PCIe, "
                f"at the cost of a pipeline bubble.")
    elif nodes == 1 and bare is not None and tp >= 4:
        lead = (f"On {where}, one replica on all {tp} splits as **TP {tp}**, or as "
                f"**TP {tp // 2} × PP 2** to halve the GPUs each all-reduce spans at the cost "
                f"of a pipeline bubble: with no NVLink between the GPUs that trade can pay.")
    lead += (" When one replica fits on fewer GPUs, keep TP as small as holds it and add data "
             "parallelism (replicas) for throughput. Name the model to rank the layouts by "
             "memory and speed.")
    if bare is not None:
        lead = f"{bare.said} {lead}"
    step = Step(label="layout without a model", formula="TP = GPUs per node (≤ the NVLink "
                "domain), PP = GPUs ÷ TP", inputs={"gpus": q(gpus), "gpus_per_node":
                q(per_node), "nodes": q(nodes)}, result=q(f"TP {tp} × PP {pp}"), notes=NOTES)
    tp_why = ("inside a node over PCIe: two all-reduces per layer, so as small as holds the "
              "model" if bare else "inside a node: an all-reduce per layer needs NVLink")
    rows = [["tensor parallel (TP)", tp, tp_why],
            ["pipeline parallel (PP)", pp, "across nodes: only activations cross the network"],
            ["data parallel (DP)", 1, "more replicas once one fits on fewer GPUs"]]
    tables = [table(["degree", "value", "why"], rows)]
    if link is not None:
        both = 2 * link.line_rate_per_direction_gb_s
        tables.append(table(["link inside the node (per GPU)", "GB/s per direction",
                             "GB/s both ways"],
                            [[link.name, link.line_rate_per_direction_gb_s, both]]))
    return Reply(headline=lead, tables=tables,
                 steps=[step, *_link_steps(link), *(bare.steps if bare else [])])


# What a GPU with NVLink reaches, to set a PCIe-only card's all-reduce beside.
NVLINK_PEER = "h100-sxm"


@dataclass(frozen=True)
class OverPcie:
    """What a layout over PCIe-linked cards must say: the sentence, its steps, and how many
    GPUs an NVLink bridge joins (0 when the card has none)."""

    said: str
    steps: list[Step]
    bridged: int


def over_pcie(gpu: str | None, ranks: int, calls: Calls) -> OverPcie | None:
    """For TP wider than the card's NVLink (none on an L40S or RTX 4090, a bridged pair on an
    RTX 3090 or A40): say so, and set its PCIe all-reduce beside an NVLink node's, since
    'is PCIe fine for TP?' is the question."""
    row = catalog().gpus.rows.get(gpu or "")
    if row is None or ranks < 2 or not row.over_pcie() or ranks <= row.nvlink_domain_gpus:
        return None
    link = catalog().links.rows.get(row.intra_link or "")
    over = link.name if link is not None else "PCIe"
    bare, peer = (_busbw(calls, kind, ranks) for kind in (row.id, NVLINK_PEER))
    versus = (f"an all-reduce across {ranks} of them reaches about **{num(bare)} GB/s** bus "
              f"bandwidth against {num(peer)} GB/s on {ranks}× {gpu_name(NVLINK_PEER)} over "
              f"NVLink ({num(peer / bare)}× slower), and TP pays two all-reduces per layer")
    notes = [row.source_note, "parallelism-strategies#tp-allreduce-per-layer"]
    bridge = catalog().links.rows.get(row.pair_link or "")
    if bridge is None:
        said = (f"**{row.name} has no NVLink**: its GPUs reach each other only over {over}. "
                f"TP {ranks} runs over it, but {versus}; so keep TP as small as holds the model.")
        step = Step(label="no NVLink on the card", formula="the card's link inside the node",
                    inputs={"nvlink_domain_gpus": q(row.nvlink_domain_gpus)},
                    result=q(over), notes=notes)
        return OverPcie(said, [step], 0)
    group = row.nvlink_domain_gpus
    paired = _busbw(calls, row.id, group, bridge.id)
    said = (f"**{row.name}'s NVLink bridge joins only {group} cards** ({num(paired)} GB/s bus "
            f"bandwidth for an all-reduce over the bridge); TP {ranks} spans more than one "
            f"bridged group, so its all-reduces run over {over}: {versus}.")
    step = Step(label="NVLink bridge joins a group", formula="TP ≤ bridged group → bridge; "
                "wider → the node's PCIe", inputs={"nvlink_domain_gpus": q(group),
                                                   "tensor parallel": q(ranks)},
                result=q(over), notes=[*notes, bridge.source_note])
    return OverPcie(said, [step], group)


def _busbw(calls: Calls, gpu: str, ranks: int, link: str | None = None) -> float:
    """Bus bandwidth of a large all-reduce over `ranks` GPUs of one node."""
    job = {"op": "all_reduce", "size": LARGE_MESSAGE, "ranks": ranks, "gpu": gpu,
           **({"intra_link": link} if link else {})}
    return float(calls.run("interconnect", job, f"all-reduce over {ranks}× {gpu}")["busbw_gbps"])


def _node_link(intent: Intent, tp: int) -> Any:
    """The link the question names, else the one TP runs over: a bridge when TP stays within
    the bridged group, else the GPU's own link inside its node, if any."""
    links = catalog().links.rows
    named = [x for x in intent.slots.get("links") or [] if x in links]
    if named and links[named[0]].scope == "intra_node":
        return links[named[0]]
    gpu = catalog().gpus.rows.get(slot(intent, "gpu") or "")
    if gpu is None:
        return None
    if gpu.pair_link and tp <= gpu.nvlink_domain_gpus:
        return links.get(gpu.pair_link)
    return links.get(gpu.intra_link or "")


def _link_steps(link: Any) -> list[Step]:
    if link is None:
        return []
    return [Step(label="the node's link", formula="both ways = 2 × per direction",
                 inputs={"per direction": q(link.line_rate_per_direction_gb_s, "GB/s")},
                 result=q(2 * link.line_rate_per_direction_gb_s, "GB/s"),
                 notes=[link.source_note])]
