"""Fewest GPUs for training: a layout may fit only with more data parallelism, so the search
weighs every layout with fewer GPUs than the best so far, and bounds skip most of them.

Model states scale exactly with stage_share(pp)/tp (memory_terms), so they are computed once at
tp = pp = 1 and scaled; activations are activations.training_bytes, term for term.
"""

from __future__ import annotations

import math

from clusterplan.tools import activations
from clusterplan.tools.memory_fewest_tables import (
    MAX_GPUS,
    Groups,
    derived,
    layouts_by_tp,
    tp_degrees,
)
from clusterplan.tools.memory_job import Job
from clusterplan.tools.memory_terms import model_states


def training_whole(job: Job, ep: int) -> tuple[float, float]:
    """Model states of one GPU at tp = pp = 1 (dp = ep: experts spread over the dp ranks),
    summed: (bytes every GPU holds, bytes ZeRO divides by dp/ep)."""
    w, ws, g, gs, o, os = model_states(job, 1, 1, ep)
    return w + g + o, ws + gs + os


# n GPUs (ep·2^k) with n·(1 - 1e-12) >= need·GPUs for a layout (log2 is faithful to its last
# bit); so a layout, or a tp's layouts, whose need·GPUs exceeds half the best so far (the next
# smaller count), or MAX_GPUS, cannot improve on it. The margins keep rounding on the safe side.
_MARGIN = 1 + 1e-9
_BELOW = 1 - 1e-9  # a lower bound of a tp's fixed bytes, below any rounding of the exact sum


def search_training(job: Job, ep: int, groups: Groups, best: list[int | None], fixed1: float,
                    spread1: float) -> None:
    """Training: a layout may fit only with more data parallelism, so every layout with fewer
    tp·pp·ep than the best so far is a candidate. A GPU shape skips a tp whose bytes, bounded
    below, cannot beat its best; a tp's layouts beyond pp = 1 are computed when first walked."""
    if not groups:
        return
    shape, widest = job.shape, groups[0][0]
    per_tp = activations.training_per_tp(
        job.seq_len, job.micro_batch, shape.hidden, shape.heads,
        derived(shape, tp_degrees, widest), job.sequence_parallel, job.recompute, job.flash)
    by_tp = []  # [its fewest GPUs, least fixed bytes (bounded below), rows so far, tp, layouts
    #              not yet rows]: rows start with pp = 1; a shape walking past it computes the rest
    scale, in_flight = job.activation_scale, job.in_flight
    for tp, layouts, least_share, least_layers in derived(shape, layouts_by_tp, widest):
        if tp * ep > MAX_GPUS:
            break
        per_layer, working = per_tp[tp]
        held = least_layers * in_flight if in_flight else shape.layers  # ceil(L/pp)·pp >= L
        least = (fixed1 * least_share + (per_layer * held + working) * scale) * _BELOW
        _, pp, share, stage_layers = layouts[0]
        first = (tp * ep, fixed1 * share + (per_layer * stage_layers * (in_flight or pp)
                                             + working) * scale, spread1 * share)
        by_tp.append([tp * ep, least, [first], tp, layouts[1:]])
    none = MAX_GPUS + 1  # fewer than this, or nothing fits
    for node, order, rooms in groups:
        allowed = [entry for entry in by_tp if entry[3] <= node]
        # Least room first: whatever holds the job in less room holds it in more (the same
        # layouts, each needing no more data parallelism), so each shape starts from the best
        # of the one before and looks only for fewer GPUs than that.
        fewest = none
        for i, room in zip(reversed(order), reversed(rooms), strict=True):
            cut = fewest * 0.5 * _MARGIN if fewest < none else MAX_GPUS * _MARGIN
            for entry in allowed:
                if entry[0] >= fewest:
                    break
                least = entry[1]
                if least >= room:
                    continue
                bound = spread1 / (room - least)  # need·GPUs of every layout of this tp, at least
                if bound > cut:
                    continue
                rows = entry[2]
                while True:  # walk the rows so far; past their end, compute the rest and go on
                    for gpus, fixed, spread in rows:
                        if gpus >= fewest:
                            break
                        if fixed >= room:
                            continue
                        # GPUs when dp = ep·2^k is the smallest that makes fixed + spread/dp fit
                        need = spread / (room - fixed) / ep
                        if need <= 1:
                            fewest, cut = gpus, gpus * 0.5 * _MARGIN
                            break
                        if need * gpus <= cut:
                            n = gpus * (1 << math.ceil(math.log2(need)))
                            if n < fewest:
                                fewest, cut = n, n * 0.5 * _MARGIN
                                if bound > cut:
                                    break
                    else:
                        if entry[4]:
                            rows = _training_rows(job, ep, entry[4], per_tp[entry[3]], fixed1,
                                                  spread1)
                            entry[2], entry[4] = entry[2] + rows, ()
                            continue
                    break
            if fewest < none:
                best[i] = fewest


def _training_rows(job: Job, ep: int, layouts: tuple[tuple[int, int, float, int], ...],
                   parts: tuple[float, float], fixed1: float,
                   spread1: float) -> list[tuple[int, float, float]]:
    """(GPUs, bytes every GPU holds, bytes divided by dp/ep) of one tp's layouts, pp ascending:
    activations.training_bytes term for term from the per-tp parts (the working set is 0.0
    unless full recompute adds it)."""
    per_layer, working = parts
    scale, in_flight = job.activation_scale, job.in_flight
    return [(mp * ep, fixed1 * share + (per_layer * stage_layers * (in_flight or pp) + working)
             * scale, spread1 * share)
            for mp, pp, share, stage_layers in layouts if mp * ep <= MAX_GPUS]


