"""Which providers' nodes come with a fabric between nodes, read from note plan-cluster-fabrics.

A multi-node training job all-reduces gradients every step; over ordinary networking it would
crawl, so the plan search places such a job only on a provider whose inter-node fabric a note
claim states. The claims are looked up in the shipped notes, so removing a claim removes the
provider from the cluster hosts."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from clusterplan.knowledge.notes import shipped_notes

if TYPE_CHECKING:
    from clusterplan.tools.pricing.offers import Offer

NOTE = "plan-cluster-fabrics"
# provider id -> the note's claim that states its fabric
CLAIMS = {"coreweave": "coreweave-ib", "aws": "aws-efa", "azure": "azure-ib",
          "gcp": "gcp-gpudirect"}


@lru_cache(maxsize=1)
def fabric_providers() -> dict[str, str]:
    """Provider id -> 'note#claim' for every provider whose fabric claim is in the note."""
    note = shipped_notes().notes.get(NOTE)
    have = {c.id for c in note.claims} if note else set()
    return {p: f"{NOTE}#{c}" for p, c in CLAIMS.items() if c in have}


def hosts_as_one_cluster(offer: Offer, gpus: int) -> bool:
    """Whether `gpus` rented on this offer make one cluster: they fit one of its nodes, or its
    nodes hold several GPUs and its provider sells the fabric that joins them (a note claim).
    Many single-GPU pods, or instances with no fabric between them, are not a cluster."""
    return gpus <= offer.gpus_per_node or (
        offer.gpus_per_node >= 2 and offer.provider in fabric_providers())
