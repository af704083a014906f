"""Collective communication times in the alpha-beta model: ring, tree and hierarchical layouts.

A phase costs its latency (alpha per step) plus the bytes each GPU sends over it divided by
the per-direction bandwidth (Thakur, Rabenseifner & Gropp 2005); ring byte counts are the
bandwidth-optimal ones (Patarasuk & Yuan 2009); bus bandwidth factors are nccl-tests'. Sizes
follow nccl-tests: S is the whole buffer (the gathered result for all_gather, the input of
reduce_scatter, what each rank sends for all_to_all). Pure arithmetic: no store, no pint,
cheap enough for a layout search to call many thousand times.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from clusterplan.db.rows import LinkRow
from clusterplan.tools.contract import Step, ToolError
from clusterplan.tools.interconnect.collective_steps import explain
from clusterplan.tools.interconnect.links import Bandwidth, per_direction_gb_s

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv")
ALGORITHMS: dict[str, tuple[str, ...]] = {
    "all_reduce": ("ring", "tree", "hierarchical"),
    "all_gather": ("ring", "hierarchical"),
    "reduce_scatter": ("ring", "hierarchical"),
    "all_to_all": ("ring", "hierarchical"),
    "broadcast": ("ring", "tree"),
    "send_recv": ("direct",),
}
# Collectives NCCL runs as rings whose channels each cross a node boundary once.
RING_SHARES_PORTS = frozenset({"all_reduce", "all_gather", "reduce_scatter", "broadcast"})
GB = 1e9
US = 1e-6

def bus_factor(op: str, n: int) -> float:
    """nccl-tests' busbw/algbw factor: 2(n-1)/n, (n-1)/n, or 1 for broadcast and send/recv."""
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0


@dataclass(frozen=True)
class Fabric:
    """Where the ranks sit (g GPUs on each of N nodes) and the links that join them."""

    ranks: int
    gpus_per_node: int
    nodes: int
    intra: LinkRow
    inter: LinkRow | None
    nics_per_node: int
    bandwidth: Bandwidth
    include_latency: bool = True

    @property
    def intra_gb_s(self) -> float:
        return per_direction_gb_s(self.intra, self.bandwidth)

    @property
    def nic_gb_s(self) -> float:
        return per_direction_gb_s(self.inter, self.bandwidth) if self.inter else self.intra_gb_s

    @property
    def inter_per_gpu_gb_s(self) -> float:
        """A GPU's share of the node's network: min(intra, nics x NIC rate / g)."""
        return min(self.intra_gb_s, self.nics_per_node * self.nic_gb_s / self.gpus_per_node)

    @property
    def alpha_intra_s(self) -> float:
        return self.intra.latency_us * US if self.include_latency else 0.0

    @property
    def alpha_inter_s(self) -> float:
        if not self.include_latency:
            return 0.0
        return (self.inter.latency_us if self.inter else self.intra.latency_us) * US

    def slowest_hop(self) -> tuple[str, float, float]:
        """A ring runs at its slowest hop: (link id, GB/s per GPU, alpha per step)."""
        if self.nodes == 1 or self.inter is None:
            return self.intra.id, self.intra_gb_s, self.alpha_intra_s
        alpha = max(self.alpha_intra_s, self.alpha_inter_s)
        if self.inter_per_gpu_gb_s < self.intra_gb_s:
            return self.inter.id, self.inter_per_gpu_gb_s, alpha
        return self.intra.id, self.intra_gb_s, alpha


    def ring_hop(self, op: str) -> tuple[str, float, float]:
        """A ring's bandwidth: its slowest hop, except that across nodes NCCL runs one ring per
        network port, each leaving every node once through its own port, so a ring all-reduce,
        all-gather, reduce-scatter or broadcast moves through the node's ports together and runs
        at min(a GPU's own link, ports x port rate) (collective-algorithms#rings-per-port). An
        all-to-all is no ring: every GPU sends its pieces for other nodes at once."""
        link, bw, alpha = self.slowest_hop()
        if self.nodes == 1 or self.inter is None or op not in RING_SHARES_PORTS:
            return link, bw, alpha
        network = self.nics_per_node * self.nic_gb_s
        if network < self.intra_gb_s:
            return self.inter.id, network, alpha
        return self.intra.id, self.intra_gb_s, alpha


@dataclass(frozen=True)
class Phase:
    """One stage of a collective: the bytes each GPU sends over one link, and its latency."""

    name: str
    link: str
    size_bytes: float
    bandwidth_gb_s: float
    steps: int
    latency_s: float

    @property
    def time_s(self) -> float:
        return self.latency_s + self.size_bytes / (self.bandwidth_gb_s * GB)


def _ring(op: str, size: float, f: Fabric) -> list[Phase]:
    n = f.ranks
    link, bw, alpha = f.ring_hop(op)
    steps = 2 * (n - 1) if op == "all_reduce" else n - 1
    return [Phase(f"ring {op} over {n} ranks", link, bus_factor(op, n) * size, bw, steps,
                  steps * alpha)]


def _tree(op: str, size: float, f: Fabric) -> list[Phase]:
    link, bw, _ = f.slowest_hop()
    levels_intra = math.ceil(math.log2(f.gpus_per_node))
    levels_inter = math.ceil(math.log2(f.nodes))
    passes = 2 if op == "all_reduce" else 1  # reduce up, then broadcast down
    latency = passes * (levels_intra * f.alpha_intra_s + levels_inter * f.alpha_inter_s)
    steps = passes * (levels_intra + levels_inter)
    return [Phase(f"tree {op} over {f.ranks} ranks", link, passes * size, bw, steps, latency)]


