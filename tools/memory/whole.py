"""The whole model, before any sharding: what people compare against the memory they have.

A per-GPU breakdown answers "does it fit"; the question usually quotes totals instead ("the
model states of a 70B model", "8×A100 is 640 GB", "the Q4_K_M file is 42 GB"). These are the
same bytes summed over the job, the weights at the common precisions, and the GPUs' memory
summed over the cluster.
"""

from __future__ import annotations

from clusterplan.tools.contract import Step
from clusterplan.tools.memory.job import Job
from clusterplan.tools.memory.precision import NOTES, stored_bytes_per_param
from clusterplan.tools.memory.steps import gb, q, step
from clusterplan.tools.memory.terms import model_states

# The precisions a weights file is most often published or loaded in: full FP32 (the default
# dtype of a plain `from_pretrained`), BF16, 8-bit, and the llama.cpp / Ollama 8- and 4-bit
# files, and a 4-bit GPTQ/AWQ/bitsandbytes load.
SHOWN_PRECISIONS = ("fp32", "bf16", "fp8", "q8_0", "q4_k_m", "q4_0", "int4")


def whole_model(job: Job) -> dict[str, float]:
    """Weights, gradients, optimizer states and their sum (the model states) over the whole
    job, in GB: one GPU's terms at tp = pp = ep = dp = 1."""
    w, ws, g, gs, o, os = model_states(job, 1, 1, 1)
    weights, gradients, optimizer = w + ws, g + gs, o + os
    return {"weights": gb(weights), "gradients": gb(gradients), "optimizer": gb(optimizer),
            "model_states": gb(weights + gradients + optimizer)}


def weights_by_precision(job: Job) -> dict[str, float]:
    """The weights of the model at each shown precision, in GB (a storage format counts its
    whole mix of types, as the file holds it)."""
    shape = job.shape
    return {p: gb(shape.params * stored_bytes_per_param(p, shape)) for p in SHOWN_PRECISIONS}


def whole_steps(job: Job, whole: dict[str, float], by_precision: dict[str, float]) -> list[Step]:
    """The steps behind the totals, each naming its notes."""
    k = job.optimizer.per_param if job.optimizer else 0.0
    steps = [step("model states, whole model", f"params × (weights {job.weight_bytes:g} + "
                  f"gradients {job.grad_bytes:g} + optimizer {k:g} bytes)" if job.training
                  else "params × weight bytes",
                  {"params": q(job.shape.params_b, "billion params")},
                  q(whole["model_states"], "GB"),
                  ["zero-paper#mixed-precision-bytes",
                   *(job.optimizer.notes if job.optimizer else [])])]
    steps.append(step("weights at common precisions", "params × bytes per parameter of each "
                      "precision (storage formats: their mix of types)",
                      {p: q(v, "GB") for p, v in by_precision.items()}, None,
                      list(dict.fromkeys(NOTES[p] for p in SHOWN_PRECISIONS))))
    return steps
