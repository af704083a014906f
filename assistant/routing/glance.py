"""The model at a glance, beside an answer that did not size it.

A serving, layout, pricing or diagnosis answer leads with its own figure, but the people
asking also weigh the model itself: its weights at the precision they use (and at the common
ones), the KV cache each token costs, and for training the 16 bytes per parameter of model
states. When a model is named and no memory figure was computed for the answer, one memory
call adds them as a small table after the answer's own. When the question names a context
(or several), the KV cache of one sequence at each is added too, from the same per-token bytes.
"""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import table
from clusterplan.assistant.parsing.jobs import memory_payload, model_name
from clusterplan.assistant.routing.dispatch import Calls, Reply
from clusterplan.assistant.routing.memory import PRECISION_NAMES, cluster_rows
from clusterplan.tools.contract import ToolError

SKIPPED = ("memory", "fit", "cluster_size", "checkpoint")  # these answers size the model already


def add_glance(intent: Intent, calls: Calls, reply: Reply) -> Reply:
    """The reply with the model's own figures added, when it names a model not yet sized."""
    if not any(k in intent.slots for k in ("model", "params_b", "config")):
        return reply
    sized = [call.data for call in calls.made if call.name == "memory" and not call.aside]
    if sized:  # the answer sized the model: only the KV cache at each context named is added
        named = stated_contexts(intent)
        if named and (intent.kind not in SKIPPED or len(named) > 1) \
                and "kv_cache_bytes_per_token" in sized[0]:
            reply.tables.append(kv_table(intent, sized[0]["kv_cache_bytes_per_token"]))
        return reply
    if intent.kind in SKIPPED:
        return reply
    payload = memory_payload(intent)
    if payload.get("workload") is None:
        payload["workload"] = "inference"
    try:
        result = calls.run("memory", payload, "the model's own figures, beside the answer",
                           aside=True)
    except (ToolError, ValueError, LookupError):
        try:  # the GPUs named may not suit the model's shape: the model alone, then
            payload = {k: v for k, v in payload.items() if k not in ("gpu", "gpus", "tp", "pp")}
            result = calls.run("memory", payload, "the model's own figures, beside the answer",
                               aside=True)
        except (ToolError, ValueError, LookupError):
            return reply
    reply.tables.append(glance_table(result))
    if stated_contexts(intent):
        reply.tables.append(kv_table(intent, result["kv_cache_bytes_per_token"]))
    return reply


def stated_contexts(intent: Intent) -> list[int]:
    """The context lengths the question names (none when the context was assumed)."""
    listed = intent.slots.get("context_list")
    if isinstance(listed, list) and listed:
        return [int(n) for n in listed]
    given = intent.slots.get("context_len")
    return [int(given)] if isinstance(given, int) and given > 0 else []


def kv_table(intent: Intent, per_token: float) -> str:
    """One sequence's KV cache at each context length named: per-token bytes x tokens."""
    rows = [[f"{n:,} tokens", per_token * n / 1e9] for n in stated_contexts(intent)]
    if len(rows) == 2:
        low, high = stated_contexts(intent)
        rows.append([f"difference ({high - low:,} tokens)", per_token * (high - low) / 1e9])
    batch = intent.slots.get("batch")
    if isinstance(batch, int) and batch > 1:
        longest = max(stated_contexts(intent))
        rows.append([f"{batch} sequences × {longest:,} tokens", per_token * longest * batch / 1e9])
    return table([f"KV cache at the context named ({per_token:,.0f} bytes per token)", "GB"],
                 rows)


def glance_table(result: dict[str, Any]) -> str:
    """Weights at each common precision, KV cache per token, model states when training."""
    whole = result.get("whole_model_gb") or {}
    rows: list[list[Any]] = [[f"weights as {PRECISION_NAMES.get(p, p)}", v]
                             for p, v in (result.get("weights_by_precision_gb") or {}).items()]
    if result["workload"] != "inference" and whole:
        rows.append(["model states (weights + gradients + optimizer), whole model",
                     whole["model_states"]])
    rows += cluster_rows(result)
    rows.append(["KV cache per token (MB)", result["kv_cache_bytes_per_token"] / 1e6])
    name = result["model"] if not str(result["model"]).startswith("custom-") else \
        model_name(result).removeprefix("a ")
    return table([f"the model ({name}) at a glance", "GB"], rows)
