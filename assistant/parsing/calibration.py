"""A measurement the user states to calibrate on, and carrying it through the session.

"We measure 150 TFLOP/s per A100" or "a step takes 4.2 s on 64 H100" is a figure the
step-time model should match: the parallelism tool scales its compute efficiency to it
(measured_tflops_per_gpu, measured_step_s). A session keeps what was learnt for later
questions on the same GPU: the factor the tool found (efficiency_scale) when the measurement
could be placed on a model and a cluster, else the TFLOP/s figure itself, and every answer it
reaches says it was carried.
"""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.answer import Answer, Intent
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.measurements import NUM, find
from clusterplan.db.active import catalog

MEASURED = ("measured_tflops_per_gpu", "measured_step_s")
# Kinds whose route runs the parallelism search, where a calibration changes the figures.
SEARCHES = ("layout", "training", "plan")
# Kinds a stated measurement with a model turns into a layout search (it is not a memory
# question: "a step takes 4.2 s on 64 H100 for Llama 3 8B").
RETARGETED = ("fit", "memory", "cluster_size", "unknown")
# The user says what they saw: a figure they measured, not one they ask about or aim for.
STATED = lazy(r"\b(?:we|i|our\s+(?:run|job|jobs|cluster|training|model))\b[^.?!]{0,40}?"
              r"\b(?:measur\w*|get|got|getting|see|saw|seeing|achiev\w*|observ\w*|reach\w*|"
              r"hit|sustain\w*|are\s+at|'re\s+at|average\w*|does|do|runs?|takes?|took)\b|"
              r"\bmeasured\b|"
              r"\bsteps?\s+(?:takes?|took|lasts?|time\s+(?:is|was|of))\b", re.IGNORECASE)
STEP_TAKES = lazy(r"\bsteps?\s+(?:takes?|took|lasts?|time\s+(?:is|was|of|=))\s+(?:about\s+|"
                  r"around\s+|~\s*)?" + NUM + r"\s*(s|sec|secs|seconds?|ms|milliseconds?)\b",
                  re.IGNORECASE)


# A figure hoped for, aimed at or asked about, not seen: "can we get 400 TFLOP/s?"
WISHED = lazy(r"\b(?:can|could|would|will|should|might|expect\w*|target\w*|aim\w*|want\w*|"
              r"goal|hope\w*|need\w*|if)\b", re.IGNORECASE)


def read(text: str) -> dict[str, float]:
    """The measurement to calibrate on that `text` states, as parallelism-tool fields."""
    if not STATED.search(text):
        return {}
    takes = STEP_TAKES.search(text)
    if takes and _seen(text, takes.start()):
        scale = 1e-3 if takes[2].lower().startswith("m") else 1.0
        return {"measured_step_s": float(takes[1].replace(",", "")) * scale}
    for m in find(text):
        if not _seen(text, text.find(m.text)):
            continue
        if m.kind == "tflops" and m.divisor is None and m.value > 0:
            return {"measured_tflops_per_gpu": m.value}
        if m.kind == "step_time" and m.value > 0:
            return {"measured_step_s": m.value}
    return {}


def _seen(text: str, at: int) -> bool:
    """Whether the sentence up to the figure at `at` states it rather than wishes for it."""
    start = max(text.rfind(mark, 0, at) for mark in ".?!;") + 1
    return not WISHED.search(text, start, at)


def retarget(kind: str, slots: dict[str, Any]) -> str:
    """A stated measurement about a named model is a layout search (training with a budget)."""
    if not any(k in slots for k in MEASURED) or kind not in RETARGETED:
        return kind
    if not any(k in slots for k in ("model", "params_b", "config")):
        return kind
    return "training" if "tokens" in slots else "layout"


def carry(intent: Intent, carried: dict[str, Any] | None) -> None:
    """Lay the session's calibration on a search that states none of its own, saying so."""
    if not carried or intent.kind not in SEARCHES or any(k in intent.slots for k in MEASURED):
        return
    gpu = intent.slots.get("gpu", intent.assumed.get("gpu"))
    if gpu != carried.get("gpu"):
        intent.readings.append(f"not carried: your calibration was measured on {carried['gpu']}"
                               f", this question is about {gpu}")
        return
    intent.slots["calibration"] = carried
    intent.readings.append(f"carried from earlier in this session: {carried['said']}")


def payload_fields(intent: Intent, gpu: str | None) -> dict[str, Any]:
    """What the parallelism tool takes of the question's measurement or the carried one."""
    own = {k: intent.slots[k] for k in MEASURED if k in intent.slots}
    if own:
        return own
    carried = intent.slots.get("calibration")
    if not isinstance(carried, dict) or carried.get("gpu") != gpu:
        return {}
    return {k: carried[k] for k in ("efficiency_scale", "measured_tflops_per_gpu")
            if k in carried}


def learnt(answer: Answer) -> dict[str, Any] | None:
    """What the session keeps of an answer's stated measurement, or None."""
    intent = answer.intent
    if intent is None or answer.error or not any(k in intent.slots for k in MEASURED):
        return None
    for key, data in answer.data.items():
        if key.startswith("parallelism") and isinstance(data, dict) \
                and data.get("efficiency_scale", 1.0) != 1.0:
            scale = data["efficiency_scale"]
            return {"gpu": data["gpu"], "efficiency_scale": scale,
                    "said": f"compute efficiency x {scale:.3g}, from your measurement on "
                            f"{data['gpus']}× {data['gpu']} ({_what(intent.slots)})"}
    gpu = intent.slots.get("gpu", intent.assumed.get("gpu"))
    tflops = intent.slots.get("measured_tflops_per_gpu")
    row = catalog().gpus.rows.get(gpu) if gpu else None
    peak = max((row.bf16_tflops or 0.0, row.fp8_tflops or 0.0)) if row else 0.0
    if gpu and tflops and tflops <= peak:  # above every dense peak it is not a measurement
        return {"gpu": gpu, "measured_tflops_per_gpu": tflops,
                "said": f"your measured {tflops:g} TFLOP/s per GPU on {gpu}"}
    return None


def kept_note(kept: dict[str, Any]) -> str:
    """The line an answer adds when its measurement is kept for the session."""
    return (f"calibration kept for this session: {kept['said']}; later training estimates "
            f"on {kept['gpu']} are scaled to match it")


def _what(slots: dict[str, Any]) -> str:
    if "measured_step_s" in slots:
        return f"{slots['measured_step_s']:g} s per step"
    return f"{slots['measured_tflops_per_gpu']:g} TFLOP/s per GPU"
