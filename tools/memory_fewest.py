"""The fewest GPUs of each catalog kind that hold a job, searching layouts smallest first.

Layouts are powers of two: tp within a node (dividing the heads), pp up to the layer count,
dp a multiple of ep. Model states scale exactly with stage_share(pp)/tp (memory_terms), so
they are computed once and scaled; activations and KV cache use the answer's own functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from clusterplan.tools import activations, memory_kv
from clusterplan.tools.catalog_lookup import active_catalog
from clusterplan.tools.memory_job import Job, Layout, tp_problem
from clusterplan.tools.memory_precision import BYTES
from clusterplan.tools.memory_terms import (
    CUDA_CONTEXT_BYTES,
    FRAGMENTATION,
    model_states,
)
from clusterplan.tools.model_shape import ModelShape

MAX_GPUS = 1 << 20
GpuKinds = tuple[tuple[str, int, float], ...]  # (id, GPUs per node, memory in bytes)


def min_gpus_by_kind(job: Job, ep: int) -> dict[str, int | None]:
    """For every catalog GPU: the fewest that hold the job (None: no layout fits)."""
    gpu_kinds()
    return _min_gpus(job, ep, _kinds[2])


def fewest_gpus(job: Job, ep: int, node_gpus: int, capacity_bytes: float) -> int | None:
    """The fewest GPUs of one kind (node size, memory in bytes) that hold the job."""
    return _min_gpus(job, ep, _kind_table((("gpu", node_gpus, capacity_bytes),)))["gpu"]


def _min_gpus(job: Job, ep: int, table: KindTable) -> dict[str, int | None]:
    """One pass over the layouts, fewest GPUs first: each layout's bytes are computed once and
    compared with the room of every GPU shape (node size, memory) still open."""
    node_of, room_of, shape_of, groups = table
    best: list[int | None] = [None] * len(room_of)
    if job.training:
        one = Layout(dp=ep, tp=1, pp=1, ep=ep)  # experts spread over dp ranks: dp starts at ep
        states = model_states(job, one)
        fixed1 = states[0].fixed + states[1].fixed + states[2].fixed
        spread1 = states[0].spread + states[1].spread + states[2].spread
        layouts = _layouts(job.shape, max(node_of, default=1))
        _search_training(job, ep, layouts, node_of, room_of, best, fixed1, spread1)
    else:
        _search_serving(job, ep, groups, best, *_serving_whole(job, ep))
    return {gid: best[i] for gid, i in shape_of}


def _search_serving(job: Job, ep: int, groups: Groups, best: list[int | None], fixed1: float,
                    kv1: float) -> None:
    """Inference: nothing shrinks with dp, so a shape's first layout that fits is its best.

    Shapes are grouped by node size, roomiest first: walking the layouts a node allows, the
    shapes a layout settles are the front of the group's list still open."""
    if not groups:
        return
    shape = job.shape
    acts_of = activations.inference_bytes_by_tp(
        -(-job.batch // ep) * job.context_len, shape.hidden, shape.heads,
        _derived(shape, _tps, groups[0][0]), job.flash, job.activation_scale)
    for node, order, rooms in groups:
        at, count = 0, len(order)
        room = rooms[0]
        for model_parallel, tp, _, share, kv_share in _derived(shape, _layouts, node):
            fixed = fixed1 * share + acts_of[tp]
            if kv1:
                fixed += kv1 * kv_share
            if fixed < room:
                gpus = model_parallel * ep
                if gpus > MAX_GPUS:
                    break
                best[order[at]] = gpus
                at += 1
                while at < count and fixed < rooms[at]:
                    best[order[at]] = gpus
                    at += 1
                if at == count:
                    break
                room = rooms[at]


def _derived(shape: ModelShape, table: Callable[[ModelShape, int], Any], widest_tp: int) -> Any:
    """table(shape, widest_tp), kept in the shape's own memo (no hashing of the shape)."""
    key = (table, widest_tp)
    found = shape.derived.get(key)
    if found is None:
        found = shape.derived[key] = table(shape, widest_tp)
    return found


def _serving_whole(job: Job, ep: int) -> tuple[float, float]:
    """Weights and KV cache of one GPU at tp = pp = 1 (dp = ep): model_states and kv_bytes
    with their shares, which are exactly 1 there, left out."""
    s = job.shape
    weights = (s.dense_params + s.expert_params / ep) * job.weight_bytes
    tokens = memory_kv.cached_tokens(-(-job.batch // ep), job.context_len, job.paging)
    return weights, memory_kv.bytes_per_token(s, BYTES[job.kv_precision]) * tokens


Groups = tuple[tuple[int, tuple[int, ...], tuple[float, ...]], ...]


def _search_training(job: Job, ep: int, layouts: Layouts, node_of: tuple[int, ...],
                     room_of: tuple[float, ...], best: list[int | None], fixed1: float,
                     spread1: float) -> None:
    """Training: a layout may fit only with more data parallelism. Each layout's bytes are
    computed once; then each GPU shape walks the layouts fewest GPUs first and stops at the
    first whose tp·pp·ep alone reaches its best."""
    ceil, log2 = math.ceil, math.log2
    shape, scale, in_flight, full = job.shape, job.activation_scale, job.in_flight, \
        job.recompute == "full"
    layers = shape.layers
    per_tp = activations.training_per_tp(
        job.seq_len, job.micro_batch, shape.hidden, shape.heads,
        _tps(shape, max(node_of, default=1)), job.sequence_parallel, job.recompute, job.flash)
    rows = []  # (GPUs, tp, bytes every GPU holds, bytes divided by dp/ep)
    for model_parallel, tp, pp, share, _ in layouts:
        gpus = model_parallel * ep
        if gpus > MAX_GPUS:
            break
        # activations.training_bytes, term for term, from the per-tp parts
        per_layer, working = per_tp[tp]
        kept = per_layer * ceil(layers / pp) * (in_flight or pp)
        if full:
            kept += working
        rows.append((gpus, tp, fixed1 * share + kept * scale, spread1 * share))
    none = MAX_GPUS + 1
    for i, room in enumerate(room_of):
        node, fewest = node_of[i], none
        for gpus, tp, fixed, spread in rows:
            if gpus >= fewest:
                break
            if tp > node or fixed >= room:
                continue
            # GPUs when dp = ep·2^k is the smallest that makes fixed + spread/dp fit the room
            need = spread / (room - fixed) / ep
            n = gpus if need <= 1 else gpus * (1 << ceil(log2(need)))
            if n < fewest:
                fewest = n
        best[i] = fewest if fewest < none else None


KindTable = tuple[tuple[int, ...], tuple[float, ...], tuple[tuple[str, int], ...], Groups]


@lru_cache(maxsize=64)
def _kind_table(kinds: GpuKinds) -> KindTable:
    """Distinct GPU shapes: node sizes, usable bytes (memory less the CUDA context, over
    1 + fragmentation), each kind's id with the index of its shape, and the shapes grouped by
    node size (node size, shape indices roomiest first, their rooms)."""
    shapes = list(dict.fromkeys((node, memory) for _, node, memory in kinds))
    node_of = tuple(node for node, _ in shapes)
    room_of = tuple((memory - CUDA_CONTEXT_BYTES) / (1 + FRAGMENTATION) for _, memory in shapes)
    groups = []
    for node in sorted(set(node_of), reverse=True):  # the widest node first
        order = sorted((i for i, n in enumerate(node_of) if n == node), key=lambda i: -room_of[i])
        groups.append((node, tuple(order), tuple(room_of[i] for i in order)))
    return (node_of, room_of, tuple((gid, shapes.index((node, memory)))
                                    for gid, node, memory in kinds), tuple(groups))


Layouts = tuple[tuple[int, int, int, float, float], ...]


@lru_cache(maxsize=256)
def _layouts(shape: ModelShape, widest_tp: int) -> Layouts:
    """(tp·pp, tp, pp, model-state share, KV share) for every valid power-of-two layout, fewest
    GPUs first; the shares are what one GPU holds (stage_share/tp, memory_kv.per_gpu_share)."""
    tps = _tps(shape, widest_tp)
    return tuple((mp, tp, pp, (math.ceil(shape.layers / pp) / shape.layers) / tp,
                  memory_kv.per_gpu_share(shape, tp, pp))
                 for mp, tp, pp in sorted((tp * pp, tp, pp) for tp in tps
                                          for pp in _powers(shape.layers)))


@lru_cache(maxsize=256)
def _tps(shape: ModelShape, widest_tp: int) -> tuple[int, ...]:
    """The tensor-parallel degrees the layouts use: powers of two within a node that split
    the heads."""
    return tuple(t for t in _powers(widest_tp) if tp_problem(shape, t) is None)


def _powers(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out


_kinds: list[Any] = [None, (), None]  # catalog rows, their kinds, their kind table


def gpu_kinds() -> GpuKinds:
    """(id, GPUs per node, memory in bytes) of every catalog GPU, read once per catalog."""
    rows = active_catalog().gpus.rows
    if _kinds[0] is not rows:
        read = tuple((gid, g.gpus_per_node, g.memory_gb * 1e9) for gid, g in rows.items())
        _kinds[:] = [rows, read, _kind_table(read)]
    kinds: GpuKinds = _kinds[1]
    return kinds
