"""What the interconnect tool returns: times in s, rates in decimal GB/s one way."""

from __future__ import annotations

from pydantic import BaseModel, Field

from clusterplan.tools.contract import ToolResult


class PhaseOut(BaseModel):
    """One stage of the operation: bytes each GPU sends over one link, and how long it takes."""

    name: str
    link: str
    size_gb: float
    bandwidth_gbps: float
    steps: int
    latency_s: float
    time_s: float


class Candidate(BaseModel):
    algorithm: str
    time_s: float


class LinkFigures(BaseModel):
    """A link's rates per direction and both ways, and how its datasheet quotes it."""

    id: str
    name: str
    per_direction_gbps: float
    bidirectional_gbps: float
    line_rate_per_direction_gbps: float
    effective_per_direction_gbps: float | None
    marketed_gbps: float
    marketed_as: str
    latency_us: float


class InterconnectResult(ToolResult):
    """Times in s, rates in decimal GB/s one way (busbw/algbw as nccl-tests reports them)."""

    op: str
    time_s: float | None = None
    algbw_gbps: float | None = None
    busbw_gbps: float | None = None
    bus_factor: float | None = None
    bottleneck: str | None = None
    algorithm: str | None = None
    bandwidth: str | None = None
    phases: list[PhaseOut] = Field(default_factory=list)
    candidates: list[Candidate] = Field(default_factory=list)
    size_gb: float | None = None
    ranks: int | None = None
    nodes: int | None = None
    gpus_per_node: int | None = None
    nics_per_node: int | None = None
    value: float | None = None
    unit: str | None = None
    ratio: float | None = None
    marketed_ratio: float | None = None
    links: list[LinkFigures] = Field(default_factory=list)
    explanation: str = ""
