"""A memory size quoted with no model named: the parameters that size holds at each precision.

"The docs ask for 382 GB of memory, isn't that too high?": with no model, what can be worked
out runs the other way, the size over the bytes each parameter takes, so the asker sees which
model size and precision the figure belongs to. The weights alone: the KV cache, activations
and runtime overhead come on top.
"""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table
from clusterplan.assistant.routing.checkpoint_rule import _size_bytes
from clusterplan.assistant.routing.dispatch import Reply
from clusterplan.tools.contract import Step, q
from clusterplan.tools.memory.model_shape import shape_from_params
from clusterplan.tools.memory.precision import BYTES, NOTES, stored_bytes_per_param

# 32 and 16 bits, 8 bits, and the two 4-bit families (llama.cpp's Q4_K_M, GPTQ/AWQ/NF4).
SHOWN = ("fp32", "bf16", "int8", "q4_k_m", "int4")


def memory_without_model(intent: Intent) -> Reply:
    """The parameters a quoted memory size holds at each precision."""
    size = _size_bytes(intent.slots.get("size"))
    if not size:
        raise ValueError("a memory size is needed to size it without a model (e.g. 382 GB)")
    return _holds(size)


def budget_without_model(intent: Intent) -> Reply:
    """"Can't load a Q4 model on 12gb vram": the largest model the GPU memory holds at the
    precision named (each precision shown), weights alone."""
    gpus = int(intent.slots.get("gpus") or 1)
    size = float(intent.slots["gpu_memory_gb"]) * 1e9 * gpus
    reply = _holds(size)
    precision = str(intent.slots.get("precision") or "")
    if precision in BYTES:
        per_param = bytes_per_param(precision, size)
        most = size / per_param / 1e9
        by = {p: size / bytes_per_param(p, size) / 1e9 for p in SHOWN}
        reply.headline = (f"With no model named, {num(size / 1e9)} GB of GPU memory holds the "
                          f"weights of a model of at most **{num(most)}B parameters** in "
                          f"{precision.upper()} ({num(per_param)} bytes each), less what "
                          f"the KV cache, activations and runtime overhead take; "
                          f"{num(by['bf16'])}B in 16 bits, {num(by['int8'])}B at 8 bits. Name "
                          f"the model for its exact figures.")
    return reply


def _holds(size: float) -> Reply:
    rows: list[list[Any]] = []
    steps: list[Step] = []
    for precision in SHOWN:
        per_param = bytes_per_param(precision, size)
        params_b = size / per_param / 1e9
        rows.append([precision.upper(), per_param, params_b])
        steps.append(Step(label=f"parameters {num(size / 1e9)} GB holds in {precision}",
                          formula="size ÷ bytes per parameter",
                          inputs={"size": q(size / 1e9, "GB"),
                                  "bytes_per_param": q(per_param, "B")},
                          result=q(round(params_b, 3), "billion params"),
                          notes=[NOTES[precision]]))
    by = {p: size / bytes_per_param(p, size) / 1e9 for p in SHOWN}
    lead = (f"With no model named, {num(size / 1e9)} GB holds the weights of about "
            f"**{num(by['bf16'])}B parameters in 16 bits**, {num(by['int8'])}B at 8 bits and "
            f"{num(by['q4_k_m'])}B at 4-bit (GGUF Q4_K_M), before the KV cache, activations and "
            f"runtime overhead. Name the model for its exact figures.")
    head = ["precision", "bytes per parameter", f"parameters in {num(size / 1e9)} GB (B)"]
    return Reply(headline=lead, tables=[table(head, rows)], steps=steps)


def bytes_per_param(precision: str, size: float) -> float:
    """Bytes a parameter takes stored at `precision`. A GGUF mix keeps the embedding, the output
    head and some layers wider than its bulk type, so its average depends on the model: taken
    over the assumed shape of the size the bulk type alone would fill (one step of the fixed
    point is enough; the average moves by well under 1% between neighbouring sizes)."""
    nominal = BYTES[precision]
    shape = shape_from_params(size / nominal / 1e9, {})
    return stored_bytes_per_param(precision, shape)
