"""The biggest catalog model a goal affords: 'I have $50k, what's the biggest model I can
fine-tune?'. The plan search answers for one model; this bisects the catalog's models by size,
taking a plan's existence to fall as the model grows (a bigger model needs at least the memory
and the FLOPs of a smaller one), so a few searches cover ninety models."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clusterplan.tools.catalog_lookup import active_catalog


def models_by_size() -> list[tuple[float, str]]:
    """(total parameters in billions, id) of each distinct size in the catalog, smallest
    first; among models of one size the first id alphabetically stands for them."""
    by_size: dict[float, str] = {}
    for m in sorted(active_catalog().models.rows.values(), key=lambda m: m.id):
        by_size.setdefault(round(m.params_b, 2), m.id)
    return sorted(by_size.items())


def size_index(model_id: str) -> int:
    """The position of `model_id`'s size in models_by_size()."""
    params = round(active_catalog().models.rows[model_id].params_b, 2)
    return next(i for i, (b, _) in enumerate(models_by_size()) if b == params)


def largest(meets: Callable[[str], Any], runner_up: bool = True, cap: int | None = None
            ) -> tuple[Any | None, Any | None, int]:
    """(plan of the largest model that `meets`, plan of the next size down, searches run).
    `meets(model_id)` returns a result with a recommendation, or None when none meets.
    `cap`: the index in models_by_size() above which no size can meet (known from an easier
    goal), so the bisection starts there."""
    sizes = models_by_size()
    top = len(sizes) - 1 if cap is None else min(cap, len(sizes) - 1)
    lo, hi, best, searches = 0, top, None, 0
    cache: dict[int, Any] = {}

    def probe(i: int) -> Any:
        nonlocal searches
        if i not in cache:
            searches += 1
            cache[i] = meets(sizes[i][1])
        return cache[i]

    if probe(hi) is not None:  # a budget that affords the largest model ends the search at once
        best, lo = hi, hi + 1
    else:
        hi -= 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if probe(mid) is not None:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    if best is None:
        return None, None, searches
    runner = probe(best - 1) if best > 0 and runner_up else None
    return cache[best], runner, searches
