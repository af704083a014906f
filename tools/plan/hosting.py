"""Which offers can host a cluster, and what renting one costs for a run."""

from __future__ import annotations

import math

from clusterplan.tools.pricing.offers import Offer

# Providers whose 8-GPU nodes are sold with a GPU-to-GPU fabric between nodes (InfiniBand,
# EFA or GPUDirect RDMA), each with the note that says so.
CLUSTER_FABRIC = {
    "coreweave": "plan-cluster-fabrics#coreweave-ib",
    "aws": "plan-cluster-fabrics#aws-efa",
    "azure": "plan-cluster-fabrics#azure-ib",
}
# A commitment is paid for its whole term (pricing-models#break-even); 730 h a month
# (pricing-models#hours-per-month).
TERM_HOURS = {"reserved_1m": 730, "reserved_1y": 8760, "reserved_3y": 26280}
NOT_CLUSTER = ("offer cannot host a multi-node cluster (small unit or no inter-node fabric "
               "on record)")
ANNOUNCED = "offer announced, not yet rentable"
EXCLUDED = "offer excluded by a constraint (provider, region or kind)"


def host_problem(offer: Offer, gpus: int, node_gpus: int) -> str | None:
    """Why `offer` cannot host `gpus` GPUs laid out in nodes of `node_gpus`, or None."""
    if offer.status == "announced":
        return ANNOUNCED
    if gpus <= offer.gpus_per_node:
        return None
    if offer.gpus_per_node != node_gpus or offer.provider not in CLUSTER_FABRIC:
        return NOT_CLUSTER
    return None


def run_cost(offer: Offer, gpus: int, hours: float) -> tuple[int, float, float]:
    """(units rented, billed hours, USD): whole units, a commitment's whole term."""
    units = math.ceil(gpus / offer.gpus_per_node)
    billed = max(hours, TERM_HOURS.get(offer.kind, 0))
    return units, billed, units * offer.gpus_per_node * offer.effective_usd_per_gpu_hour * billed
