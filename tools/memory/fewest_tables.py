"""Layout tables the fewest-GPU search derives from a model's shape alone, built once per shape.

A layout is a power-of-two tp within a node (splitting the heads) times a power-of-two pp up to
the layer count; the tables list each one's GPUs and the shares of the model one GPU holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from clusterplan.tools.memory import kv_cache
from clusterplan.tools.memory.job import tp_problem
from clusterplan.tools.memory.model_shape import ModelShape

MAX_GPUS = 1 << 20
# GPU shapes grouped by node size, widest first: (node size, shape indices roomiest first,
# their rooms in bytes, and (index, room) pairs in the same order).
Groups = tuple[tuple[int, tuple[int, ...], tuple[float, ...], tuple[tuple[int, float], ...]], ...]


def derived(shape: ModelShape, table: Callable[[ModelShape, int], Any], widest_tp: int) -> Any:
    """table(shape, widest_tp), kept in the shape's own memo (no hashing of the shape)."""
    key = (table, widest_tp)
    found = shape.derived.get(key)
    if found is None:
        found = shape.derived[key] = table(shape, widest_tp)
    return found


ServingLayouts = tuple[tuple[int, int, float, float, float], ...]


@lru_cache(maxsize=256)
def serving_layouts(shape: ModelShape, widest_tp: int) -> ServingLayouts:
    """(tp·pp, tp, model-state share, KV share, embedding params) of the layouts worth trying
    for serving, fewest GPUs first: power-of-two tp and pp, and at the node's widest tp any
    stage count, as serving engines split layers over whole nodes unevenly (vLLM), so 70B on
    4-GPU nodes needs 3 nodes, not 4; the shares are what one GPU holds
    (stage_share/tp, kv_cache.per_gpu_share), and the embedding params what the first stage
    holds beyond its share (terms.first_stage_params, over tp).

    A serving GPU holds weights·share + embedding + KV cache·KV share + activations(tp), and
    activations never grow with tp. So a layout is left out when another uses no more GPUs, no
    narrower tp and no larger share of any: whenever the one left out fits, that one fits too.
    """
    every = sorted(((tp * pp, tp, _layer_share(shape, pp) / tp,
                     kv_cache.per_gpu_share(shape, tp, pp), _embedding_excess(shape, pp) / tp)
                    for tp in tp_degrees(shape, widest_tp)
                    for pp in _stage_counts(shape.layers, tp == widest_tp)),
                   key=lambda layout: (layout[0], -layout[1]))  # a dominating layout first
    kept: list[tuple[int, int, float, float, float]] = []
    for layout in every:
        gpus, tp, share, kv_share, extra = layout
        if not any(g <= gpus and t >= tp and s <= share and k <= kv_share and e <= extra
                   for g, t, s, k, e in kept):
            kept.append(layout)
    return tuple(kept)


def _stage_counts(layers: int, whole_node: bool) -> list[int]:
    """Pipeline depths: powers of two, and every count up to the layers at a whole node's tp."""
    return list(range(1, layers + 1)) if whole_node else _powers(layers)


def _layer_share(shape: ModelShape, pp: int) -> float:
    return math.ceil(shape.layers / pp) / shape.layers


def _embedding_excess(shape: ModelShape, pp: int) -> float:
    """Parameters the first stage holds beyond its share of the layers: the rest of the input
    embedding (megatron-lm-2021#first-stage-embedding; terms.first_stage_params)."""
    if pp == 1:
        return 0.0
    return min(shape.vocab * shape.hidden, shape.dense_params) * (1 - _layer_share(shape, pp))


@lru_cache(maxsize=256)  # a params_b shape is a new object per answer: its memo starts empty
def search_tables(shape: ModelShape, widest_tp: int) -> tuple[tuple[int, ...], Stages]:
    """What the training search needs of the shape: `tp_degrees` (a prefix of the powers of
    two: a power of two that splits the heads and KV heads, halved, still does), and for every
    power-of-two pp up to the layer count, pp ascending: (pp, layers of the busiest stage, its
    share of the layers)."""
    stages = tuple((pp, math.ceil(shape.layers / pp), math.ceil(shape.layers / pp) / shape.layers)
                   for pp in _powers(shape.layers))
    return tp_degrees(shape, widest_tp), stages


Stages = tuple[tuple[int, int, float], ...]


@lru_cache(maxsize=256)
def tp_degrees(shape: ModelShape, widest_tp: int) -> tuple[int, ...]:
    """The tensor-parallel degrees the layouts use: powers of two within a node that split
    the heads."""
    return tuple(t for t in _powers(widest_tp) if tp_problem(shape, t) is None)


def _powers(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out


