"""A LoRA run timed against the full fine-tune of the same job: how much shorter it can be.

LoRA freezes the base weights, so the backward pass skips their weight-gradient matmuls: 2 of
the 6 FLOPs per parameter per token (qlora-paper#lora-compute). The forward pass and the
gradients of the activations remain, so on the same data and GPUs a LoRA run takes at least
4/6 of the full run's time; the LoRA paper measured 0.754 of it on GPT-3 175B. People who
expect LoRA to be many times faster ask why it is not ("I am not getting a substantial training
time improvement with LoRA: 30.5 hours full, 25 hours with LoRA").
"""

from __future__ import annotations

import re

from clusterplan.assistant.composing.markdown import num
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.quantities import durations
from clusterplan.assistant.routing.finding import Finding
from clusterplan.tools.contract import Step, q

LORA_WORD = lazy(r"\bq?lora\b|\bpeft\b|\badapters?\b", re.IGNORECASE)
# FLOPs per parameter per token: full training 6, LoRA 4 (no weight gradients of the base)
FULL_FLOPS, LORA_FLOPS = 6, 4


def lora_against_full(text: str) -> tuple[Finding, Step] | None:
    """Two run times, the one after a LoRA mention the LoRA run's: its time expected from the
    full run's at 4/6 of the FLOPs, against the time it took."""
    spans = durations(text)
    if len(spans) != 2 or not LORA_WORD.search(text):
        return None
    (first_at, first_h), (second_at, second_h) = spans
    second_is_lora = bool(LORA_WORD.search(text, first_at, second_at))
    first_is_lora = bool(LORA_WORD.search(text, 0, first_at)) and not second_is_lora
    if second_is_lora == first_is_lora or min(first_h, second_h) <= 0:
        return None
    full_h, lora_h = (first_h, second_h) if second_is_lora else (second_h, first_h)
    expected = full_h * LORA_FLOPS / FULL_FLOPS
    step = Step(label="LoRA run time from the full fine-tune's",
                formula="full run's time × 4 / 6 (the base weights take no weight gradients)",
                inputs={"full run": q(full_h, "h")}, result=q(round(expected, 3), "h"),
                notes=["qlora-paper#lora-compute"])
    causes = [
        (f"LoRA skips only the base weights' weight-gradient matmuls, 2 of the 6 FLOPs per "
         f"parameter per token: the forward pass and the activations' gradients remain, so at "
         f"best it takes 4/6 of the full run's {num(full_h)} h ({num(expected)} h); the LoRA "
         "paper measured 0.754 of the time on GPT-3 175B", "qlora-paper#lora-compute"),
        ("what LoRA saves is memory (no gradients or optimizer states for the base): spend it "
         "on a larger micro-batch, which is where the time goes down",
         "qlora-paper#lora-params"),
        ("activation recompute (gradient checkpointing) adds a forward pass to both runs alike",
         "activation-memory#full-recompute"),
    ]
    finding = Finding(f"LoRA run time against the full fine-tune's {num(full_h)} h "
                      "(4 of its 6 FLOPs per parameter per token)", expected, lora_h, "h",
                      causes, "qlora-paper#lora-compute", lower_is_better=True)
    return finding, step
