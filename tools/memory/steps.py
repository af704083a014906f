"""The steps of a memory answer: each term with its formula, inputs, result and notes."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from clusterplan.tools.contract import Quantity, Step
from clusterplan.tools.memory import activations, kv_cache
from clusterplan.tools.memory.job import Job, Layout
from clusterplan.tools.memory.model_shape import MOE_SHAPE_NOTE, SHAPE_NOTE
from clusterplan.tools.memory.precision import BYTES, NOTES
from clusterplan.tools.memory.terms import (
    CUDA_CONTEXT_BYTES,
    FRAGMENTATION,
    Breakdown,
    adapter_params,
    stage_share,
)

M = TypeVar("M", bound=BaseModel)

ZERO_NOTES = {0: [], 1: ["zero-paper#stage-1"], 2: ["zero-paper#stage-2"],
              3: ["zero-paper#stage-3"]}


_quantities: dict[tuple[object, str, type], Quantity] = {}


# a quantisation's average bits per weight (EXL2's "bpw") in place of a precision's bytes
EXL2_NOTE = "gptq-awq-formats#exl2-bpw"

def q(value: float | int | str | bool | None, unit: str = "") -> Quantity:
    """A Quantity, built once per distinct value and shared (results never mutate steps)."""
    key = (value, unit, type(value))
    found = _quantities.get(key)
    if found is None:
        if len(_quantities) > 50_000:
            _quantities.clear()
        found = _quantities[key] = trusted(Quantity, {"value": value, "unit": unit})
    return found


def step(label: str, formula: str, inputs: dict[str, Quantity], result: Quantity | None,
         notes: list[str]) -> Step:
    return trusted(Step, {"label": label, "formula": formula, "inputs": inputs,
                           "result": result, "notes": notes})


def trusted(cls: type[M], data: dict[str, Any]) -> M:
    """A model from values this module computed and typed itself: no revalidation needed."""
    return cls.model_construct(**data)


def gb(value: float) -> float:
    return round(value / 1e9, 3)


def model_step(job: Job) -> Step:
    s = job.shape
    # A catalog row cites its note; a user's own architecture needs none unless we filled in.
    notes = [SHAPE_NOTE] if s.assumed else [s.source_note] if s.source_note else []
    if "experts" in s.assumed:
        notes.append(MOE_SHAPE_NOTE)
    if s.source_note:
        formula = "catalog row"
    elif s.assumed:
        formula = f"params_b given; assumed Llama 3-like: {', '.join(s.assumed)}"
    else:
        formula = "params_b and architecture as given"
    inputs = {"params": q(s.params_b, "billion params"), "layers": q(s.layers),
              "hidden": q(s.hidden),
              "heads": q(s.heads), "kv_heads": q(s.kv_heads), "head_dim": q(s.head_dim)}
    if s.is_moe:
        inputs |= {"experts": q(s.experts), "experts_per_token": q(s.experts_per_token),
                   "active": q(s.active_params_b, "billion params"),
                   "expert_params": q(round(s.expert_params / 1e9, 2), "billion params")}
    return step("model", formula, inputs, q(s.name), notes)


def weight_steps(job: Job, layout: Layout, parts: Breakdown) -> list[Step]:
    """Weights, gradients and optimizer states per GPU, with the sharding that applies."""
    s, z = job.shape, job.zero_stage if job.training else 0
    split = {"tp": q(layout.tp), "pp": q(layout.pp), "stage_share": q(
        round(stage_share(job, layout.pp), 4))}
    if s.is_moe:
        split["ep"] = q(layout.ep)
    if job.training:
        split |= {"zero_stage": q(z), "dp": q(layout.dp)}
    moe = "; expert parameters also ÷ ep" if s.is_moe else ""
    shard = " ÷ tp × stage_share"
    notes = [NOTES[job.precision] if job.bits_per_weight is None else EXL2_NOTE,
             "zero-paper#model-parallel-split"]
    if layout.pp > 1:  # the first stage holds the input embedding whole
        shard = " ÷ tp × stage_share, + V·h × (1 - stage_share) ÷ tp (the first stage's embedding)"
        split["embedding_params"] = q(round(min(s.vocab * s.hidden, s.dense_params) / 1e9, 4),
                                      "billion params")
        notes.append("megatron-lm-2021#first-stage-embedding")
    if s.is_moe:  # every expert is stored; ep divides the expert share
        notes += ["model-llama-4#moe-storage", "model-llama-4#expert-share"]
    what = job.precision if job.bits_per_weight is None else f"{job.bits_per_weight:g} bpw"
    out = [step("weights", f"params × {job.weight_bytes:.4g} bytes ({what})"
                f"{shard}{moe}{' ÷ dp (ZeRO-3)' if z >= 3 else ''}",
                {"params": q(s.params_b, "billion params"), **split},
                q(gb(parts.weights), "GB"),
                notes + (["zero-paper#stage-3"] if z >= 3 else []))]
    if not job.training:
        return out
    trained = "params"
    if job.adapters:
        trained = "adapter params"
        lora = adapter_params(job)
        out.append(step("LoRA adapters", "r × (inputs + outputs) of each targeted matrix × "
                        "layers; adapters at 16 bits", {"rank": q(job.lora_rank), "targets": q(
                            ",".join(job.lora_targets)), "layers": q(s.layers)},
                        q(round(lora / 1e9, 4), "B params"), ["qlora-paper#lora-params"]))
    out.append(step("gradients", f"{trained} × {job.grad_bytes:g} bytes{shard}"
                    f"{' ÷ dp (ZeRO-2)' if z >= 2 else ''}", split,
                    q(gb(parts.gradients), "GB"), ["zero-paper#mixed-precision-bytes"]
                    + (ZERO_NOTES[2] if z >= 2 else [])))
    opt = job.optimizer
    out.append(step("optimizer states", f"{trained} × K, K = {opt.formula() if opt else 0} = "
                    f"{opt.per_param if opt else 0:.4g} bytes{shard}"
                    f"{' ÷ dp (ZeRO-1)' if z >= 1 else ''}", split,
                    q(gb(parts.optimizer), "GB"),
                    (opt.notes if opt else []) + (ZERO_NOTES[1] if z >= 1 else [])))
    return out


def activation_step(job: Job, layout: Layout, value: float) -> Step:
    s = job.shape
    split = activations.split_units(s)
    if job.training:
        inputs = {"s": q(job.seq_len, "tokens"), "b": q(job.micro_batch), "h": q(s.hidden),
                  "a": q(s.heads), "t": q(layout.tp), "layers_per_stage": q(
                      -(-s.layers // layout.pp)), "microbatches_in_flight": q(
                      job.in_flight or layout.pp)}
        formula = (activations.per_layer_formula(job.sequence_parallel, job.recompute,
                                                 job.flash, activations.split_units(s))
                   + " per layer × layers_per_stage × microbatches_in_flight"
                   + (" + one layer rebuilt during backward" if job.recompute == "full" else ""))
        notes = ["activation-memory#per-layer", f"activation-memory#{_variant(job)}",
                 "activation-memory#pipeline-in-flight"]
        if job.workload == "qlora":
            notes.append("qlora-paper#gradient-checkpointing")
    else:
        inputs = {"prefill_tokens": q(min(job.batch * job.context_len,
                                          activations.PREFILL_TOKENS)), "h": q(s.hidden),
                  "t": q(layout.tp)}
        formula = ("one layer's activations over one prefill chunk: "
                   + activations.per_layer_formula(False, "none", job.flash, split))
        notes = ["activation-memory#per-layer", "kv-cache#chunked-prefill"]
    if split != activations.GPT_SPLIT:  # the split part from the model's own shape
        gated = activations.gated_mlp(s)
        inputs |= {"f": q(s.ffn_hidden), "kv_heads": q(s.kv_heads), "head_dim": q(s.head_dim),
                   "mlp": q("gated (3 matrices)" if gated else "plain"),
                   "split_part": q(round(split, 3), "s·b·h")}
        notes += ["activation-memory#gated-mlp", "activation-memory#grouped-query"]
    if job.flash:
        notes.append("activation-memory#flash-attention")
    return step("activations", formula, inputs, q(gb(value), "GB"), notes)


def _variant(job: Job) -> str:
    if job.recompute != "none":
        return f"{job.recompute}-recompute"
    return "sequence-parallel" if job.sequence_parallel else "tensor-parallel"


def kv_steps(job: Job, layout: Layout, per_token: float, value: float) -> list[Step]:
    s = job.shape
    inputs = {"layers": q(s.layers), "bytes": q(BYTES[job.kv_precision])}
    inputs |= ({"kv_latent_dim": q(s.kv_latent_dim)} if s.attention == "mla"
               else {"kv_heads": q(s.kv_heads), "head_dim": q(s.head_dim)})
    mla = ["kv-cache#mla"] if s.attention == "mla" else ["kv-cache#gqa"]
    out = [step("KV cache per token", kv_cache.formula(s), inputs, q(per_token, "bytes"),
                ["kv-cache#per-token", *mla])]
    if not job.training:
        out.append(step("KV cache on this GPU", "per token × sequences per replica × context (in "
                        "16-token pages when paged) × this GPU's share (tp, pp)",
                        {"sequences": q(-(-job.batch // layout.dp)), "context": q(
                            job.context_len, "tokens"), "tp": q(layout.tp), "pp": q(layout.pp)},
                        q(gb(value), "GB"), ["kv-cache#per-token", "kv-cache#paged-blocks"]))
    return out


def overhead_step(parts: Breakdown) -> Step:
    allocated = parts.total - parts.overhead
    return step("overhead", f"CUDA context {CUDA_CONTEXT_BYTES / 1e9:g} GB + fragmentation "
                f"{FRAGMENTATION:.0%} of allocated", {"allocated": q(gb(allocated), "GB")},
                q(gb(parts.overhead), "GB"), ["gpu-memory-overhead#cuda-context",
                                              "gpu-memory-overhead#fragmentation"])
