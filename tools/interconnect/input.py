"""What the interconnect tool takes: the operation, sizes with units, ranks and links."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from clusterplan.tools.contract import ToolInput
from clusterplan.tools.units import UnitError, parse

Op = Literal["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
             "send_recv", "transfer", "convert", "compare"]


class InterconnectInput(ToolInput):
    """One question about links: a collective's time, a transfer, a conversion, a comparison."""

    op: Op = Field(description="what to compute")
    size: str | None = Field(default=None, description=(
        "data size with its unit: '140 GB', '2 GiB', '10 TB'. For all_gather the gathered "
        "result, for reduce_scatter its input, for all_to_all what each rank sends "
        "(as nccl-tests counts them)"))
    size_gb: float | None = Field(default=None, gt=0, description="size in decimal GB (1e9 B)")
    ranks: int | None = Field(default=None, description="GPUs taking part (2 or more)")
    gpus_per_node: int | None = Field(default=None, ge=1, description=(
        "GPUs of each node taking part; ranks fill nodes in order (default: the GPU's node "
        "size, else 8, at most ranks)"))
    gpu: str | None = Field(default=None, description=(
        "a GPU product; its node link becomes the default intra_link"))
    intra_link: str | None = Field(default=None, description=(
        "link inside a node: nvlink-3/4/5, pcie-4/5, infinity-fabric (or 'NVLink 4', ...)"))
    inter_link: str | None = Field(default=None, description=(
        "link between nodes: ib-hdr/ndr/xdr, roce-100/200/400, eth-25/100 ('IB NDR', ...)"))
    nics_per_node: int | None = Field(default=None, ge=1, description=(
        "network ports per node (default: one per GPU, as on HGX)"))
    algorithm: Literal["ring", "tree", "hierarchical", "auto"] = Field(
        default="auto", description="collective algorithm; auto takes the fastest")
    bandwidth: Literal["line_rate", "effective"] | None = Field(default=None, description=(
        "line_rate: datasheet rate per direction; effective: NCCL's usable per-link rate "
        "(default: effective for collectives and transfers, line_rate for compare)"))
    include_latency: bool = Field(default=True, description="add alpha (latency) per step")
    link: str | None = Field(default=None, description=(
        "transfer path: local-nvme, parallel-fs, object-storage, wan-10g, any link id, "
        "or a rate such as '10 Gb/s'"))
    parallel_links: int = Field(default=1, ge=1, description=(
        "transfer: how many such paths carry the data at once (drives, nodes)"))
    value: str | None = Field(default=None, description="convert: a quantity, '400 Gb/s'")
    to: str | None = Field(default=None, description="convert: the target unit, 'GB/s'")
    links: list[str] | None = Field(default=None, min_length=2, max_length=2, description=(
        "compare: two link ids, compared per direction per GPU"))

    @field_validator("size")
    @classmethod
    def _size_is_bytes(cls, text: str | None) -> str | None:
        if text is not None:
            size_bytes(text)
        return text

    @field_validator("ranks")
    @classmethod
    def _at_least_two(cls, ranks: int | None) -> int | None:
        if ranks is not None and ranks < 2:
            raise ValueError(f"a collective needs at least 2 ranks, got {ranks}")
        return ranks


def size_bytes(text: str) -> float:
    """Bytes in '140 GB' or '2 GiB'; a wrong unit or a size of 0 or less is a ValueError."""

    try:
        quantity = parse(text, "B")
    except UnitError as exc:
        raise ValueError(f"{exc}; write a size like '140 GB' or '2 GiB'") from None
    value = float(quantity.to("B").magnitude)
    if value <= 0:
        raise ValueError(f"{text!r} is not a size above 0")
    return value
