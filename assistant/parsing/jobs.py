"""The job a question describes, as the memory tool takes it and as a sentence names it."""

from __future__ import annotations

from functools import cache
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.routing.dispatch import model_fields, slot
from clusterplan.db.active import catalog
from clusterplan.tools.registry import get

TRAINING_SLOTS = ("optimizer", "seq_len", "micro_batch", "zero_stage", "lora_rank", "recompute")
INFERENCE_SLOTS = ("batch", "context_len")
LAYOUT_SLOTS = ("tp", "pp", "dp", "ep")
WORKLOAD_WORDS = {"pretrain": "pre-training", "full_finetune": "full fine-tuning",
                  "lora": "LoRA fine-tuning", "qlora": "QLoRA fine-tuning",
                  "inference": "serving"}


def memory_payload(intent: Intent, with_gpu: bool = True, least: bool = False
                   ) -> dict[str, Any]:
    """The memory tool's input from the intent's slots and assumed defaults.

    `least`: training with the settings that need the least memory (ZeRO-3, full recompute),
    for "does it fit at all" and "how few GPUs" questions.
    """
    workload = slot(intent, "workload", "inference")
    # Fields a direct /memory call gave (kv_precision, recompute...) carry into its follow-ups.
    other = TRAINING_SLOTS if workload == "inference" else INFERENCE_SLOTS
    payload = {k: v for k, v in intent.slots.items() if k in _memory_fields() and k not in other}
    payload |= {**model_fields(intent), "workload": workload,
                "precision": slot(intent, "precision")}
    names = INFERENCE_SLOTS if workload == "inference" else TRAINING_SLOTS
    payload.update({k: slot(intent, k) for k in (*names, *LAYOUT_SLOTS)})
    if workload == "inference" and "precision" not in intent.slots \
            and payload.get("kv_precision") is None and payload["precision"] not in (None, "bf16",
                                                                                   "fp16"):
        # A released FP8 or MXFP4 checkpoint (assumed, not asked for) still keeps its KV cache
        # in the 16-bit compute type, as the tool does when it picks the precision itself.
        payload["kv_precision"] = "bf16"
    if least and workload != "inference":
        if payload.get("recompute") is None:
            payload["recompute"] = "full"
        if payload.get("zero_stage") is None:
            payload["zero_stage"] = 3
    if with_gpu:
        payload.update(gpu=slot(intent, "gpu"), gpus=slot(intent, "gpus"))
    return payload


LEAST = ("training with the least memory a layout allows: ZeRO stage 3 and full activation "
         "recompute (if it does not fit so, no setting makes it fit)")


@cache
def _memory_fields() -> frozenset[str]:
    return frozenset(get("memory").input_model.model_fields)


def model_name(result: dict[str, Any]) -> str:
    """'Llama 3 70B' for a catalog model, 'a 7B-parameter model' for a size alone (whose id,
    custom-7b, means nothing to the person who asked)."""
    rows = catalog().models.rows
    if result["model"] in rows:
        return str(rows[result["model"]].name)
    active = result.get("active_params_b") or result["params_b"]
    moe = f" MoE with {active:g}B active" if active < result["params_b"] else " model"
    return f"a {result['params_b']:g}B-parameter" + moe


def subject(intent: Intent, result: dict[str, Any]) -> str:
    """'Serving Llama 3 70B in BF16' from the intent and what the tool resolved."""

    name = model_name(result)
    workload = WORKLOAD_WORDS.get(result["workload"], result["workload"])
    precision = str(slot(intent, "precision") or "").upper()
    if intent.slots.get("bits_per_weight"):  # "4.65 bits per weight" (EXL2), said as asked
        precision = f"{intent.slots['bits_per_weight']:g} bits per weight"
    return f"{workload} {name}" + (f" in {precision}" if precision else "")


def cap(text: str) -> str:
    """The first letter in upper case (a sentence may start with a subject)."""
    return text[:1].upper() + text[1:]


def gpu_name(gpu_id: str | None) -> str:
    rows = catalog().gpus.rows
    return rows[gpu_id].name if gpu_id in rows else str(gpu_id)
