"""The biggest model a fixed set of GPUs holds: "What's the biggest model I can fine-tune with
QLoRA on a single RTX 4090?"

No model is named: the answer is a catalog model, the largest whose job (the workload and
precision asked) the memory calculator fits on the GPUs named. The catalog's dense models,
ordered by parameters, are searched by bisection, then the dozen just above the boundary one
by one (shapes differ: a large vocabulary or grouped KV heads move a model's memory against
its size), so a score of calculator runs answer it; the model just above is shown beside it,
with the memory that one would need.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table
from clusterplan.assistant.parsing.jobs import gpu_name, memory_payload
from clusterplan.assistant.routing.dispatch import Calls, Reply
from clusterplan.db.active import catalog

LOOK_ABOVE = 12  # catalog models above the bisected boundary tried one by one


def largest_fit(intent: Intent, calls: Calls) -> Reply:
    """The largest dense catalog model whose job fits the GPUs asked, and the next one up;
    with system RAM given, also the largest that runs on the GPUs alone (offloaded layers
    are read from RAM every token, so they set the speed)."""
    rows = sorted((r for r in catalog().models.rows.values()
                   if r.active_params_b >= 0.99 * r.params_b), key=lambda r: r.params_b)
    base = memory_payload(intent)
    for name in ("model", "params_b", "config"):
        base.pop(name, None)
    low, high, sized = _boundary(calls, rows, base)
    gpus = int(base.get("gpus") or 1)
    where = f"{gpus}× {gpu_name(base.get('gpu'))}" if base.get("gpu") else \
        f"{gpus}× GPU with {num(base.get('gpu_memory_gb'))} GB"
    if low < 0:
        return Reply(headline=f"No catalog model fits {where} for this job: the smallest, "
                              f"{rows[0].name}, needs {num(sized(0)['per_gpu_gb'])} GB per GPU.")
    best = sized(low)
    lead = (f"The largest catalog model that fits {where} for this job is "
            f"**{_named(rows[low])}**: **{num(best['per_gpu_gb'])} GB per GPU** of "
            f"{num(best['gpu_memory_gb'])} GB.")
    table_rows = [[rows[low].name, rows[low].params_b, best["per_gpu_gb"], "yes"]]
    if high < len(rows):
        above = sized(high)
        lead += (f" The next size up, {_named(rows[high])}, would need "
                 f"{num(above['per_gpu_gb'])} GB per GPU.")
        table_rows.append([rows[high].name, rows[high].params_b, above["per_gpu_gb"], "no"])
    offload = best.get("offload") or {}
    if offload.get("mode") == "layers" and offload["gpu_layers"] < offload["layers"]:
        lead += (f" That keeps only {offload['gpu_layers']} of its {offload['layers']} layers on "
                 f"the GPUs and reads the rest from system RAM every token: at most "
                 f"**{num(offload['decode_tokens_per_s_max'])} tokens/s**.")
        gpu_only = {k: v for k, v in base.items() if k != "host_ram_gb"}
        alone, _, sized_alone = _boundary(calls, rows, gpu_only)
        if alone >= 0:
            lead += (f" Entirely on the GPUs, at their memory's speed, the largest is "
                     f"**{_named(rows[alone])}** ({num(sized_alone(alone)['per_gpu_gb'])} GB "
                     "per GPU).")
    return Reply(headline=lead, tables=[table(["model", "parameters (B)", "GB per GPU", "fits"],
                                              table_rows)])


def _boundary(calls: Calls, rows: list[Any], base: dict[str, Any]
              ) -> tuple[int, int, Callable[[int], dict[str, Any]]]:
    """(the largest row index whose job fits, or -1; the first above it that does not, or
    len(rows); the sizing of a row), by bisection and then the rows just above it."""

    def sized(index: int) -> dict[str, Any]:
        row = rows[index]
        return calls.run("memory", base | {"model": row.id},
                         f"does {row.name} fit the GPUs named?")

    low, high = -1, len(rows)  # rows[low] fits (or none), rows[high] does not (or none)
    while high - low > 1:
        mid = (low + high) // 2
        if _fits(sized(mid)):
            low = mid
        else:
            high = mid
    # Shapes differ (a large vocabulary, grouped KV heads), so a few models just above the
    # boundary are tried too: the largest that fits among them is the answer.
    for index in range(high + 1, min(high + 1 + LOOK_ABOVE, len(rows))):
        if _fits(sized(index)):
            low = index
    high = next((i for i in range(low + 1, len(rows)) if not _fits(sized(i))), len(rows))
    return low, high, sized


def _named(row: Any) -> str:
    """'Qwen2 72B (72.7B)'; 'Command R+ (104B)' already says its size."""
    size = f"{num(row.params_b)}B"
    return row.name if size in row.name else f"{row.name} ({size})"


def _fits(result: dict[str, Any]) -> bool:
    """The job fits the GPUs, and what it keeps in system RAM (layers offloaded beside the
    GPUs' share) fits the RAM given."""
    offload = result.get("offload") or {}
    return bool(result.get("fits")) and offload.get("host_fits") is not False
