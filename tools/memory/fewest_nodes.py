"""Fewest GPUs of a multi-node training job counted in whole nodes, not powers of two.

The power-of-two search (fewest_training) answers 64 where 7 nodes of 8 already hold the job
(BLOOM-176B full fine-tuning on H100: tp 8, pp 7 needs 81.4 GB a GPU). A cluster is bought
and rented by the node, so a multi-node answer is lowered here to the fewest whole nodes
between the power of two below it and it, any layout of those GPUs counted: tp a power of two
within the node (splitting the heads), pp any divisor of the rest up to the layer count, dp
what is left (a multiple of ep), the busiest GPU summed term by term (memory_terms.per_gpu).
"""

from __future__ import annotations

from functools import lru_cache

from clusterplan.tools.memory import activations
from clusterplan.tools.memory.fewest_tables import Groups, derived, tp_degrees
from clusterplan.tools.memory.job import Job, Layout
from clusterplan.tools.memory.terms import per_gpu

_BELOW = 1 - 1e-9  # bounds scaled down so rounding never lifts them above the sums they bound


def lower_to_whole_nodes(job: Job, ep: int, groups: Groups, best: list[int | None],
                         fixed1: float, spread1: float) -> None:
    """Lower each answer above one node to the fewest whole nodes that hold the job, when
    fewer than the power of two found do (a repeated question is answered from a memo)."""
    best[:] = _lowered(job, ep, groups, tuple(best), fixed1, spread1)


@lru_cache(maxsize=1024)
def _lowered(job: Job, ep: int, groups: Groups, found: tuple[int | None, ...], fixed1: float,
             spread1: float) -> tuple[int | None, ...]:
    """The counts of `found` lowered to whole nodes.

    `fixed1` and `spread1` are one GPU's model states at tp = pp = 1 (training_whole): on g
    GPUs no layout holds less than (fixed1 + spread1/ep)·ep/g of them, nor fewer activations
    than one layer's at the widest tp (times the micro-batches in flight), so the counts below
    that bound are not priced at all."""
    best = list(found)
    states = (fixed1 + spread1 / ep) * ep * _BELOW
    for node, _, _, rooms in groups:
        tps = derived(job.shape, tp_degrees, node)  # tp within this node size only
        per_layer, working = activations.layer_bytes(
            job.seq_len, job.micro_batch, job.shape.hidden, job.shape.heads, tps[-1],
            job.sequence_parallel, job.recompute, job.flash, activations.split_units(job.shape))
        held = job.in_flight or job.shape.layers  # pp = layers: one layer a stage
        acts = (per_layer * held + working) * job.activation_scale * _BELOW
        floor = node  # a kind with less room never needs fewer GPUs (rooms: roomiest first)
        for i, room in rooms:
            power = best[i]
            if power is None or power <= node or room <= acts:
                continue
            first = max(power // 2 // node + 1, int(states / (room - acts)) // node,
                        floor // node)
            for nodes in range(first, -(-power // node)):
                if _fits(job, ep, nodes * node, tps, room):
                    best[i] = nodes * node
                    break
            floor = best[i] or floor
    return tuple(best)


def _fits(job: Job, ep: int, gpus: int, tps: tuple[int, ...], room: float) -> bool:
    """Whether some layout of `gpus` GPUs holds the job within `room` bytes (overhead left
    out, as the room has it taken off), widest tp and shallowest pipeline first."""
    for tp in reversed(tps):
        if gpus % tp:
            continue
        rest = gpus // tp
        for pp in range(1, min(rest, job.shape.layers) + 1):
            if rest % pp or (rest // pp) % ep:
                continue
            parts = per_gpu(job, Layout(dp=rest // pp, tp=tp, pp=pp, ep=ep))
            if parts.total - parts.overhead <= room:
                return True
    return False
