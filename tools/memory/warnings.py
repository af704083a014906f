"""What a memory answer warns about: ignored inputs, stretched limits, tight fits."""

from __future__ import annotations

from clusterplan.tools.memory.input import MemoryInput
from clusterplan.tools.memory.job import Job, Layout

TRAINING_ONLY = ("optimizer", "master_weights", "zero_stage", "seq_len", "micro_batch",
                 "microbatches_in_flight", "recompute", "sequence_parallel", "lora_rank",
                 "lora_targets")
INFERENCE_ONLY = ("batch", "context_len", "kv_precision")
LORA_ONLY = ("lora_rank", "lora_targets")
TIGHT = 0.05  # warn when less than 5% of the GPU's memory is left


def warnings_for(inp: MemoryInput, job: Job, layout: Layout, per_gpu_gb: float,
                 memory_gb: float | None) -> list[str]:
    """Plain-language warnings for one answer."""
    out = _ignored(inp, job)
    tokens = job.seq_len if job.training else job.context_len
    if tokens > job.shape.max_context:
        out.append(f"{'seq_len' if job.training else 'context_len'} {tokens:,} exceeds "
                   f"{job.shape.name}'s published context of {job.shape.max_context:,} tokens")
    if job.training and job.sequence_parallel and layout.tp == 1:
        out.append("sequence_parallel has no effect without tensor parallelism (tp = 1)")
    if job.training and job.precision == "fp8":
        out.append("fp8 training: weights counted at 1 byte, gradients at 16 bits; recipes that "
                   "keep BF16 weights as well need about 2 bytes/param more")
    if memory_gb is not None and 0 <= memory_gb - per_gpu_gb < TIGHT * memory_gb:
        out.append(f"tight fit: under {TIGHT:.0%} of the GPU's {memory_gb:.3g} GB is left; "
                   "allocator spikes may still run out of memory")
    if job.training and layout.dp > 1 and job.zero_stage == 0:
        out.append("zero_stage 0: every data-parallel rank keeps a full copy of the model states")
    return out


def _ignored(inp: MemoryInput, job: Job) -> list[str]:
    unused = INFERENCE_ONLY if job.training else TRAINING_ONLY
    named = inp.model_fields_set  # every field defaults to None, so a value was given by name
    if named.isdisjoint(unused) and (job.adapters or named.isdisjoint(LORA_ONLY)):
        return []
    given = [f for f in unused if getattr(inp, f) is not None]
    if not job.adapters:
        given += [f for f in LORA_ONLY if getattr(inp, f) is not None and f not in given]
    return [f"{', '.join(given)} ignored: not used for workload {job.workload}"] if given else []
