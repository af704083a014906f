"""Which layout a request means, and the fewest GPUs of each kind that hold the job."""

from __future__ import annotations

import math
from functools import lru_cache

from clusterplan.tools import memory_kv
from clusterplan.tools.contract import ToolError
from clusterplan.tools.memory_input import MemoryInput
from clusterplan.tools.memory_job import Job, Layout, tp_problem
from clusterplan.tools.memory_terms import (
    CUDA_CONTEXT_BYTES,
    FRAGMENTATION,
    activations_at,
    kv_bytes,
    model_states,
    stage_share,
)

MAX_GPUS = 1 << 20
DEFAULT_NODE_GPUS = 8


def resolve_layout(inp: MemoryInput, job: Job, node_gpus: int, said: list[str]) -> Layout:
    """The layout given, or filled in: training spreads data over the GPUs; inference splits
    the model over them (tensor parallel within a node, pipeline across nodes)."""
    tp, pp, ep, dp = inp.tp, inp.pp, inp.ep or 1, inp.dp
    if inp.gpus and not job.training and tp is None and pp is None and dp is None:
        tp = _widest_tp(job, inp.gpus, node_gpus)
        pp = inp.gpus // tp
        said.append(f"layout: the {inp.gpus} GPUs hold one model replica, tp={tp} within a "
                    f"node and pp={pp}")
        return Layout(dp=1, tp=tp, pp=pp, ep=ep)
    tp, pp = tp or 1, pp or 1
    if dp is None:
        if inp.gpus is None:
            dp = ep
        elif inp.gpus % (tp * pp):
            raise ToolError(f"gpus: {inp.gpus} is not a multiple of tp·pp = {tp * pp}")
        else:
            dp = inp.gpus // (tp * pp)
        if job.training and dp > 1 and inp.dp is None:
            said.append(f"dp: {dp} (the GPUs left after tp={tp} and pp={pp})")
    elif inp.gpus is not None and inp.gpus != dp * tp * pp:
        raise ToolError(f"gpus: {inp.gpus} differs from dp·tp·pp = {dp * tp * pp}; give "
                        "matching values or leave one out")
    return Layout(dp=dp, tp=tp, pp=pp, ep=ep)


def _widest_tp(job: Job, gpus: int, node_gpus: int) -> int:
    """The largest tensor-parallel degree within a node that divides gpus and the heads."""
    for tp in range(min(gpus, node_gpus), 0, -1):
        if gpus % tp == 0 and tp_problem(job.shape, tp) is None:
            return tp
    return 1


@lru_cache(maxsize=512)
def layout_costs(job: Job, ep: int, max_tp: int) -> tuple[tuple[int, int, float, float], ...]:
    """Per (tp, pp) over powers of two, fewest GPUs first: tp·pp, tp, bytes that stay on each
    GPU, and bytes that ZeRO divides by dp.

    Model states scale exactly with stage_share(pp)/tp (see memory_terms.model_states), so
    they are computed once at tp = pp = 1 and scaled; activations and KV cache are evaluated
    per layout with the same functions the answer uses.
    """
    dp0 = ep  # experts are spread over the data-parallel ranks, so dp starts at ep
    one = Layout(dp=dp0, tp=1, pp=1, ep=ep)
    states = model_states(job, one)
    fixed1 = sum(t.fixed for t in states)
    spread1 = sum(t.spread for t in states) if job.training else 0.0
    kv1 = kv_bytes(job, one)
    costs = []
    for tp in [t for t in _powers(max_tp) if tp_problem(job.shape, t) is None]:
        for pp in _powers(job.shape.layers):
            share = stage_share(job, pp) / tp
            fixed = fixed1 * share + activations_at(job, tp, pp, dp0)
            if kv1:
                fixed += kv1 * memory_kv.per_gpu_share(job.shape, tp, pp)
            costs.append((tp * pp, tp, fixed, spread1 * share))
    return tuple(sorted(costs))


@lru_cache(maxsize=2048)
def fewest_gpus(job: Job, ep: int, max_tp: int, capacity_bytes: float,
                widest_tp: int | None = None) -> int | None:
    """The fewest GPUs (tp·pp·dp, powers of two; dp a multiple of ep) that hold the job."""
    usable = (capacity_bytes - CUDA_CONTEXT_BYTES) / (1 + FRAGMENTATION)
    best: int | None = None
    for model_parallel, tp, fixed, spread in layout_costs(job, ep, widest_tp or max_tp):
        if tp > max_tp:
            continue  # tensor parallelism stays within a node
        if best is not None and model_parallel * ep >= best:
            break  # sorted by tp·pp: no later layout can use fewer GPUs
        room = usable - fixed
        if room <= 0:
            continue
        # fixed + spread/dp <= room with dp = ep·2^k: the smallest such k.
        need = spread / room / ep
        dp = ep * (1 if need <= 1 else 1 << math.ceil(math.log2(need)))
        n = model_parallel * dp
        if n <= MAX_GPUS and (best is None or n < best):
            best = n
    return best


def min_gpus_by_kind(job: Job, ep: int) -> dict[str, int | None]:
    """For every catalog GPU: the fewest that hold the job (None: no layout fits)."""
    from clusterplan.db.active import catalog

    gpus = catalog().gpus.rows
    widest = max((g.gpus_per_node for g in gpus.values()), default=1)
    return {gid: fewest_gpus(job, ep, g.gpus_per_node, g.memory_gb * 1e9, widest)
            for gid, g in gpus.items()}


def _powers(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out
