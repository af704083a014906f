"""Fewest GPUs for training, searched by GPU count rather than by layout.

At m·ep GPUs the layouts worth weighing are one per pipeline depth pp: the widest tp the node
and the heads allow, up to m/pp, with dp making up the rest. A narrower tp with twice the dp
holds the same ZeRO-sharded bytes and no less of everything else (every term shrinks with tp),
so it never fits where the wider one does not. More dp only divides, so the least bytes at m
never grow with m, and a GPU shape's answer is the smallest m whose least bytes fit its room.

Each shape starts its walk at a lower bound from the model states and activations, and at no
fewer GPUs than the roomier shape before it needed. At each m it tries pp = 1 first, which is
where ZeRO-3 jobs fit; the deeper pipelines are weighed only when the bound leaves room for
them, once per m.
"""

from __future__ import annotations

import math
from math import ceil, log2

from clusterplan.tools.memory import activations
from clusterplan.tools.memory.fewest_tables import (
    MAX_GPUS,
    Groups,
    derived,
    search_tables,
)
from clusterplan.tools.memory.job import Job
from clusterplan.tools.memory.terms import ModelStates, model_states

# Bounds are scaled by this so that rounding never lifts them above the exact sums they bound.
_BELOW = 1 - 1e-9


def training_whole(job: Job, ep: int, states: ModelStates | None = None) -> tuple[float, float]:
    """Model states of one GPU at tp = pp = 1 (dp = ep: experts spread over the dp ranks;
    `states`, when the caller has them), summed: (bytes every GPU holds, bytes ZeRO divides by
    dp/ep). Model states scale exactly with stage_share(pp)/tp (memory_terms), so every
    layout's follow from these two."""
    w, ws, g, gs, o, os = states or model_states(job, 1, 1, ep)
    return w + g + o, ws + gs + os


def search_training(job: Job, ep: int, groups: Groups, best: list[int | None], fixed1: float,
                    spread1: float) -> None:
    """Fill `best` with each GPU shape's fewest GPUs (left None when none is at most
    MAX_GPUS)."""
    if not groups:
        return
    shape = job.shape
    tps, stages = derived(shape, search_tables, groups[0][0])
    per_tp: dict[int, tuple[float, float]] = {}
    in_flight, scale, layers = job.in_flight, job.activation_scale, shape.layers
    first = in_flight or 1  # the micro-batches a single stage holds
    spread = spread1 / ep  # at pp = 1, m·ep GPUs hold spread/m each of the sharded states
    # Per GPU at m·ep GPUs, whatever the layout: model states of at least (fixed1 + spread)/m
    # (one GPU's share of the layers is at least 1/(tp·pp)), and activations of at least the
    # widest tp's per layer times the fewest layers a stage can hold (every layer when each
    # stage keeps as many micro-batches as there are stages).
    states = (fixed1 + spread) * _BELOW
    held_layers = stages[-1][1] * in_flight if in_flight else layers
    for node, _, _, rooms in groups:
        top_tp = 1 << (node.bit_length() - 1)  # the widest tp within the node (min() is slower)
        if tps[-1] < top_tp:
            top_tp = tps[-1]
        per_layer, working = per_tp.get(top_tp) or _layer_bytes(job, per_tp, top_tp)
        acts = (per_layer * held_layers + working) * scale * _BELOW
        floor = acts + fixed1 * stages[-1][2] / top_tp * _BELOW  # no dp goes below it
        base = fixed1 / top_tp + (per_layer * layers * first + working) * scale  # pp = 1
        deeper: dict[int, float] = {}  # m -> least bytes at m·ep GPUs with pp > 1
        m, held = 1, math.inf  # held: the least bytes found of a layout of m·ep GPUs
        for i, room in rooms:  # roomiest first: m never shrinks
            if room <= floor:
                break
            if held > room:  # what held the roomier shapes does not hold this one
                bound = states / (room - acts)
                if bound > m:
                    m = 1 << ceil(log2(bound))
                    if m * ep > MAX_GPUS:
                        break  # this shape and every smaller one need more than MAX_GPUS
                held = base + spread / m if m >= top_tp else math.inf
                while held > room:  # not the common case: walk on
                    if m * ep > MAX_GPUS:
                        break
                    tp = m if m < top_tp else top_tp
                    per_layer, working = per_tp.get(tp) or _layer_bytes(job, per_tp, tp)
                    # pp = 1, tp as wide as m and the node allow, dp the rest
                    held = fixed1 / tp + (per_layer * layers * first + working) * scale \
                        + spread / m
                    if held > room and states / m + (per_layer * held_layers + working) \
                            * scale * _BELOW <= room:
                        least = deeper.get(m)
                        if least is None:
                            least = deeper[m] = _least_deeper(m, top_tp, ep, stages, job,
                                                              per_tp, fixed1, spread1)
                        held = min(held, least)
                    if held > room:
                        m <<= 1
                if held > room:
                    break  # as above
            best[i] = m * ep


def _layer_bytes(job: Job, per_tp: dict[int, tuple[float, float]], tp: int) -> tuple[float, float]:
    """(bytes one layer keeps, the working set full recompute adds once) at `tp`: the two
    layout-independent parts of activations.training_bytes, kept in `per_tp` once worked out
    (most answers need one or two of the four tps)."""
    s = job.shape
    pair = per_tp[tp] = activations.layer_bytes(job.seq_len, job.micro_batch, s.hidden, s.heads,
                                                tp, job.sequence_parallel, job.recompute,
                                                job.flash, activations.split_units(s))
    return pair


def _least_deeper(m: int, top_tp: int, ep: int, stages: tuple[tuple[int, int, float], ...],
                  job: Job, per_tp: dict[int, tuple[float, float]], fixed1: float,
                  spread1: float) -> float:
    """The least bytes on the busiest GPU of any layout of m·ep GPUs with pp > 1: for each pp
    up to m, tp as wide as allowed and dp = ep·m/(tp·pp); activations.training_bytes term for
    term (inf when m = 1 has no such layout)."""
    least, in_flight, scale = math.inf, job.in_flight, job.activation_scale
    for pp, stage_layers, stage_share in stages[1:m.bit_length()]:
        tp = min(top_tp, m // pp)
        share = stage_share / tp
        # The first stage also holds the input embedding whole (terms.first_stage_params):
        # what it adds to each of the two sums, per parameter as they hold them.
        extra = min(job.shape.vocab * job.shape.hidden, job.shape.dense_params) \
            * (1 - stage_share) / tp
        fixed_per, spread_per = _dense_param_bytes(job)
        per_layer, working = per_tp.get(tp) or _layer_bytes(job, per_tp, tp)
        found = fixed1 * share + extra * fixed_per \
            + (per_layer * stage_layers * (in_flight or pp) + working) * scale \
            + (spread1 * share + extra * spread_per) / (ep * (m // (pp * tp)))
        if found < least:
            least = found
    return least


def _dense_param_bytes(job: Job) -> tuple[float, float]:
    """Bytes one dense parameter adds to the two sums of terms.model_states: (held by every
    GPU, divided by dp under ZeRO). A frozen LoRA base adds its weights only."""
    z, w = job.zero_stage, job.weight_bytes
    g = 0.0 if job.adapters else job.grad_bytes
    o = 0.0 if job.adapters or job.optimizer is None else job.optimizer.per_param
    return ((0.0 if z >= 3 else w) + (0.0 if z >= 2 else g) + (0.0 if z >= 1 else o),
            (w if z >= 3 else 0.0) + (g if z >= 2 else 0.0) + (o if z >= 1 else 0.0))
