"""The reasoning behind a collective's time, as trace steps that name their notes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clusterplan.db.rows import LinkRow
from clusterplan.tools.contract import Step, q
from clusterplan.tools.interconnect.links import has_effective, latency_note, rate_notes

if TYPE_CHECKING:
    from clusterplan.tools.interconnect.collectives import CollectiveTime, Fabric

ALGO_NOTE = "collective-algorithms"
BUSBW_NOTE = "nccl-tests-performance"

FORMULAS = {
    ("ring", "all_reduce"): "2(n-1)·α + 2(n-1)/n · S / B",
    ("ring", "all_gather"): "(n-1)·α + (n-1)/n · S / B",
    ("ring", "reduce_scatter"): "(n-1)·α + (n-1)/n · S / B",
    ("ring", "all_to_all"): "(n-1)·α + (n-1)/n · S / B (pairwise exchange)",
    ("ring", "broadcast"): "(n-1)·α + S / B (pipelined chain)",
    ("tree", "all_reduce"):
        "2(⌈log2 g⌉·α_intra + ⌈log2 N⌉·α_inter) + 2·S / B (pipelined reduce, then broadcast)",
    ("tree", "broadcast"): "⌈log2 g⌉·α_intra + ⌈log2 N⌉·α_inter + S / B (pipelined tree)",
    ("hierarchical", "all_reduce"):
        "2(g-1)/g · S/B_intra + 2(N-1)/N · (S/g)/B_inter_per_GPU + latency terms",
    ("hierarchical", "all_gather"):
        "(N-1)/N · (S/g)/B_inter_per_GPU + (g-1)/g · S/B_intra + latency terms",
    ("hierarchical", "reduce_scatter"):
        "(g-1)/g · S/B_intra + (N-1)/N · (S/g)/B_inter_per_GPU + latency terms",
    ("hierarchical", "all_to_all"):
        "max((g-1)/n · S/B_intra, (n-g)/n · S/B_inter_per_GPU) + latency terms",
    ("direct", "send_recv"): "α + S / B",
}
FACTORS = {"all_reduce": "2(n-1)/n", "all_gather": "(n-1)/n", "reduce_scatter": "(n-1)/n",
           "all_to_all": "(n-1)/n", "broadcast": "1", "send_recv": "1"}


def _rate_step(label: str, link: LinkRow, value: float, bandwidth: str) -> Step:
    used = "NCCL's usable rate" if bandwidth == "effective" and has_effective(link) \
        else "datasheet line rate"
    return Step(label=label, formula=f"{used}, one direction, per GPU or per port",
                inputs={"link": q(link.id), "latency per step": q(link.latency_us, "µs")},
                result=q(value, "GB/s"),
                notes=[*rate_notes(link, bandwidth), latency_note(link)])


def fabric_steps(f: Fabric) -> list[Step]:
    """Where the ranks sit and the per-GPU bandwidth of each link they use."""
    steps = [Step(label="nodes spanned", formula="N = ranks / GPUs per node",
                  inputs={"ranks": q(f.ranks), "GPUs per node": q(f.gpus_per_node)},
                  result=q(f.nodes, "nodes")),
             _rate_step("intra-node bandwidth per GPU", f.intra, f.intra_gb_s, f.bandwidth)]
    if f.nodes > 1 and f.inter is not None:
        steps.append(_rate_step("network port rate", f.inter, f.nic_gb_s, f.bandwidth))
        steps.append(Step(
            label="inter-node bandwidth per GPU",
            formula="min(intra per GPU, NICs per node × port rate / GPUs per node)",
            inputs={"intra": q(f.intra_gb_s, "GB/s"), "NICs per node": q(f.nics_per_node),
                    "port rate": q(f.nic_gb_s, "GB/s"), "GPUs per node": q(f.gpus_per_node)},
            result=q(f.inter_per_gpu_gb_s, "GB/s"), notes=[f"{ALGO_NOTE}#node-bandwidth"]))
    return steps


def explain(ct: CollectiveTime) -> list[Step]:
    """Every step from link rates to algbw and busbw, in order."""
    f = ct.fabric
    steps = fabric_steps(f)
    if f.nodes > 1 and "ring" in ct.candidates:
        link, bw, _ = f.ring_hop(ct.op)
        shared = bw != f.slowest_hop()[1]
        steps.append(Step(
            label="rings across nodes, one per port, share the node's ports" if shared
            else "a ring that spans nodes runs at the speed of its slowest hop",
            formula="B = min(intra per GPU, NICs per node × port rate)" if shared
            else "B = min(intra per GPU, inter-node per GPU)",
            inputs={"slowest link": q(link)}, result=q(bw, "GB/s"),
            notes=[f"{ALGO_NOTE}#rings-per-port" if shared else f"{ALGO_NOTE}#slowest-hop"]))
    if f.nodes > 1 and "tree" in ct.candidates:
        link, bw, _ = f.slowest_hop()
        steps.append(Step(label="a tree that spans nodes runs at the speed of its slowest hop",
                          formula="B = min(intra per GPU, inter-node per GPU)",
                          inputs={"slowest link": q(link)}, result=q(bw, "GB/s"),
                          notes=[f"{ALGO_NOTE}#slowest-hop"]))
    for algorithm, seconds in ct.candidates.items():
        steps.append(Step(label=f"{algorithm} {ct.op} time",
                          formula=FORMULAS[(algorithm, ct.op)],
                          inputs={"S": q(ct.size_bytes / 1e9, "GB"), "n": q(f.ranks),
                                  "g": q(f.gpus_per_node), "N": q(f.nodes)},
                          result=q(seconds, "s"), notes=[f"{ALGO_NOTE}#{algorithm}"]))
    if len(ct.phases) > 1:
        steps += [Step(label=f"phase: {p.name}", formula="steps·α + bytes / B",
                       inputs={"bytes per GPU": q(p.size_bytes / 1e9, "GB"),
                               "B": q(p.bandwidth_gb_s, "GB/s"), "steps": q(p.steps)},
                       result=q(p.time_s, "s"), notes=[f"{ALGO_NOTE}#{ct.algorithm}"])
                  for p in ct.phases]
    if ct.auto and len(ct.candidates) > 1:
        steps.append(Step(label="auto: take the fastest algorithm", formula=choice_reason(ct),
                          result=q(ct.algorithm), notes=[f"{ALGO_NOTE}#auto"]))
    steps.append(Step(label="bus bandwidth factor", formula=FACTORS[ct.op],
                      inputs={"n": q(f.ranks)}, result=q(ct.bus_factor),
                      notes=[f"{BUSBW_NOTE}#factors"]))
    steps.append(Step(label="algorithm and bus bandwidth",
                      formula="algbw = S / t; busbw = algbw × factor",
                      inputs={"S": q(ct.size_bytes / 1e9, "GB"), "t": q(ct.time_s, "s")},
                      result=q(ct.busbw_gbps, "GB/s busbw"), notes=[f"{BUSBW_NOTE}#busbw"]))
    return steps


def choice_reason(ct: CollectiveTime) -> str:
    """Why auto chose what it chose, with every candidate's time."""
    others = ", ".join(f"{a} {t:.4g} s" for a, t in ct.candidates.items() if a != ct.algorithm)
    why = {"ring": "bandwidth-optimal; its extra latency steps cost less here",
           "tree": "fewer latency steps win at this size",
           "hierarchical": "fewer bytes and steps cross the slower inter-node links"}
    return (f"{ct.algorithm} {ct.time_s:.4g} s is fastest ({why.get(ct.algorithm, '')}); "
            f"against {others}")