def _hierarchical(op: str, size: float, f: Fabric) -> list[Phase]:
    g, nodes, n = f.gpus_per_node, f.nodes, f.ranks
    bi, be = f.intra_gb_s, f.inter_per_gpu_gb_s
    ai, ae = f.alpha_intra_s, f.alpha_inter_s
    intra, inter = f.intra.id, (f.inter.id if f.inter else f.intra.id)

    def local(name: str, share: float, steps: int) -> Phase:
        return Phase(name, intra, share * size, bi, steps, steps * ai)

    def network(name: str, share: float, steps: int) -> Phase:
        return Phase(name, inter, share * size, be, steps, steps * ae)

    if op == "all_reduce":
        phases = [local("intra-node reduce-scatter", (g - 1) / g, g - 1),
                  network("inter-node all-reduce", 2 * (nodes - 1) / nodes / g, 2 * (nodes - 1)),
                  local("intra-node all-gather", (g - 1) / g, g - 1)]
    elif op == "all_gather":
        phases = [network("inter-node all-gather", (nodes - 1) / nodes / g, nodes - 1),
                  local("intra-node all-gather", (g - 1) / g, g - 1)]
    elif op == "reduce_scatter":
        phases = [local("intra-node reduce-scatter", (g - 1) / g, g - 1),
                  network("inter-node reduce-scatter", (nodes - 1) / nodes / g, nodes - 1)]
    else:  # all_to_all: the pieces for the own node and for other nodes travel at once
        phases = [local("intra-node exchange", (g - 1) / n, g - 1),
                  network("inter-node exchange", (n - g) / n, n - g)]
    return [p for p in phases if p.steps > 0]


def _direct(op: str, size: float, f: Fabric) -> list[Phase]:
    if f.nodes > 1 and f.inter is not None:
        bw = min(f.intra_gb_s, f.nic_gb_s)  # one whole port, fed by the GPU's own link
        return [Phase("send/recv across nodes", f.inter.id, size, bw, 1, f.alpha_inter_s)]
    return [Phase("send/recv inside a node", f.intra.id, size, f.intra_gb_s, 1, f.alpha_intra_s)]


LAYOUTS = {"ring": _ring, "tree": _tree, "hierarchical": _hierarchical, "direct": _direct}


def _total(op: str, algorithm: str, phases: list[Phase]) -> float:
    if algorithm == "hierarchical" and op == "all_to_all":
        return max(p.time_s for p in phases)
    return sum(p.time_s for p in phases)


@dataclass(frozen=True)
class CollectiveTime:
    """The time of one collective, the phases it ran, and why this algorithm was used."""

    op: str
    algorithm: str
    size_bytes: float
    fabric: Fabric
    phases: tuple[Phase, ...]
    candidates: dict[str, float]
    auto: bool
    time_s: float

    @property
    def bottleneck(self) -> str:
        return max(self.phases, key=lambda p: p.time_s).link

    @property
    def bus_factor(self) -> float:
        return bus_factor(self.op, self.fabric.ranks)

    @property
    def algbw_gbps(self) -> float:
        return self.size_bytes / self.time_s / GB

    @property
    def busbw_gbps(self) -> float:
        return self.algbw_gbps * self.bus_factor

    @cached_property
    def steps(self) -> list[Step]:
        """The reasoning, built only when someone reads it (a search never does)."""

        return explain(self)


def collective_time(op: str, size_bytes: float, ranks: int, gpus_per_node: int,
                    intra: LinkRow, inter: LinkRow | None = None,
                    nics_per_node: int | None = None, algorithm: str = "auto",
                    bandwidth: Bandwidth = "effective",
                    include_latency: bool = True) -> CollectiveTime:
    """Seconds for `op` on `size_bytes` over `ranks` GPUs, g per node; `auto` takes the fastest."""
    if op not in ALGORITHMS:
        raise ToolError(f"op: {op!r} is not a collective; choose one of {', '.join(OPS)}")
    if ranks < 2:
        raise ToolError(f"ranks: a collective needs at least 2 ranks, got {ranks}")
    g = max(1, min(gpus_per_node, ranks))
    nodes = math.ceil(ranks / g)
    if nodes > 1 and inter is None:
        raise ToolError(f"inter_link: {ranks} ranks at {g} per node span {nodes} nodes; "
                        "give the inter-node link")
    choices = ALGORITHMS[op]
    if algorithm != "auto" and algorithm not in choices:
        raise ToolError(f"algorithm: {algorithm!r} does not apply to {op}; "
                        f"choose {', '.join(choices)} or auto")
    fabric = Fabric(ranks, g, nodes, intra, inter, nics_per_node or g, bandwidth,
                    include_latency)
    names = choices if algorithm == "auto" else (algorithm,)
    layouts = {a: LAYOUTS[a](op, size_bytes, fabric) for a in names}
    times = {a: _total(op, a, phases) for a, phases in layouts.items()}
    best = min(names, key=lambda a: times[a])  # ties keep the first, simplest, layout
    return CollectiveTime(op, best, size_bytes, fabric, tuple(layouts[best]), times,
                          algorithm == "auto", times[best])


def collective_timer(intra: LinkRow, inter: LinkRow | None, nics_per_node: int | None = None,
                     bandwidth: Bandwidth = "effective"
                     ) -> Callable[[str, float, int, int], float]:
    """A `(op, size_bytes, ranks, ranks_per_node) -> seconds` callable for a step-time model."""

    def seconds(op: str, size_bytes: float, ranks: int, ranks_per_node: int) -> float:
        if ranks < 2 or size_bytes <= 0:
            return 0.0
        return collective_time(op, size_bytes, ranks, ranks_per_node, intra, inter,
                               nics_per_node, "auto", bandwidth).time_s

    return seconds

