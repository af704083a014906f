"""What a serving forward pass costs beyond its reads, compute and TP traffic, charged alike by
the parallelism tool's serving answers and the plan search; and the plan search's term-by-term
step (Phase).

At batch 1 a decode step moves little data, so the fixed costs dominate: each layer launches a
dozen small kernels (norms, rotary, attention, activations) and, with tensor parallelism,
waits on two all-reduces of a few kilobytes each, whose latency is set by the NCCL or custom
kernel rather than by the link's bandwidth. Both were fitted on TensorRT-LLM's batch-1 runs
and checked on NVIDIA NIM's (note serving-latency, claims layer-overhead and small-all-reduce).
"""

from __future__ import annotations

from dataclasses import dataclass

from clusterplan.db.rows import GpuRow, LinkRow
from clusterplan.tools.interconnect.links import find_link

# The median over 62 single-GPU TensorRT-LLM runs (7B-70B; A100, H100, H200, L40, L40S) of
# measured time per token minus reads and maths, per layer.
LAYER_OVERHEAD_S = 54e-6  # serving-latency#layer-overhead

# A small all-reduce's cost beyond the link model, by the link the TP group talks over:
# the median of the same runs at TP 2-8, less the per-layer figure, per all-reduce.
SMALL_ALL_REDUCE_S = {
    "nvlink": 9e-6,  # serving-latency#small-all-reduce
    "infinity_fabric": 9e-6,  # serving-latency#small-all-reduce (taken as NVLink's)
    "pcie": 37e-6,  # serving-latency#small-all-reduce
}


def all_reduce_floor_s(link_kind: str) -> float:
    """A small all-reduce's fixed cost over this kind of link (PCIe's for any other kind: a
    switch or NIC in the path costs at least what a PCIe switch does)."""
    return SMALL_ALL_REDUCE_S.get(link_kind, SMALL_ALL_REDUCE_S["pcie"])


def pass_overhead_s(layers: int, tp: int, link_kind: str) -> float:
    """Fixed seconds of one forward pass (a decode step, or a prefill) of `layers` layers:
    the per-layer kernel cost, and two small all-reduces a layer when tp > 1."""
    per_layer = LAYER_OVERHEAD_S + (2 * all_reduce_floor_s(link_kind) if tp > 1 else 0.0)
    return layers * per_layer


def tp_link_kind(gpu: GpuRow, intra: LinkRow, tp: int) -> str:
    """The link a TP group's all-reduces cross: a bridged pair's NVLink at tp 2 (H100 NVL,
    RTX 3090), else the node's."""
    if tp == 2 and gpu.pair_link:
        return find_link(gpu.pair_link).kind
    return intra.kind


@dataclass(frozen=True)
class Phase:
    """Seconds of one prefill or decode step, by term:
    total = max(weights + KV read, compute) + TP traffic + fixed overhead."""

    weights_s: float
    kv_s: float
    compute_s: float
    comm_s: float
    overhead_s: float

    @property
    def total_s(self) -> float:
        return max(self.weights_s + self.kv_s, self.compute_s) + self.comm_s + self.overhead_s

    @property
    def bound(self) -> str:
        return "memory bandwidth" if self.weights_s + self.kv_s >= self.compute_s else "compute"

    def ms(self) -> dict[str, float]:
        """The terms in milliseconds, as the answer shows them."""
        return {"weights_read_ms": round(self.weights_s * 1e3, 4),
                "kv_read_ms": round(self.kv_s * 1e3, 4),
                "compute_ms": round(self.compute_s * 1e3, 4),
                "tp_comm_ms": round(self.comm_s * 1e3, 4),
                "overhead_ms": round(self.overhead_s * 1e3, 4),
                "total_ms": round(self.total_s * 1e3, 4)}
