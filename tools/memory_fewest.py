"""The fewest GPUs of each catalog kind that hold a job, searching layouts smallest first.

Layouts are powers of two: tp within a node (dividing the heads), pp up to the layer count,
dp a multiple of ep. Model states scale exactly with stage_share(pp)/tp (memory_terms), so
they are computed once and scaled; activations and KV cache use the answer's own functions.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from clusterplan.tools import memory_kv
from clusterplan.tools.memory_job import Job, Layout, tp_problem
from clusterplan.tools.memory_terms import (
    CUDA_CONTEXT_BYTES,
    FRAGMENTATION,
    activations_at,
    kv_bytes,
    model_states,
    stage_share,
)
from clusterplan.tools.model_shape import ModelShape

MAX_GPUS = 1 << 20
GpuKinds = tuple[tuple[str, int, float], ...]  # (id, GPUs per node, memory in bytes)


def min_gpus_by_kind(job: Job, ep: int) -> dict[str, int | None]:
    """For every catalog GPU: the fewest that hold the job (None: no layout fits)."""
    return dict(_min_gpus(job, ep, gpu_kinds()))


def fewest_gpus(job: Job, ep: int, node_gpus: int, capacity_bytes: float) -> int | None:
    """The fewest GPUs of one kind (node size, memory in bytes) that hold the job."""
    return dict(_min_gpus(job, ep, (("gpu", node_gpus, capacity_bytes),)))["gpu"]


@lru_cache(maxsize=1024)
def _min_gpus(job: Job, ep: int, kinds: GpuKinds) -> tuple[tuple[str, int | None], ...]:
    shapes = {(node, memory) for _, node, memory in kinds}
    best: dict[tuple[int, float], int | None] = dict.fromkeys(shapes)
    usable = {k: (k[1] - CUDA_CONTEXT_BYTES) / (1 + FRAGMENTATION) for k in shapes}
    widest = max((node for node, _ in shapes), default=1)
    one = Layout(dp=ep, tp=1, pp=1, ep=ep)  # experts spread over dp ranks: dp starts at ep
    states = model_states(job, one)
    fixed1 = sum(t.fixed for t in states)
    spread1 = sum(t.spread for t in states) if job.training else 0.0
    kv1 = kv_bytes(job, one)
    for model_parallel, tp, pp in _layouts(job.shape, widest):
        open_kinds = [k for k in shapes if tp <= k[0] and _beats(model_parallel * ep, best[k])]
        if not open_kinds:
            if all(b is not None and b <= model_parallel * ep for b in best.values()):
                break  # sorted by tp·pp: nothing later can use fewer GPUs
            continue
        share = stage_share(job, pp) / tp
        fixed = fixed1 * share + activations_at(job, tp, pp, ep)
        if kv1:
            fixed += kv1 * memory_kv.per_gpu_share(job.shape, tp, pp)
        for k in open_kinds:
            n = _with_dp(model_parallel, fixed, spread1 * share, usable[k], ep)
            if n is not None and _beats(n, best[k]):
                best[k] = n
    return tuple((gid, best[node, memory]) for gid, node, memory in kinds)


def _beats(n: int, best: int | None) -> bool:
    return best is None or n < best


def _with_dp(model_parallel: int, fixed: float, spread: float, room: float,
             ep: int) -> int | None:
    """GPUs when dp = ep·2^k is the smallest that makes fixed + spread/dp fit in `room`."""
    room -= fixed
    if room <= 0:
        return None
    need = spread / room / ep
    n = model_parallel * ep * (1 if need <= 1 else 1 << math.ceil(math.log2(need)))
    return n if n <= MAX_GPUS else None


@lru_cache(maxsize=256)
def _layouts(shape: ModelShape, widest_tp: int) -> tuple[tuple[int, int, int], ...]:
    """(tp·pp, tp, pp) for every valid power-of-two layout, fewest GPUs first."""
    tps = [t for t in _powers(widest_tp) if tp_problem(shape, t) is None]
    return tuple(sorted((tp * pp, tp, pp) for tp in tps for pp in _powers(shape.layers)))


def _powers(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out


_kinds: list[Any] = [None, ()]


def gpu_kinds() -> GpuKinds:
    """(id, GPUs per node, memory in bytes) of every catalog GPU, read once per catalog."""
    from clusterplan.db.active import catalog

    rows = catalog().gpus.rows
    if _kinds[0] is not rows:
        _kinds[:] = [rows, tuple((gid, g.gpus_per_node, g.memory_gb * 1e9)
                                 for gid, g in rows.items())]
    kinds: GpuKinds = _kinds[1]
    return kinds
