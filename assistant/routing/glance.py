"""The model at a glance, beside an answer that did not size it.

A serving, layout, pricing or diagnosis answer leads with its own figure, but the people
asking also weigh the model itself: its weights at the precision they use (and at the common
ones), the KV cache each token costs, and for training the 16 bytes per parameter of model
states. When a model is named and no memory figure was computed for the answer, one memory
call adds them as a small table after the answer's own.
"""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import table
from clusterplan.assistant.parsing.jobs import memory_payload
from clusterplan.assistant.routing.dispatch import Calls, Reply
from clusterplan.assistant.routing.memory import PRECISION_NAMES, cluster_rows
from clusterplan.tools.contract import ToolError

SKIPPED = ("memory", "fit", "cluster_size", "checkpoint")  # these answers size the model already


def add_glance(intent: Intent, calls: Calls, reply: Reply) -> Reply:
    """The reply with the model's own figures added, when it names a model not yet sized."""
    if intent.kind in SKIPPED or not any(k in intent.slots for k in ("model", "params_b",
                                                                       "config")):
        return reply
    if any(call.name == "memory" for call in calls.made):
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
    return reply


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
        f"{result['params_b']:g}B model"
    return table([f"the model ({name}) at a glance", "GB"], rows)
