"""Tool `memory`: the bytes a training or inference job needs on each GPU, term by term.

Contract: `MemoryInput`, `MemoryResult`, `run`. The parallelism solver reuses the pieces:
`prepare(inp)` gives the Job and Layout, `memory_terms.per_gpu(job, layout)` the bytes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from pydantic import Field

from clusterplan.db.rows import GpuRow
from clusterplan.tools.catalog_lookup import CatalogLookup, active_catalog
from clusterplan.tools.citing import note_ref
from clusterplan.tools.contract import NoteRef, Step, ToolResult
from clusterplan.tools.memory.fewest import min_gpus_by_kind
from clusterplan.tools.memory.input import MemoryInput
from clusterplan.tools.memory.job import Job, Layout, check_layout, resolve_job, resolve_shape
from clusterplan.tools.memory.kv_cache import bytes_per_token
from clusterplan.tools.memory.layouts import DEFAULT_NODE_GPUS, resolve_layout
from clusterplan.tools.memory.offload import plan as offload_plan
from clusterplan.tools.memory.precision import BYTES
from clusterplan.tools.memory.steps import (
    activation_step,
    gb,
    kv_steps,
    model_step,
    overhead_step,
    q,
    step,
    weight_steps,
)
from clusterplan.tools.memory.terms import Breakdown, checkpoint_bytes, model_states, per_gpu
from clusterplan.tools.memory.warnings import warnings_for
from clusterplan.tools.memory.whole import weights_by_precision, whole_model, whole_steps
from clusterplan.tools.registry import Tool

__all__ = ["MemoryInput", "MemoryResult", "run", "prepare"]


class MemoryResult(ToolResult):
    """Bytes per GPU by kind (decimal GB), whether it fits, and the fewest GPUs of each kind."""

    model: str = Field(description="catalog id, or custom-<N>b for a params_b model")
    workload: str
    params_b: float
    active_params_b: float = Field(description="used by each token: below params_b for a MoE")
    layout: dict[str, int] = Field(description="dp, tp, pp, ep and gpus used")
    per_gpu_gb: float = Field(description="the busiest GPU (first pipeline stage), GB")
    total_gb: float = Field(description="per_gpu_gb × gpus, GB")
    breakdown_gb: dict[str, float] = Field(
        description="per GPU: weights, gradients, optimizer, activations, kv_cache, overhead")
    model_states_gb: float = Field(
        description="per GPU: weights + gradients + optimizer states (the ZeRO paper's sum), GB")
    kv_cache_bytes_per_token: float = Field(description="whole model, all layers, bytes")
    kv_precision: str = Field(default="bf16", description="what the KV cache is stored in")
    kv_cache_whole_gb: float = Field(
        default=0.0, description="inference: the KV cache of the whole context for every "
        "sequence of the batch, over all GPUs together, GB (0 when training)")
    checkpoint_gb: float = Field(
        description="training: weights + optimizer states written by a full checkpoint "
        "(adapters only for LoRA/QLoRA); inference: the weights loaded")
    whole_model_gb: dict[str, float] = Field(
        default_factory=dict, description="the whole model before any sharding: weights, "
        "gradients, optimizer and model_states (their sum), GB")
    weights_by_precision_gb: dict[str, float] = Field(
        default_factory=dict, description="the model's weights at the common precisions, GB")
    gpu: str | None = None
    gpu_memory_gb: float | None = None
    cluster_memory_gb: float | None = Field(
        default=None, description="the GPU's memory × the GPUs of the layout, GB")
    fits: bool | None = Field(default=None, description="per_gpu_gb <= the GPU's memory")
    headroom_gb: float | None = Field(default=None, description="GPU memory - per_gpu_gb")
    offload: dict[str, Any] | None = Field(
        default=None, description="what lives in host RAM: inference (gpu_layers, "
        "host_ram_needed_gb, decode_tokens_per_s_max) or training (host_ram_per_node_gb, "
        "deepspeed_estimate_per_node_gb, pcie_s_per_step); null without offload")
    min_gpus: dict[str, int | None] = Field(
        default_factory=dict, description="per catalog GPU: fewest GPUs that hold the job "
        "(powers of two of tp within a node, pp and dp; beyond one node, whole nodes; null "
        "when none fits)")


class GpuFacts(NamedTuple):
    """What an answer reads of the GPU it was asked about, and the precisions it lacks."""

    id: str
    gpus_per_node: int
    memory_gb: float
    source_note: str
    lacks: tuple[tuple[str, str], ...] = ()  # (precision, why) for those it has no tensor cores for
    memory_bw_gbps: float | None = None


def prepare(inp: MemoryInput, catalog: Any = None) -> tuple[Job, Layout, list[str],
                                                            GpuFacts | None]:
    """Resolve model, defaults, GPU and layout in `catalog` (default: the active one):
    (job, layout, assumptions, the GPU's facts)."""
    said: list[str] = []
    shape = resolve_shape(inp, catalog)
    if shape.assumed:
        given = [k for k in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab")
                 if k not in shape.assumed]
        which = f"{', '.join(given)} as given, the rest" if given else "not given, so"
        sized = (f"the {shape.active_params_b:g}B active" if "experts" in shape.assumed
                 else f"{shape.params_b:g}B")
        said.append(f"architecture: {which} a Llama 3-like shape for {sized} "
                    f"parameters: layers={shape.layers}, hidden={shape.hidden}, heads="
                    f"{shape.heads}, kv_heads={shape.kv_heads}, ffn_hidden={shape.ffn_hidden} "
                    f"(assumed: {', '.join(shape.assumed)})")
        if "experts" in shape.assumed:
            said.append(f"mixture of experts: {shape.active_params_b:g}B of {shape.params_b:g}B "
                        f"active, its experts routed like Qwen3's: {shape.experts} "
                        f"experts of width {shape.ffn_hidden}, {shape.experts_per_token} a "
                        "token (assumed; model-qwen3#assumed-moe)")
    job = resolve_job(inp, shape, said)
    gpu_row = _find_gpu.find(inp.gpu, catalog) if inp.gpu else None
    node = gpu_row.gpus_per_node if gpu_row else DEFAULT_NODE_GPUS
    memory = gpu_row.memory_gb if gpu_row is not None else inp.gpu_memory_gb

    def holds(candidate: Layout) -> bool:
        return memory is not None and per_gpu(job, candidate).total / 1e9 <= memory

    layout = resolve_layout(inp, job, node, said, holds)
    check_layout(shape, layout)
    return job, layout, said, gpu_row


def run(inp: MemoryInput) -> MemoryResult:
    """Account for every byte on the busiest GPU; say whether it fits and on how many GPUs."""
    catalog = active_catalog()  # read once: every lookup below is in this catalog
    job, layout, said, gpu_row = prepare(inp, catalog)
    # The fewest-GPU search starts from the model states at tp = pp = 1: when the answer's own
    # layout is that (as it is unless tp or pp is given), they are computed once.
    whole = model_states(job, 1, 1, layout.ep) if job.training and layout.tp == 1 \
        and layout.pp == 1 else None
    per_token = bytes_per_token(job.shape, BYTES[job.kv_precision])
    parts = per_gpu(job, layout, whole, per_token)
    memory = gpu_row.memory_gb if gpu_row is not None else inp.gpu_memory_gb
    moved = offload_plan(inp, job, layout, parts, memory, gpu_row.memory_bw_gbps if gpu_row
                         else None, gpu_row.gpus_per_node if gpu_row else DEFAULT_NODE_GPUS)
    if moved is not None:
        parts = moved.parts
        said.extend(moved.said)
    weights, gradients, optimizer, activations, kv_cache, overhead = parts
    per_gpu_gb = gb(parts.total)
    fits = headroom = None
    if memory is not None:
        fits, headroom = per_gpu_gb <= memory, round(memory - per_gpu_gb, 3)
    min_gpus = min_gpus_by_kind(job, layout.ep, catalog, whole, per_token)
    said.extend(FIXED_ASSUMPTIONS)
    gpus = layout.gpus
    whole, by_precision = whole_model(job), weights_by_precision(job)
    fields = {
        "assumptions": said,
        "warnings": warnings_for(inp, job, layout, per_gpu_gb, memory)
        + _precision_warning(job.precision, gpu_row),
        "model": job.shape.id, "workload": job.workload, "params_b": job.shape.params_b,
        "active_params_b": job.shape.active_params_b,
        "layout": {"dp": layout.dp, "tp": layout.tp, "pp": layout.pp, "ep": layout.ep,
                   "gpus": gpus},
        "per_gpu_gb": per_gpu_gb, "total_gb": round(per_gpu_gb * gpus, 3),
        "breakdown_gb": {"weights": round(weights / 1e9, 3),
                         "gradients": round(gradients / 1e9, 3),
                         "optimizer": round(optimizer / 1e9, 3),
                         "activations": round(activations / 1e9, 3),
                         "kv_cache": round(kv_cache / 1e9, 3),
                         "overhead": round(overhead / 1e9, 3)},
        "model_states_gb": round((weights + gradients + optimizer) / 1e9, 3),
        "kv_cache_bytes_per_token": per_token, "kv_precision": job.kv_precision,
        "kv_cache_whole_gb": round(per_token * job.context_len * job.batch / 1e9, 3),
        "checkpoint_gb": round(checkpoint_bytes(job) / 1e9, 3),
        "whole_model_gb": whole, "weights_by_precision_gb": by_precision,
        "gpu": gpu_row.id if gpu_row else None, "gpu_memory_gb": memory, "fits": fits,
        "cluster_memory_gb": round(memory * gpus, 3) if memory is not None else None,
        "headroom_gb": headroom, "min_gpus": min_gpus,
        "offload": moved.fields if moved else None,
    }
    trace = _trace(job, layout, parts, per_token, gpu_row, len(min_gpus),
                   (moved.steps if moved else []) + whole_steps(job, whole, by_precision))
    return MemoryResult.model_construct(**fields, **trace)  # every value computed and typed here


def _trace(job: Job, layout: Layout, parts: Breakdown, per_token: float, gpu_row: GpuFacts | None,
           kinds: int, offload_steps: list[Step]) -> dict[str, Any]:
    """The steps, and the citations of the notes they name."""
    steps = [model_step(job), *weight_steps(job, layout, parts)]
    steps.append(activation_step(job, layout, parts.activations))
    steps += kv_steps(job, layout, per_token, parts.kv_cache)
    steps += offload_steps
    steps.append(overhead_step(parts))
    per_gpu_gb = gb(parts.total)
    steps.append(step("per GPU", "weights + gradients + optimizer + activations + KV cache "
                      "+ overhead", {}, q(per_gpu_gb, "GB"), []))
    if gpu_row is not None:
        memory = gpu_row.memory_gb
        steps.append(step("fits", "per GPU <= GPU memory", {"per_gpu": q(per_gpu_gb, "GB"),
                          "gpu_memory": q(memory, "GB")}, q(per_gpu_gb <= memory),
                          [gpu_row.source_note]))
    steps.append(step("fewest GPUs of each kind", "smallest tp·pp·dp (powers of two, tp "
                      "within a node; training beyond one node: whole nodes, pp any divisor) "
                      "whose busiest GPU holds the job", {},
                      q(kinds, "kinds"), ["zero-paper#model-parallel-split"]))
    keys = tuple(dict.fromkeys(n for s in steps for n in s.notes))
    return {"steps": steps, "citations": list(_citations(keys))}


def _precision_warning(precision: str, gpu_row: GpuFacts | None) -> list[str]:
    """The GPU has no tensor cores for the job's precision: say so, and what runs instead."""
    why = dict(gpu_row.lacks).get(precision) if gpu_row is not None and gpu_row.lacks else None
    if why is None:
        return []
    instead = "FP16 (with loss scaling when training)" if precision == "bf16" else "BF16/FP16"
    return [f"{why}: its matmuls would run as {instead}, from weights stored in "
            f"{precision.upper()}; the bytes counted here are that {precision.upper()} storage"]


def _gpu_facts(row: GpuRow) -> GpuFacts:
    lacks = tuple((p, why) for p in ("bf16", "fp16", "fp8") if (why := row.lacks(p)))
    return GpuFacts(row.id, row.gpus_per_node, float(row.memory_gb), row.source_note, lacks,
                    float(row.memory_bandwidth_tb_s) * 1000)


_find_gpu: CatalogLookup[GpuFacts] = CatalogLookup(
    "gpus", _gpu_facts, "gpu: unknown GPU {name!r}; nearest: {nearest}")


FIXED_ASSUMPTIONS = ("overhead: 0.5 GB CUDA context and 5% of allocated bytes for allocator "
                     "fragmentation per GPU", "GB means 1e9 bytes")


@lru_cache(maxsize=1024)
def _citations(keys: tuple[str, ...]) -> tuple[NoteRef, ...]:
    return tuple(note_ref(k) for k in keys)


TOOL = Tool(
    name="memory",
    description="Bytes per GPU for training (pretrain, full fine-tune, LoRA, QLoRA) or "
    "inference: weights, gradients, optimizer states, activations, KV cache, overhead; "
    "whether it fits a GPU and the fewest GPUs of each kind.",
    input_model=MemoryInput,
    output_model=MemoryResult,
    run=run,
)
