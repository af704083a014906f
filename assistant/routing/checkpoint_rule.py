"""What a checkpoint's size says: the bytes per parameter of each kind of save.

"Why is my saved model so much larger?", "the LoRA adapter is almost as large as the model",
"zero_to_fp32 wrote 50 GB": what was saved decides the size, at a fixed number of bytes per
parameter. The answer lists them, and for a size the question quotes, the parameters each
kind of save implies, so the asker can tell which one they got.
"""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table
from clusterplan.assistant.routing.dispatch import Reply
from clusterplan.tools.contract import Step, q
from clusterplan.tools.units import UnitError, parse

# (what was saved, bytes per parameter, note): 16-bit weights 2 B; FP32 weights 4 B; a full
# training checkpoint of mixed-precision Adam adds the FP32 master copy and both moments,
# K = 12 (zero-paper#k-12), to the 2 B of 16-bit weights.
KINDS = (
    ("weights in BF16/FP16 (save_pretrained of a 16-bit model)", 2.0,
     "zero-paper#mixed-precision-bytes"),
    ("weights in FP32 (zero_to_fp32, or a save without a dtype)", 4.0,
     "zero-paper#mixed-precision-bytes"),
    ("training checkpoint: 16-bit weights + FP32 master, Adam m and v", 14.0, "zero-paper#k-12"),
)


def checkpoint_without_model(intent: Intent) -> Reply:
    """Bytes per parameter of each kind of save, and what a quoted size implies."""
    size = _size_bytes(intent.slots.get("size"))
    rows: list[list[Any]] = []
    steps: list[Step] = []
    for what, per_param, note in KINDS:
        row: list[Any] = [what, per_param]
        if size:
            implied = size / per_param / 1e9
            row.append(implied)
            steps.append(Step(label=f"parameters implied: {what}", formula="size ÷ bytes per "
                              "parameter", inputs={"size": q(size / 1e9, "GB"),
                                                   "bytes_per_param": q(per_param, "B")},
                              result=q(round(implied, 3), "billion params"), notes=[note]))
        rows.append(row)
    head = ["what was saved", "bytes per parameter"] + (["parameters implied (B)"] if size
                                                         else [])
    lead = ("A checkpoint's size is the parameters times the bytes each kind of save keeps: "
            "**2 B** per parameter for 16-bit weights, **4 B** for FP32 weights (what "
            "zero_to_fp32 writes), **14 B** for a training checkpoint with Adam's FP32 master "
            "copy and moments. A LoRA adapter alone is megabytes; one as large as the model has "
            "the base weights saved (merged) with it.")
    if size:
        lead += (f" {num(size / 1e9)} GB is {num(size / 4e9)}B parameters in FP32 or "
                 f"{num(size / 2e9)}B in 16 bits.")
    lead += " Name the model for its exact figures."
    if not steps:
        steps = [Step(label="bytes per parameter by kind of save", formula="16-bit 2 B; FP32 "
                      "4 B; + FP32 master, m, v (K = 12)", inputs={}, result=None,
                      notes=[k[2] for k in KINDS])]
    return Reply(headline=lead, tables=[table(head, rows)], steps=steps)


def quoted_size(intent: Intent, params_b: float, name: str) -> Reply | None:
    """A file size quoted for a named model ("7B model file is 30G, Baichuan2 7B only 14G"):
    its bytes per parameter, and the kind of save that many bytes is."""
    size = _size_bytes(intent.slots.get("file_size"))
    if not size or params_b <= 0:
        return None
    per_param = size / (params_b * 1e9)
    what, nearest, note = min(KINDS, key=lambda k: abs(k[1] - per_param) / k[1])
    rows = [[kind, bytes_, params_b * bytes_, params_b * bytes_ * 1e9 / 2**30]
            for kind, bytes_, _ in KINDS]
    lead = (f"The {num(size / 1e9)} GB quoted is **{num(per_param)} bytes per parameter** of "
            f"{name} ({num(params_b)}B parameters): that is its **{what.split(' (')[0]}** "
            f"({num(params_b * nearest)} GB). In 16 bits the same weights are "
            f"{num(params_b * 2)} GB ({num(params_b * 2e9 / 2**30)} GiB); in FP32 twice that.")
    step = Step(label="bytes per parameter of the quoted size", formula="size ÷ parameters",
                inputs={"size": q(size / 1e9, "GB"), "parameters": q(params_b * 1e9)},
                result=q(round(per_param, 3), "B"), notes=[note])
    return Reply(headline=lead, steps=[step],
                 tables=[table(["what was saved", "bytes per parameter", "GB", "GiB"], rows)])


def _size_bytes(size: Any) -> float | None:
    try:
        return float(parse(str(size), "byte").to("byte").magnitude) if size else None
    except (UnitError, ValueError, TypeError):
        return None
