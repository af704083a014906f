"""How many GPUs, with no model named: the fewest for common sizes and each way of training.

"Estimating the number of GPUs required for fine-tuning; so many variables: which GPU, how
many, full fine-tuning or LoRA or QLoRA?" names no model, and a question back would only
return the asker's own list of variables. What can be answered is the comparison they
describe: the memory calculator's fewest GPUs for the usual open-model sizes under each way of
training, on the GPU asked (or the common 80 GB parts), every figure from the same calculator
a named model gets.
"""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import table
from clusterplan.assistant.parsing.jobs import gpu_name
from clusterplan.assistant.routing.dispatch import Calls, Reply, slot

# The sizes open models are released in most often (Llama 2 and 3, Qwen2.5: 7-8B, 13-14B, 32-34B,
# 70-72B), sized with the calculator's assumed shape for each; the workloads a fine-tune is
# done with, and inference for comparison.
SIZES_B = (7, 13, 34, 70)
WORKLOADS = (("full_finetune", "full fine-tune"), ("lora", "LoRA"), ("qlora", "QLoRA"),
             ("inference", "inference"))
DEFAULT_GPUS = ("h100-sxm", "a100-sxm-40gb")


def count_without_model(intent: Intent, calls: Calls) -> Reply:
    """The fewest GPUs of each kind for each size and workload (memory is the floor)."""
    gpus = [slot(intent, "gpu")] if slot(intent, "gpu") else list(DEFAULT_GPUS)
    # every way of training side by side (the choice is usually the question), and serving
    # when that is what was asked
    asked = slot(intent, "workload")
    workloads = [w for w in WORKLOADS if w[0] != "inference" or asked == "inference"]
    rows: list[list[Any]] = []
    for size in SIZES_B:
        for workload, said in workloads:
            row: list[Any] = [f"{size}B", said]
            for gpu in gpus:
                row.append(_fewest(calls, size, workload, gpu))
            rows.append(row)
    head = ["model size", "workload", *[f"fewest {gpu_name(g)}" for g in gpus]]
    lead = ("No model was named, so here is the fewest GPUs that hold each common model size for "
            "each way of training it (memory is the floor; more GPUs only shorten the run). "
            "Full fine-tuning keeps 16 bytes a parameter of weights, gradients and Adam states; "
            "LoRA trains small adapters on frozen 16-bit weights; QLoRA freezes them in 4 bits. "
            "Each size has a Llama 3-like shape, 4,096-token sequences, micro-batch 1, full "
            "recompute and ZeRO-3 (the settings that need the least). Name the model, the tokens "
            "and the GPU for its time and cost.")
    return Reply(headline=lead, tables=[table(head, rows)])


def _fewest(calls: Calls, size: int, workload: str, gpu: str) -> str:
    payload = {"params_b": float(size), "workload": workload, "gpu": gpu}
    if workload != "inference":
        payload |= {"recompute": "full", "zero_stage": 3}  # the settings that need the least
    result = calls.run("memory", payload, f"the fewest {gpu} for a {size}B {workload}",
                       aside=True)
    fewest = (result.get("min_gpus") or {}).get(result["gpu"])
    return str(fewest) if fewest else "none"
