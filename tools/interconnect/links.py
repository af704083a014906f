"""Links of the catalog by what a person types, and their rates per direction or both ways.

Every rate here is decimal GB/s per direction: per GPU for NVLink, Infinity Fabric and PCIe
x16, per port for a network card, per client for a storage path. Marketing figures for NVLink
and PCIe count both directions together; network ports are sold by their one-way line rate.
"""

from __future__ import annotations

from typing import Literal

from clusterplan.db.active import catalog
from clusterplan.db.catalog import UnknownName
from clusterplan.db.rows import GpuRow, LinkRow
from clusterplan.tools.contract import ToolError

Bandwidth = Literal["line_rate", "effective"]

# NCCL's own per-link constants back every `effective_per_direction_gb_s` and the
# per-step latencies of the fabric links; storage latencies come from their datasheets.
NCCL_NOTE = "nccl-link-bandwidths"
STORAGE_NOTE = "storage-bandwidth"


def find_link(name: str, field: str = "link") -> LinkRow:
    """The link a person means ("NVLink 4", "IB NDR"), or a ToolError naming the nearest ids."""
    try:
        return catalog().links.find(name)
    except UnknownName as exc:
        raise ToolError(f"{field}: unknown link {name!r}; nearest: {', '.join(exc.nearest)}") \
            from None


def link_ids(scope: str) -> list[str]:
    """The ids of every link of one scope (intra_node, inter_node, storage)."""
    links = catalog().links
    return [i for i in links.ids() if links.rows[i].scope == scope]


def require_scope(link: LinkRow, scope: str, field: str) -> LinkRow:
    """Refuse a link used where it cannot carry traffic (IB inside a node, NVLink between)."""
    if link.scope != scope:
        options = ", ".join(link_ids(scope))
        kind = link.scope.replace("_", "-")
        article = "an" if kind[0] in "aeiou" else "a"
        raise ToolError(f"{field}: {link.id!r} is {article} {kind} link; "
                        f"give one of {options}")
    return link


def has_effective(link: LinkRow) -> bool:
    """Whether the catalog holds a usable-rate figure for this link."""
    return link.effective_per_direction_gb_s is not None


def per_direction_gb_s(link: LinkRow, bandwidth: Bandwidth = "line_rate") -> float:
    """GB/s one way: the datasheet line rate, or the usable rate (line rate when none is known)."""
    if bandwidth == "effective" and link.effective_per_direction_gb_s is not None:
        return link.effective_per_direction_gb_s
    return link.line_rate_per_direction_gb_s


def bidirectional_gb_s(link: LinkRow, bandwidth: Bandwidth = "line_rate") -> float:
    """GB/s counting both directions together, as NVLink and PCIe are marketed."""
    return 2 * per_direction_gb_s(link, bandwidth)


def marketed_gb_s(link: LinkRow) -> float:
    """The headline figure a datasheet prints: both directions or one, as the vendor sells it."""
    if link.marketed_bidirectional:
        return bidirectional_gb_s(link)
    return link.line_rate_per_direction_gb_s


def marketed_as(link: LinkRow) -> str:
    return "both directions" if link.marketed_bidirectional else "one direction"


def rate_notes(link: LinkRow, bandwidth: Bandwidth) -> list[str]:
    """The notes behind the rate used: the datasheet note, plus NCCL's for a usable rate."""
    notes = [link.source_note]
    if bandwidth == "effective" and has_effective(link):
        notes.append(NCCL_NOTE)
    return notes


def latency_note(link: LinkRow) -> str:
    return STORAGE_NOTE if link.scope == "storage" else NCCL_NOTE


def node_link(gpu_name: str, field: str = "gpu",
              intra_link: str | None = None) -> tuple[GpuRow, LinkRow]:
    """A GPU product and the link that joins it to the other GPUs of its node (the one the
    user gave as `intra_link`, else the catalog's)."""
    try:
        gpu = catalog().gpus.find(gpu_name)
    except UnknownName as exc:
        raise ToolError(f"{field}: unknown GPU {gpu_name!r}; nearest: {', '.join(exc.nearest)}") \
            from None
    if intra_link:
        return gpu, require_scope(find_link(intra_link, "intra_link"), "intra_node", "intra_link")
    if not gpu.intra_link:
        raise ToolError(f"{field}: the catalog names no intra-node link for {gpu.id!r}; "
                        "give intra_link")
    return gpu, find_link(gpu.intra_link, "intra_link")
