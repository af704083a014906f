"""The fewest GPUs of each catalog kind that hold a job, searching layouts smallest first.

Layouts are powers of two: tp within a node (dividing the heads), pp up to the layer count,
dp a multiple of ep (memory_fewest_tables). Serving is searched here; training, where more
data parallelism can make a layout fit, in memory_fewest_training.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from clusterplan.tools.catalog_lookup import active_catalog
from clusterplan.tools.memory import activations, kv_cache
from clusterplan.tools.memory.fewest_nodes import lower_to_whole_nodes
from clusterplan.tools.memory.fewest_tables import (
    MAX_GPUS,
    Groups,
    derived,
    serving_layouts,
    tp_degrees,
)
from clusterplan.tools.memory.fewest_training import search_training, training_whole
from clusterplan.tools.memory.job import Job
from clusterplan.tools.memory.precision import BYTES
from clusterplan.tools.memory.terms import CUDA_CONTEXT_BYTES, FRAGMENTATION, ModelStates

GpuKinds = tuple[tuple[str, int, float], ...]  # (id, GPUs per node, memory in bytes)


def min_gpus_by_kind(job: Job, ep: int, catalog: Any = None, whole: ModelStates | None = None,
                     per_token: float | None = None) -> dict[str, int | None]:
    """For every GPU of `catalog` (default: the active one): the fewest that hold the job
    (None: no layout fits). When the caller has them: `whole`, model_states(job, 1, 1, ep);
    `per_token`, the KV cache's bytes per token."""
    gpu_kinds(catalog)
    return _min_gpus(job, ep, _kinds[2], whole, per_token)


def _min_gpus(job: Job, ep: int, table: KindTable, whole: ModelStates | None = None,
              per_token: float | None = None) -> dict[str, int | None]:
    """Each GPU shape's fewest GPUs (None when no layout holds the job)."""
    node_of, room_of, shape_of, groups, answers = table
    best: list[int | None] = [None] * len(room_of)
    # The two figures are unpacked here, not passed as *args: a call with *args cannot run in
    # the calling frame's interpreter loop.
    if job.training:
        fixed, spread = training_whole(job, ep, whole)
        search_training(job, ep, groups, best, fixed, spread)
        lower_to_whole_nodes(job, ep, groups, best, fixed, spread)
    else:
        weights, kv_cache = _serving_whole(job, ep, per_token)
        _search_serving(job, ep, groups, best, weights, kv_cache)
    # Answers repeat (one per distinct set of counts): each kind's dict is built once per set,
    # and every caller gets a copy of its own, under half the cost of filling it in again.
    counts = tuple(best)
    found = answers.get(counts)
    if found is None:
        if len(answers) >= 4096:
            answers.clear()
        found = answers[counts] = {gid: counts[i] for gid, i in shape_of}
    return found.copy()


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
        derived(shape, tp_degrees, groups[0][0]), job.flash, job.activation_scale,
        activations.split_units(shape))
    for node, order, rooms, _ in groups:
        at, count = 0, len(order)
        room = rooms[0]
        for model_parallel, tp, share, kv_share, extra in derived(shape, serving_layouts, node):
            fixed = fixed1 * share + extra * job.weight_bytes + acts_of[tp]
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


def _serving_whole(job: Job, ep: int, per_token: float | None = None) -> tuple[float, float]:
    """Weights and KV cache of one GPU at tp = pp = 1 (dp = ep): model_states and kv_bytes
    with their shares, which are exactly 1 there, left out."""
    s = job.shape
    weights = (s.dense_params + s.expert_params / ep) * job.weight_bytes
    tokens = kv_cache.cached_tokens(-(-job.batch // ep), job.context_len, job.paging)
    if per_token is None:
        per_token = kv_cache.bytes_per_token(s, BYTES[job.kv_precision])
    return weights, per_token * tokens


KindTable = tuple[tuple[int, ...], tuple[float, ...], tuple[tuple[str, int], ...], Groups,
                  dict[tuple[int | None, ...], dict[str, int | None]]]


@lru_cache(maxsize=64)
def _kind_table(kinds: GpuKinds) -> KindTable:
    """Distinct GPU shapes: node sizes, usable bytes (memory less the CUDA context, over
    1 + fragmentation), each kind's id with the index of its shape, and the shapes grouped by
    node size (node size, shape indices roomiest first, their rooms, and the two paired), and
    the answers made so far, by each shape's count."""
    shapes = list(dict.fromkeys((node, memory) for _, node, memory in kinds))
    node_of = tuple(node for node, _ in shapes)
    room_of = tuple((memory - CUDA_CONTEXT_BYTES) / (1 + FRAGMENTATION) for _, memory in shapes)
    groups = []
    for node in sorted(set(node_of), reverse=True):  # the widest node first
        order = sorted((i for i, n in enumerate(node_of) if n == node), key=lambda i: -room_of[i])
        groups.append((node, tuple(order), tuple(room_of[i] for i in order),
                       tuple((i, room_of[i]) for i in order)))
    return (node_of, room_of, tuple((gid, shapes.index((node, memory)))
                                    for gid, node, memory in kinds), tuple(groups), {})


_kinds: list[Any] = [None, (), None]  # catalog rows, their kinds, their kind table


def gpu_kinds(catalog: Any = None) -> GpuKinds:
    """(id, GPUs per node, memory in bytes) of every GPU of `catalog` (default: the active
    one), read once per catalog."""
    rows = (catalog or active_catalog()).gpus.rows
    if _kinds[0] is not rows:
        read = tuple((gid, g.gpus_per_node, g.memory_gb * 1e9) for gid, g in rows.items())
        _kinds[:] = [rows, read, _kind_table(read)]
    kinds: GpuKinds = _kinds[1]
    return kinds
