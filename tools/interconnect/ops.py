"""The four kinds of interconnect question: collective, transfer, convert and compare."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clusterplan.db.rows import LinkRow
from clusterplan.tools.contract import Step, ToolError, q
from clusterplan.tools.interconnect import DEFAULT_GPUS_PER_NODE
from clusterplan.tools.interconnect.collectives import GB, collective_time
from clusterplan.tools.interconnect.input import size_bytes
from clusterplan.tools.interconnect.links import (
    bidirectional_gb_s,
    find_link,
    has_effective,
    marketed_as,
    marketed_gb_s,
    node_link,
    per_direction_gb_s,
    rate_notes,
    require_scope,
)
from clusterplan.tools.interconnect.result import (
    Candidate,
    InterconnectResult,
    LinkFigures,
    PhaseOut,
)
from clusterplan.tools.units import UnitError, parse, read_unit

if TYPE_CHECKING:
    from clusterplan.tools.interconnect.input import InterconnectInput

DEFAULT_INTRA, DEFAULT_INTER = "nvlink-4", "ib-ndr"


def _size(inp: InterconnectInput) -> float:
    if inp.size is not None:
        return size_bytes(inp.size)
    if inp.size_gb is not None:
        return inp.size_gb * GB
    raise ToolError(f"size: {inp.op} needs a size, e.g. '140 GB' (or size_gb)")


def _size_step(inp: InterconnectInput, size: float) -> Step:
    given = q(inp.size) if inp.size is not None else q(inp.size_gb, "GB")
    return Step(label="read the size", formula="decimal GB = bytes / 1e9 (GiB = 2^30 bytes)",
                inputs={"size": given}, result=q(size / GB, "GB"))


def collective(inp: InterconnectInput) -> InterconnectResult:
    """Time of one collective on the ranks and links given, with the fastest algorithm if auto."""
    size, assumed = _size(inp), []
    if inp.ranks is None:
        raise ToolError(f"ranks: {inp.op} needs the number of GPUs taking part (2 or more)")
    gpu = node = None
    if inp.gpu:
        gpu, node = node_link(inp.gpu, intra_link=inp.intra_link)
    # A "node" here is what the intra-node link joins: a GB200 NVL72 rack is one of 72.
    node_size = max(gpu.gpus_per_node, gpu.nvlink_domain_gpus) if gpu else DEFAULT_GPUS_PER_NODE
    g = inp.gpus_per_node or min(node_size, inp.ranks)
    if inp.gpus_per_node is None:
        assumed.append(f"{g} GPUs per node take part (ranks fill nodes in order)")
    if g > inp.ranks:
        raise ToolError(f"gpus_per_node: {g} is more than ranks ({inp.ranks}); give the GPUs "
                        f"per node that take part, at most {inp.ranks}")
    if inp.ranks % g:
        raise ToolError(f"ranks: {inp.ranks} does not fill nodes of {g} GPUs; give a multiple "
                        f"of gpus_per_node or change gpus_per_node")
    intra = _intra(inp, node, assumed)
    if gpu is not None and gpu.intra_link and intra.id == gpu.pair_link \
            and g > gpu.nvlink_domain_gpus:
        # a bridge joins pairs only: wider rings meet over the node's own link
        assumed.append(f"{intra.id} joins {gpu.nvlink_domain_gpus} GPUs; {g} in a node meet "
                       f"over {gpu.intra_link}")
        intra = find_link(gpu.intra_link, "intra_link")
    nodes = inp.ranks // g
    inter = _inter(inp, nodes, assumed)
    nics = inp.nics_per_node or g
    if nodes > 1 and inp.nics_per_node is None:
        assumed.append(f"{nics} network ports per node, one per GPU (HGX)")
    bandwidth = inp.bandwidth or "effective"
    if inp.bandwidth is None:
        assumed.append("effective bandwidth: NCCL's usable per-link rates, not datasheet rates")
    ct = collective_time(inp.op, size, inp.ranks, g, intra, inter, nics, inp.algorithm,
                         bandwidth, inp.include_latency)
    result = InterconnectResult(
        op=inp.op, time_s=ct.time_s, algbw_gbps=ct.algbw_gbps, busbw_gbps=ct.busbw_gbps,
        bus_factor=ct.bus_factor, bottleneck=ct.bottleneck, algorithm=ct.algorithm,
        bandwidth=bandwidth, size_gb=size / GB, ranks=inp.ranks, nodes=nodes,
        gpus_per_node=g, nics_per_node=nics if nodes > 1 else None,
        phases=[_phase(p) for p in ct.phases],
        candidates=[Candidate(algorithm=a, time_s=t) for a, t in ct.candidates.items()],
        steps=[_size_step(inp, size), *ct.steps], assumptions=assumed,
        explanation=_collective_text(ct))
    result.warnings += _collective_warnings(ct, inp)
    return result


def _intra(inp: InterconnectInput, node: LinkRow | None, assumed: list[str]) -> LinkRow:
    if inp.intra_link:
        return require_scope(find_link(inp.intra_link, "intra_link"), "intra_node", "intra_link")
    if node is not None:
        assumed.append(f"intra-node link {node.id}, the node link of {inp.gpu}")
        return node
    assumed.append(f"intra-node link {DEFAULT_INTRA} (an HGX H100/H200 node)")
    return find_link(DEFAULT_INTRA)


def _inter(inp: InterconnectInput, nodes: int, assumed: list[str]) -> LinkRow | None:
    if inp.inter_link:
        return require_scope(find_link(inp.inter_link, "inter_link"), "inter_node", "inter_link")
    if nodes == 1:
        return None
    assumed.append(f"inter-node link {DEFAULT_INTER}")
    return find_link(DEFAULT_INTER)


def _phase(p) -> PhaseOut:
    return PhaseOut(name=p.name, link=p.link, size_gb=p.size_bytes / GB,
                    bandwidth_gbps=p.bandwidth_gb_s, steps=p.steps, latency_s=p.latency_s,
                    time_s=p.time_s)


def _collective_text(ct) -> str:
    return (f"{ct.op} of {ct.size_bytes / GB:.4g} GB over {ct.fabric.ranks} GPUs "
            f"({ct.fabric.nodes} node(s)) takes {ct.time_s:.4g} s with {ct.algorithm}; "
            f"bottleneck {ct.bottleneck}.")


def _collective_warnings(ct, inp: InterconnectInput) -> list[str]:
    f, warnings = ct.fabric, []
    missing = [link.id for link in (f.intra, f.inter) if link is not None
               and f.bandwidth == "effective" and not has_effective(link)]
    if missing:
        warnings.append(f"no usable-rate figure for {', '.join(missing)}: using the datasheet "
                        "line rate, which real transfers do not reach")
    if f.nodes > 1 and ct.algorithm == "tree":
        link, bw, _ = f.slowest_hop()
        warnings.append(f"a tree that spans nodes runs at the speed of its slowest hop: "
                        f"{bw:.4g} GB/s per GPU over {link}; hierarchical keeps most bytes on "
                        "the intra-node link")
    elif f.nodes > 1 and ct.algorithm == "ring" and f.inter is not None:
        link, bw, _ = f.ring_hop(ct.op)
        if link == f.inter.id:
            warnings.append(f"a ring that spans nodes runs at the node's network: {bw:.4g} GB/s "
                            f"through its {f.nics_per_node} {link} port(s), below the "
                            f"{f.intra_gb_s:.4g} GB/s of a GPU's own link")
    if f.nodes == 1 and inp.inter_link:
        warnings.append("all ranks sit on one node: inter_link is not used")
    return warnings


def transfer(inp: InterconnectInput) -> InterconnectResult:
    """Bulk transfer time: bytes / (rate of the path x paths in parallel)."""
    size = _size(inp)
    if not inp.link:
        raise ToolError("link: give the path, e.g. local-nvme, parallel-fs, object-storage, "
                        "wan-10g, or a rate such as '10 Gb/s'")
    bandwidth = inp.bandwidth or "effective"
    link, rate, latency_s, notes, label = _path(inp.link, bandwidth)
    total = rate * inp.parallel_links
    time_s = latency_s + size / (total * GB)
    steps = [_size_step(inp, size),
             Step(label=f"rate of {label}", formula="one direction × paths in parallel",
                  inputs={"rate": q(rate, "GB/s"), "paths": q(inp.parallel_links)},
                  result=q(total, "GB/s"), notes=notes),
             Step(label="transfer time", formula="t = latency + S / B",
                  inputs={"S": q(size / GB, "GB"), "B": q(total, "GB/s")},
                  result=q(time_s, "s"), notes=notes)]
    phase = PhaseOut(name="transfer", link=label, size_gb=size / GB, bandwidth_gbps=total,
                     steps=1, latency_s=latency_s, time_s=time_s)
    result = InterconnectResult(
        op="transfer", time_s=time_s, algbw_gbps=size / time_s / GB,
        busbw_gbps=size / time_s / GB, bus_factor=1.0, bottleneck=label, bandwidth=bandwidth,
        size_gb=size / GB, phases=[phase], steps=steps,
        explanation=f"{size / GB:.4g} GB over {label} at {total:.4g} GB/s takes "
                    f"{time_s:.4g} s ({time_s / 3600:.3g} h).")
    if link is not None and bandwidth == "effective" and not has_effective(link):
        result.assumptions.append(f"{link.id}: its datasheet or measured rate is the usable rate")
    if inp.parallel_links == 1:
        result.assumptions.append("one path carries the data (parallel_links = 1)")
    return result


def _path(text: str, bandwidth: str) -> tuple[LinkRow | None, float, float, list[str], str]:
    """A catalog link, or a bare rate like '10 Gb/s': (row, GB/s, latency s, notes, label)."""
    try:
        link = find_link(text, "link")
    except ToolError as unknown:
        try:
            rate = float(parse(text, "GB/s").to("GB/s").magnitude)
        except UnitError:
            raise unknown from None
        if rate <= 0:
            raise ToolError(f"link: {text!r} is not a rate above 0") from None
        return None, rate, 0.0, [], text
    notes = [*rate_notes(link, bandwidth)]
    return link, per_direction_gb_s(link, bandwidth), link.latency_us * 1e-6, notes, link.id


def convert(inp: InterconnectInput) -> InterconnectResult:
    """A quantity in another unit of the same kind, through pint: 400 Gb/s is 50 GB/s."""

    if not inp.value or not inp.to:
        raise ToolError("value, to: convert needs value ('400 Gb/s') and to ('GB/s')")
    try:
        read_unit(inp.to)
    except UnitError:
        raise ToolError(f"to: cannot read {inp.to[:40]!r} as a unit; write one like 'GB/s', "
                        "'Gb/s', 'GiB', 'TB'") from None
    try:
        value = float(parse(inp.value, inp.to).to(inp.to).magnitude)
    except UnitError as exc:
        raise ToolError(f"value: {exc}") from None
    bits = ("b" in inp.value.split()[-1]) != ("b" in inp.to)  # Gb/s against GB/s
    step = Step(label="convert units", formula="SI prefixes are powers of 10, Ki/Mi/Gi powers "
                "of 2; a byte is 8 bits", inputs={"value": q(inp.value)},
                result=q(value, inp.to), notes=["infiniband-rates#bits-and-bytes"] if bits else [])
    return InterconnectResult(op="convert", value=value, unit=inp.to, steps=[step],
                              explanation=f"{inp.value} = {value:.6g} {inp.to}")


def compare(inp: InterconnectInput) -> InterconnectResult:
    """Two links per direction per GPU, and what their marketed figures would wrongly suggest."""
    if not inp.links:
        raise ToolError("links: compare needs two link ids, e.g. ['nvlink-4', 'ib-ndr']")
    a, b = (find_link(name, "links") for name in inp.links)
    bandwidth = inp.bandwidth or "line_rate"
    pa, pb = per_direction_gb_s(a, bandwidth), per_direction_gb_s(b, bandwidth)
    ratio, marketed_ratio = pa / pb, marketed_gb_s(a) / marketed_gb_s(b)
    steps = [Step(label=f"{x.id} per direction per GPU", formula=f"marketed {marketed_as(x)}",
                  inputs={"marketed": q(marketed_gb_s(x), "GB/s")}, result=q(p, "GB/s"),
                  notes=rate_notes(x, bandwidth)) for x, p in ((a, pa), (b, pb))]
    steps.append(Step(label="ratio per direction per GPU", formula="a / b",
                      inputs={"a": q(pa, "GB/s"), "b": q(pb, "GB/s")}, result=q(ratio, ":1")))
    result = InterconnectResult(op="compare", ratio=ratio, marketed_ratio=marketed_ratio,
                                bandwidth=bandwidth, links=[_figures(x, bandwidth) for x in (a, b)],
                                steps=steps, explanation=_compare_text(a, b, pa, pb))
    if inp.bandwidth is None:
        result.assumptions.append("line_rate: datasheet rates compared per direction")
    if {a.scope, b.scope} == {"intra_node", "inter_node"}:
        result.assumptions.append("one network port per GPU, as on HGX nodes")
    return result


def _figures(link: LinkRow, bandwidth: str) -> LinkFigures:
    return LinkFigures(
        id=link.id, name=link.name, per_direction_gbps=per_direction_gb_s(link, bandwidth),
        bidirectional_gbps=bidirectional_gb_s(link, bandwidth),
        line_rate_per_direction_gbps=link.line_rate_per_direction_gb_s,
        effective_per_direction_gbps=link.effective_per_direction_gb_s,
        marketed_gbps=marketed_gb_s(link), marketed_as=marketed_as(link),
        latency_us=link.latency_us)


def _compare_text(a: LinkRow, b: LinkRow, pa: float, pb: float) -> str:
    ma, mb = marketed_gb_s(a), marketed_gb_s(b)
    per_direction = f"per direction per GPU it is {pa / pb:.3g}:1 ({pa:.4g} vs {pb:.4g} GB/s)"
    if a.marketed_bidirectional == b.marketed_bidirectional:
        return f"Both are quoted the same way; {per_direction}."
    return (f"The marketed figures give {ma / mb:.3g}:1, but {ma:.4g} GB/s for {a.id} counts "
            f"{marketed_as(a)} while {mb:.4g} GB/s for {b.id} counts {marketed_as(b)}: that "
            f"sets a bidirectional figure against a per-direction one; {per_direction}.")

