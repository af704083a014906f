"""Memory questions: how much, does it fit, how many GPUs, how big a checkpoint."""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, pct, plural, table
from clusterplan.assistant.parsing.jobs import (
    LEAST,
    cap,
    gpu_name,
    memory_payload,
    model_name,
    subject,
)
from clusterplan.assistant.routing import kv_formula
from clusterplan.assistant.routing.checkpoint_rule import (
    _size_bytes,
    checkpoint_without_model,
    quoted_size,
)
from clusterplan.assistant.routing.count_rule import count_without_model
from clusterplan.assistant.routing.dispatch import Calls, Reply, model_fields, model_shape, slot
from clusterplan.assistant.routing.largest_fit import largest_fit
from clusterplan.assistant.routing.network import write_time
from clusterplan.assistant.routing.offload import offload_lead, smaller_format
from clusterplan.assistant.routing.size_rule import budget_without_model, memory_without_model
from clusterplan.db.active import catalog
from clusterplan.tools.contract import Step, ToolError, q

TERMS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
SHOWN_GPUS = ("h100-sxm", "h200-sxm", "b200-sxm", "a100-sxm-80gb", "mi300x", "rtx-4090")


def breakdown_table(result: dict[str, Any]) -> str:
    rows = [[term.replace("_", " "), result["breakdown_gb"].get(term, 0.0)] for term in TERMS]
    rows.append(["total per GPU", result["per_gpu_gb"]])
    return table(["term", "GB per GPU"], rows)


PRECISION_NAMES = {"fp32": "FP32", "bf16": "BF16 / FP16", "fp8": "FP8 / INT8",
                   "q8_0": "GGUF Q8_0", "q4_k_m": "GGUF Q4_K_M", "q4_0": "GGUF Q4_0",
                   "int4": "4-bit (GPTQ / AWQ / NF4)"}


def whole_table(result: dict[str, Any]) -> str:
    """The whole model before sharding, and the cluster's memory: the totals people compare."""
    whole = result.get("whole_model_gb") or {}
    if not whole:
        return ""
    rows: list[list[Any]] = [["weights", whole["weights"]]]
    if result["workload"] != "inference":
        rows += [["gradients", whole["gradients"]], ["optimizer states", whole["optimizer"]],
                 ["model states (weights + gradients + optimizer)", whole["model_states"]]]
    rows += cluster_rows(result)
    rows.append(["KV cache per token (MB)", result["kv_cache_bytes_per_token"] / 1e6])
    if result.get("kv_cache_whole_gb"):
        rows.append(["KV cache of the context and batch, all GPUs together",
                     result["kv_cache_whole_gb"]])
    return table(["whole model, before sharding", "GB"], rows)


def cluster_rows(result: dict[str, Any]) -> list[list[Any]]:
    """The GPUs' memory in all: the bytes the calculators use, and the datasheet's label times
    the count, the total people quote ("8 x 80GB = 640GB"; an 80GB A100 holds 80 GiB)."""
    total = result.get("cluster_memory_gb")
    if not total:
        return []
    gpus = result["layout"]["gpus"]
    rows: list[list[Any]] = [[f"GPU memory of all {gpus} GPUs" if gpus > 1
                              else "GPU memory of the GPU", total]]
    row = catalog().gpus.rows.get(result.get("gpu") or "")
    label = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*GB\s*", row.memory_label if row else "")
    if label and gpus > 1:
        rows.append([f"the same by the datasheet's label ({gpus} × {row.memory_label})",
                     gpus * float(label.group(1))])
    return rows


def precision_table(result: dict[str, Any]) -> str:
    """The weights at each common precision: what a smaller format would save."""
    found = result.get("weights_by_precision_gb") or {}
    return table(["weights stored as", "GB"],
                 [[PRECISION_NAMES.get(p, p), v] for p, v in found.items()]) if found else ""


def totals(result: dict[str, Any]) -> list[str]:
    """The totals tables that apply to this result."""
    return [t for t in (whole_table(result), precision_table(result)) if t]


def min_gpus_table(result: dict[str, Any]) -> str:
    fewest = result.get("min_gpus") or {}
    shown = [g for g in SHOWN_GPUS if g in fewest] or list(fewest)[:6]
    asked = result.get("gpu")
    if asked in fewest and asked not in shown:  # the GPU the question named comes first
        shown = [asked, *shown]
    return table(["GPU", "fewest GPUs that hold it"],
                 [[gpu_name(g), fewest[g] if fewest[g] is not None else "none fits"]
                  for g in shown])


def memory(intent: Intent, calls: Calls) -> Reply:
    """How much memory a job needs; the KV cache first when the question is about it."""
    if slot(intent, "gpu") or "gpu_memory_gb" in intent.slots:
        return fit(intent, calls, least=False)
    if not any(k in intent.slots for k in ("model", "params_b", "config")):
        return memory_without_model(intent)
    result = calls.run("memory", memory_payload(intent), "bytes per GPU, term by term")
    if result.get("offload"):
        return _offloaded(intent, calls, result)
    parts = result["breakdown_gb"]
    lead = (f"{cap(subject(intent, result))} needs about **{num(result['per_gpu_gb'])} GB** of "
            f"GPU memory (weights {num(parts['weights'])} GB")
    tables = [breakdown_table(result), min_gpus_table(result), *totals(result)]
    steps: list[Step] = []
    if result["workload"] == "inference":
        lead += f", KV cache {num(parts['kv_cache'])} GB"
        lead = _kv_first(intent, result, lead, tables, steps)
    else:
        lead += f", gradients {num(parts['gradients'])} GB, optimizer states " \
                f"{num(parts['optimizer'])} GB, activations {num(parts['activations'])} GB"
    gpus = int(result["layout"]["gpus"])
    lead += (f", overhead {num(parts['overhead'])} GB) on one GPU before any sharding."
             if gpus == 1 else f", overhead {num(parts['overhead'])} GB) per GPU, on each of "
             f"{gpus} GPUs.")
    fewest = (result.get("min_gpus") or {}).get("h100-sxm")
    if fewest:
        lead += f" The fewest H100 80GB that hold it: {fewest}."
    if quoted := _quoted_term(intent, result):
        lead = f"{quoted[0]} {lead}"
        steps.append(quoted[1])
    if intent.slots.get("at_home") and result["workload"] == "inference" \
            and "precision" not in intent.slots:
        home = _at_home(intent, calls)
        lead += " " + home[0]
        tables.insert(1, home[1])
    return Reply(headline=lead, tables=tables, steps=steps)


def _quoted_term(intent: Intent, result: dict[str, Any]) -> tuple[str, Step] | None:
    """"Fine-tuning a 7B model requires 7 x 4 x 4 = 112 GB, how is that derived?": the term of
    the job the quoted size is (within 5%), as bytes a parameter times the parameters, each
    byte named (zero-paper#mixed-precision-bytes)."""
    size = _size_bytes(intent.slots.get("size"))
    whole, params = result.get("whole_model_gb") or {}, float(result["params_b"])
    if not size or not params or result["workload"] == "inference":
        return None
    quoted_gb = size / 1e9
    states = whole.get("model_states")
    if not states or abs(states - quoted_gb) > 0.05 * quoted_gb:
        return None
    parts = result["breakdown_gb"] if int(result["layout"]["gpus"]) == 1 else whole
    each = {k: float(parts[k]) / params for k in ("weights", "gradients", "optimizer")}
    said = (f"The {num(quoted_gb)} GB quoted is the model states alone: "
            f"**{num(states / params)} bytes a parameter** × {num(params)}B = {num(states)} GB "
            f"(weights {num(each['weights'])}, gradients {num(each['gradients'])}, optimizer "
            f"states {num(each['optimizer'])}")
    if [round(v, 1) for v in each.values()] == [2.0, 2.0, 12.0]:
        said += ("; the 12 are Adam's in mixed precision: an FP32 copy of the weights and two "
                 "FP32 moments, 4 bytes each). Four FP32 copies of 4 bytes (weights, gradients, "
                 "two moments) make the same 16")
    else:
        said += ")"
    said += ". Activations and runtime overhead come on top."
    step = Step(label="the quoted size as bytes a parameter",
                formula="model states ÷ parameters",
                inputs={"model states": q(states, "GB"), "parameters": q(params * 1e9)},
                result=q(round(states / params, 3), "bytes per parameter"),
                notes=["zero-paper#mixed-precision-bytes", "zero-paper#k-12"])
    return said, step


# Consumer cards a model is run on at home, and the weight formats people run them in
HOME_GPUS = ("rtx-3090", "rtx-4090", "rtx-5090")
HOME_FORMATS = (("bf16", "BF16"), ("int8", "8-bit"), ("q4_k_m", "GGUF Q4_K_M"))


def _at_home(intent: Intent, calls: Calls) -> tuple[str, str]:
    """'Run it locally at home': the fewest consumer cards in each weight format, the sentence
    naming the smallest set (the 4-bit GGUF most home setups run)."""
    rows, counts = [], {}
    for precision, label in HOME_FORMATS:
        result = calls.run("memory", memory_payload(intent) | {"precision": precision},
                           f"the fewest consumer GPUs with {label} weights", aside=True)
        fewest = result.get("min_gpus") or {}
        counts[precision] = [fewest.get(g) for g in HOME_GPUS]
        rows.append([label, result["whole_model_gb"]["weights"],
                     *[n if n is not None else "none fits" for n in counts[precision]]])
    four = counts["q4_k_m"]
    said = ("At home in GGUF Q4_K_M: " + ", ".join(
        f"{n}× {gpu_name(g)}" for g, n in zip(HOME_GPUS, four, strict=True) if n)
        + " (each format in the table below).") if any(four) else \
        "No number of consumer cards holds it, even in 4 bits."
    header = ["weights as", "GB", *[f"fewest {gpu_name(g)}" for g in HOME_GPUS]]
    return said, table(header, rows)


def _kv_first(intent: Intent, result: dict[str, Any], lead: str, tables: list[str],
              steps: list[Step]) -> str:
    """A served model's answer led by its KV cache when the question is about the cache, and
    by the asker's own KV formula, set against the model's, when one is shown."""
    if _asks_kv(intent):
        lead = f"{_kv_sentence(intent, result)} {lead}"
    formula = _their_formula(intent, result)
    if formula:
        lead = f"{formula[0]} {lead}"
        tables.insert(0, formula[1])
        steps.append(formula[2])
    return lead


def _their_formula(intent: Intent, result: dict[str, Any]) -> tuple[str, str, Step] | None:
    shape = model_shape(intent) if "kv_formula" in intent.slots else None
    if shape is None:
        return None
    return kv_formula.check(intent, shape, float(result["kv_cache_bytes_per_token"]))


def _asks_kv(intent: Intent) -> bool:
    """The question is about the KV cache: it names it, or gives a context or batch size."""
    return any(k in intent.slots for k in ("kv_focus", "context_len", "batch"))


def _kv_sentence(intent: Intent, result: dict[str, Any]) -> str:
    """The cache's bytes per token and total, in the precision it is kept in; a 16-bit cache
    the question did not choose is set beside the FP8 cache the engines offer."""
    per_token, cache_gb = result["kv_cache_bytes_per_token"], result["breakdown_gb"]["kv_cache"]
    context, batch = slot(intent, "context_len", 4096), slot(intent, "batch", 1)
    kept = str(result.get("kv_precision") or "bf16")
    gpus = int(result["layout"]["gpus"])
    whole_gb = per_token * context * batch / 1e9 if gpus > 1 else cache_gb
    said = (f"The KV cache, kept in {kept.upper()}, takes "
            f"**{num(per_token)} bytes per token**: **{num(whole_gb)} GB** for "
            f"{plural(context, 'token')} × {plural(batch, 'sequence')}"
            + (f" ({num(cache_gb)} GB on each of {gpus} GPUs)" if gpus > 1 else ""))
    if "kv_precision" not in intent.slots and kept in ("bf16", "fp16"):
        if GGUF_TYPE.match(str(slot(intent, "precision") or "")):
            # llama.cpp keeps the cache in F16 unless told; its 8-bit cache type is Q8_0, 34
            # bytes per 32 values (gguf-quant-types#block-sizes)
            said += (f"; a Q8_0 cache (llama.cpp's `--cache-type-k q8_0 --cache-type-v q8_0`, "
                     f"8.5 bits a value) takes {num(whole_gb * 8.5 / 16)} GB")
        else:
            said += (f"; an FP8 cache (vLLM's `--kv-cache-dtype fp8`) halves it to "
                     f"{num(whole_gb / 2)} GB")
    return said + "."


# A GGUF weight type (llama.cpp): Q4_K_M, Q8_0, IQ2_XS, TQ1_0 ...
GGUF_TYPE = re.compile(r"(?:i?q\d|tq\d)", re.IGNORECASE)


def fit(intent: Intent, calls: Calls, least: bool = True) -> Reply:
    """Whether the job fits the GPUs named, with the headroom or the shortfall."""
    if not any(k in intent.slots for k in ("model", "params_b", "config")):
        if intent.slots.get("largest_model") and slot(intent, "gpu"):
            return largest_fit(intent, calls)  # "the biggest model I can QLoRA on a 4090?"
        return budget_without_model(intent)
    result = calls.run("memory", memory_payload(intent, least=least),
                       "bytes per GPU on the GPUs named")
    if result.get("offload"):
        reply = _offloaded(intent, calls, result)
        reply.assumptions += _least(result) if least else []
        return reply
    gpus = result["layout"]["gpus"]
    # "6GB VRAM" with no GPU kind: the memory named is the budget.
    gpu = gpu_name(result["gpu"]) if result["gpu"] else \
        f"GPU with {num(result['gpu_memory_gb'])} GB"
    per_gpu, memory_gb, spare = result["per_gpu_gb"], result["gpu_memory_gb"], result["headroom_gb"]
    verdict = "Yes, it fits" if result["fits"] else "No, it does not fit"
    lead = (f"{verdict}: {subject(intent, result)} on {gpus}× {gpu} needs "
            f"**{num(per_gpu)} GB per GPU** of {num(memory_gb)} GB")
    steps: list[Step] = []
    if result["fits"]:
        lead += f", leaving **{num(spare)} GB** free per GPU."
        thin = _thin_margin(intent, spare, memory_gb)
        if thin:
            lead += thin[0]
            steps.append(thin[1])
        if result["workload"] == "inference":
            extra, step = _kv_room(result)
            lead += " " + extra
            steps.append(step)
            if intent.slots.get("context_room_asked") and "context_len" not in intent.slots \
                    and int(slot(intent, "batch") or 1) == 1:
                longest = _longest_context(intent, result, int(step.result.value))
                lead += " " + longest[0]
                steps.append(longest[1])
            if intent.slots.get("max_batch_asked"):
                most = _most_sequences(intent, result, int(step.result.value))
                lead += " " + most[0]
                steps.append(most[1])
        one_gpu = _vllm_on_one_gpu(intent, result)
        if one_gpu:
            lead += one_gpu[0]
            steps.append(one_gpu[1])
        replicated = _replicated_oom(intent, calls, result)
        if replicated:
            lead += replicated[0]
            steps.append(replicated[1])
        elif slot(intent, "oom_seen") and result["workload"] != "inference":
            lead += OOM_THOUGH_IT_FITS
            steps.append(Step(label="an out-of-memory error where the estimate fits",
                              formula="per GPU estimated < GPU memory: the run's settings differ",
                              inputs={"per GPU": q(result["per_gpu_gb"], "GB"),
                                      "GPU memory": q(result["gpu_memory_gb"], "GB")},
                              result=q(float(result["per_gpu_gb"]) /
                                       float(result["gpu_memory_gb"])),
                              notes=["activation-memory#full-recompute"]))
    else:
        fewest = (result.get("min_gpus") or {}).get(result["gpu"])
        layout = result["layout"]
        split = (" when tensor or pipeline parallelism splits the model: with data parallelism "
                 "alone each GPU keeps the whole model" + (" and its gradients"
                                                          if result["workload"] != "inference"
                                                          and (slot(intent, "zero_stage") or 0) < 2
                                                          else ""))
        unsplit = layout["tp"] == 1 and layout["pp"] == 1 and fewest and fewest <= gpus
        sequences = _split_sequences(intent, calls, result)
        whole = " with whole sequences on each GPU" if sequences else ""
        more = f" The fewest {gpu} that hold it: **{fewest}**{split if unsplit else ''}." \
            if fewest else \
            f" No number of {gpu} holds it{whole}." if result["gpu"] else \
            " The weights at smaller precisions are below."
        lead += f", {num(-spare)} GB more than it has.{more}"
        rescue = None if least else _fits_with_least(intent, calls, result)
        if rescue:
            lead += " " + rescue[0]
            steps.append(rescue[1])
        elif sequences:
            lead += " " + sequences[0]
            steps.append(sequences[1])
        elif result["workload"] == "full_finetune":
            lead += _lighter_methods(intent, calls, result)
        elif result["workload"] == "inference" and "precision" not in intent.slots:
            lead += _smaller_precision(intent, calls)
    tables = [breakdown_table(result), min_gpus_table(result), *totals(result)]
    if result["workload"] == "inference":
        # "the KV cache itself is already 623GB (2*64*2048*14848*80*2)": the cache first
        lead = _kv_first(intent, result, lead, tables, steps)
    return Reply(headline=lead, tables=tables, steps=steps,
                 assumptions=_least(result) if least else [])


# Headroom under this share of the GPU is read as too thin to survive what the count leaves
# out (this tool's convention, stated in the step; gpu-memory-overhead#fragmentation).
THIN_MARGIN = 0.1


def _thin_margin(intent: Intent, spare: float, memory_gb: float) -> tuple[str, Step] | None:
    """A run that ran out of memory where the count says it fits by a sliver: the sliver is
    what the count leaves out (allocator fragmentation, communication buffers, the loss's
    temporaries), so the error and the count agree."""
    if not slot(intent, "oom_seen") or spare > THIN_MARGIN * memory_gb:
        return None
    said = (f" That is only {pct(spare / memory_gb)} of the GPU, and the run ran out of memory: "
            "the allocator's fragmentation, communication buffers (ZeRO-3 gathers and prefetches "
            "whole layers) and the loss's temporaries take such a margin, so give it more room: "
            "more GPUs, activation recompute, or the optimizer offloaded.")
    step = Step(label="headroom against an out-of-memory run",
                formula=f"free / GPU memory < {THIN_MARGIN:.0%} (this tool's convention): too "
                "thin for what the count leaves out",
                inputs={"free": q(spare, "GB"), "GPU memory": q(memory_gb, "GB")},
                result=q(spare / memory_gb), notes=["gpu-memory-overhead#fragmentation",
                                                     "zero3-at-scale#fsdp-prefetch",
                                                     "logits-memory#fp32-for-the-loss"])
    return said, step


def _vllm_on_one_gpu(intent: Intent, result: dict[str, Any]) -> tuple[str, Step] | None:
    """vLLM ran out of memory on several GPUs that hold the model sharded, and no tensor
    parallelism was set: vLLM's default is one GPU, which the whole weights overflow."""
    weights = (result.get("whole_model_gb") or {}).get("weights", 0.0)
    memory_gb, gpus = result["gpu_memory_gb"], int(result["layout"]["gpus"])
    if not (slot(intent, "vllm_no_tp") and slot(intent, "oom_seen") and gpus > 1
            and result["workload"] == "inference" and weights > memory_gb):
        return None
    said = (f" But vLLM runs on **one GPU** unless `--tensor-parallel-size` is set (its default "
            f"is 1), and the whole weights, {num(weights)} GB, do not fit one {num(memory_gb)} GB "
            f"GPU: that is the out-of-memory error. Start it with `--tensor-parallel-size "
            f"{gpus}`.")
    step = Step(label="vLLM without tensor parallelism", formula="whole weights > one GPU's "
                "memory (tensor_parallel_size defaults to 1)",
                inputs={"weights": q(weights, "GB"), "GPU memory": q(memory_gb, "GB")},
                result=q(weights / memory_gb),
                notes=["serving-memory-preallocation#vllm-tp-default"])
    return said, step


# A training run that ran out of memory where the estimate fits: the settings differ from the
# estimate's (activation-memory#full-recompute: activations grow with micro-batch and length)
OOM_THOUGH_IT_FITS = (" So it can fit: an out-of-memory error points at the settings: a larger "
                      "micro-batch or longer sequences than assumed, activation recompute off, or "
                      "sharding below what the estimate assumes "
                      "[`activation-memory#full-recompute`].")


def _replicated_oom(intent: Intent, calls: Calls, result: dict[str, Any]
                    ) -> tuple[str, Step] | None:
    """A training run that ran out of memory on several GPUs that hold it only sharded (ZeRO-3
    assumed, not said): with plain data parallelism (DDP, ZeRO-1 or 2) every GPU keeps the
    whole model, and the whole job on one GPU is what each must hold."""
    gpus = int(result["layout"]["gpus"])
    if not slot(intent, "oom_seen") or gpus < 2 or result["workload"] == "inference" \
            or "zero_stage" in intent.slots or int(result["layout"].get("tp") or 1) > 1:
        return None
    payload = memory_payload(intent, least=True) | {"gpus": 1, "zero_stage": 0}
    whole = calls.run("memory", payload, "the same job with the whole model on each GPU")
    if whole["fits"]:
        return None
    per_gpu, memory_gb = whole["per_gpu_gb"], whole["gpu_memory_gb"]
    said = (f" That is with the model sharded over the {gpus} GPUs (ZeRO-3 or FSDP). With data "
            f"parallelism that keeps the whole model on each GPU (DDP, ZeRO-1 or ZeRO-2) each "
            f"needs **{num(per_gpu)} GB**, over its {num(memory_gb)} GB: more GPUs do not help "
            f"then, which matches the out-of-memory error. Shard the model with ZeRO-3 or FSDP.")
    step = Step(label="the whole model on each GPU, as plain data parallelism keeps it",
                formula="the job's memory on one GPU > the GPU's memory",
                inputs={"per GPU, whole model": q(per_gpu, "GB"),
                        "GPU memory": q(memory_gb, "GB")},
                result=q(per_gpu / memory_gb),
                notes=["zero-paper#stage-1", "zero-paper#stage-2", "zero-paper#stage-3"])
    return said, step


# serving-memory-preallocation#vllm-default: vLLM's gpu_memory_utilization by default
VLLM_SHARE = 0.9

# Weight formats a server loads instead of 16 bits, widest first (quant-formats notes).
SMALLER_PRECISIONS = ("fp8", "int4")


def _smaller_precision(intent: Intent, calls: Calls) -> str:
    """A served model that misses its GPUs at 16 bits, with no precision asked: the widest
    weight format that fits the same GPUs, said beside the 16-bit miss."""
    for precision in SMALLER_PRECISIONS:
        alt = calls.run("memory", memory_payload(intent) | {"precision": precision},
                        f"bytes per GPU with {precision} weights", aside=True)
        if alt.get("fits"):
            return (f" With {PRECISION_NAMES[precision]} weights it needs "
                    f"**{num(alt['per_gpu_gb'])} GB per GPU** and fits.")
    return ""


def _fits_with_least(intent: Intent, calls: Calls, result: dict[str, Any],
                     offloaded: bool = False) -> tuple[str, Step] | None:
    """A training job that misses only because no activation recompute was assumed for it: the
    same GPUs with the least-memory settings (recompute, ZeRO-3), said beside the default when
    they hold it. A setting the question chose is never changed. `offloaded`: the job keeps
    its optimizer in host RAM, and the GPU's part is what must fit."""
    if result["workload"] in ("inference", "qlora"):  # QLoRA already assumes recompute
        return None
    given, least = memory_payload(intent), memory_payload(intent, least=True)
    if given.get("recompute") is not None:  # the question chose it
        return None
    alt = calls.run("memory", least, "bytes per GPU with activation recompute", aside=True)
    if not alt["fits"] or (alt.get("offload") and not offloaded):
        return None
    # The forward runs twice: 2 of 6 FLOPs a parameter more, or 2 of 4 when the frozen base
    # skips its weight gradients (megatron-lm-2021#flops-formula, qlora-paper#lora-compute).
    more = "50%" if result["workload"] == "lora" else "33%"
    changed = [f"activation recompute (gradient checkpointing: the forward pass runs twice, "
               f"{more} more compute)"]
    if given.get("zero_stage") is None and least.get("zero_stage") is not None \
            and result["layout"]["gpus"] > 1:
        changed.append(f"ZeRO stage {least['zero_stage']}")
    text = (f"With {' and '.join(changed)} it needs **{num(alt['per_gpu_gb'])} GB per GPU** "
            f"and fits, leaving {num(alt['headroom_gb'])} GB free.")
    step = Step(label="with the least-memory settings",
                formula="the same job with recompute full and ZeRO stage 3",
                inputs={"recompute": q(least["recompute"]), "zero_stage": q(least["zero_stage"])},
                result=q(alt["per_gpu_gb"], "GB per GPU"),
                notes=["activation-memory#full-recompute", "zero-paper#stage-3",
                       "megatron-lm-2021#flops-formula", "qlora-paper#lora-compute"])
    return text, step


# context-parallelism#min-tokens-per-rank: splitting a sequence pays from 16,384 tokens on.
LONG_SEQUENCE = 16_384


def _split_sequences(intent: Intent, calls: Calls, result: dict[str, Any]
                     ) -> tuple[str, Step] | None:
    """A long-sequence training job that misses the GPUs named: the layout search, which
    splits each sequence over GPUs (context parallelism, what DeepSpeed Ulysses and xtuner call
    sequence parallelism), says whether and how those GPUs hold it. A global batch of one
    sequence a GPU is assumed, and said."""
    seq_len = intent.slots.get("seq_len") or 0
    gpus = result["layout"]["gpus"]
    if result["workload"] == "inference" or seq_len < LONG_SEQUENCE or gpus < 2 \
            or not result["gpu"]:
        return None
    payload = {**model_fields(intent), "gpu": result["gpu"], "gpus": gpus,
               "workload": result["workload"], "seq_len": seq_len, "global_batch": gpus}
    try:
        plans = calls.run("parallelism", payload, "layouts that split each sequence over GPUs",
                          aside=True).get("plans") or []
    except (ToolError, ValueError, LookupError):
        return None
    split = [p for p in plans if p.get("cp", 1) > 1]
    if not split:
        return None
    best = split[0]
    shape = " × ".join(f"{k.upper()} {best[k]}" for k in ("tp", "cp", "pp", "dp") if best[k] > 1)
    text = (f"Split each {num(seq_len)}-token sequence over the GPUs (context parallelism; "
            f"DeepSpeed Ulysses and xtuner call it sequence parallelism) and it fits: "
            f"**{shape}**, ZeRO stage {best['zero_stage']}, recompute {best['recompute']}, "
            f"**{num(best['per_gpu_gb'])} GB per GPU**, for a global batch of {gpus} sequences "
            f"(assumed: one a GPU).")
    step = Step(label="the same job with each sequence split over GPUs",
                formula="the layout search's fastest layout with cp > 1 that fits",
                inputs={"seq_len": q(seq_len, "tokens"), "gpus": q(gpus),
                        "global_batch": q(gpus, "sequences")},
                result=q(best["per_gpu_gb"], "GB per GPU"),
                notes=["context-parallelism#memory", "context-parallelism#what-it-splits"])
    return text, step


def _lighter_methods(intent: Intent, calls: Calls, result: dict[str, Any]) -> str:
    """A full fine-tune that misses the GPUs named: the same model trained as LoRA and QLoRA
    on them, with the least-memory settings, so the answer says which method fits."""
    said: list[str] = []
    fitted = False
    attention = ["q", "k", "v", "o"]
    for method, words, targets in (("lora", "LoRA", None), ("qlora", "QLoRA (4-bit base)", None),
                                   ("qlora", "QLoRA with adapters on attention only",
                                    attention)):
        if targets and fitted:
            break  # adapters on all seven linear layers already fit: no need to narrow them
        payload = memory_payload(intent, least=True) | {"workload": method}
        if targets:
            payload["lora_targets"] = targets
        payload.pop("precision", None)  # each method's own storage: 16-bit, or NF4 for QLoRA
        try:
            alt = calls.run("memory", payload, f"the same model as {words} on these GPUs",
                            aside=True)
        except (ToolError, ValueError, LookupError):
            continue
        fitted = bool(alt["fits"]) and not alt.get("offload")
        said.append(f"{words} needs **{num(alt['per_gpu_gb'])} GB per GPU**"
                    + (" and fits" if fitted else ""))
    return (" Trained another way on the same GPUs (recompute on): " + "; ".join(said) + "."
            if said else "")


def _offloaded(intent: Intent, calls: Calls, result: dict[str, Any]) -> Reply:
    """Part of the job in host RAM: the split, and for layers that overflow the host, the
    widest GGUF mix that fits (when the question named no precision)."""
    lead = offload_lead(result, cap(subject(intent, result)))
    off = result["offload"]
    if off["mode"] == "layers" and off["host_fits"] is False and "precision" not in intent.slots:
        found = smaller_format(calls, memory_payload(intent))
        lead += (f" The widest GGUF mix that fits both: **{found[0].upper()}**, which " +
                 offload_lead(found[1], "").split(" ", 1)[1] if found
                 else " No GGUF mix down to Q2_K fits both.")
    rescue = _fits_with_least(intent, calls, result, offloaded=True) \
        if result.get("fits") is False else None  # a 32k sequence keeps every activation
    if rescue:
        lead += " " + rescue[0]
    loading = loading_step(result)
    tables = [breakdown_table(result), *host_table(result)]
    if loading:
        have = (result.get("offload") or {}).get("host_ram_gb")
        rows = [[loading.label, loading.result.value]]
        if have:
            rows.append(["host RAM given", have])
        tables.append(table(["host RAM while loading", "GB"], rows))
    steps = [step for step in (loading, rescue[1] if rescue else None) if step is not None]
    return Reply(headline=lead, tables=tables, steps=steps)


def loading_step(result: dict[str, Any]) -> Step | None:
    """Training on several GPUs of a node: each process reads the whole checkpoint into host
    RAM before any sharding, a peak the offload figure (taken after sharding) does not show."""
    whole = result.get("whole_model_gb") or {}
    row = catalog().gpus.rows.get(result.get("gpu") or "")
    if result["workload"] == "inference" or not whole or row is None:
        return None
    ranks = min(result["layout"]["gpus"], row.gpus_per_node)
    if ranks < 2:
        return None
    return Step(label=f"every one of {ranks} processes reading a full copy of the weights",
                formula="processes per node × weights of the whole model",
                inputs={"processes": q(ranks), "weights": q(whole["weights"], "GB")},
                result=q(round(ranks * whole["weights"], 3), "GB"),
                notes=["model-loading-ram#copy-per-process"])


def host_table(result: dict[str, Any]) -> list[str]:
    """Layers in host RAM: the whole model's weights against the GPUs' and the host's memory
    together, the sum people compare (8 × 24GB + 256 GB of RAM against 671 GB of weights)."""
    off, whole = result.get("offload") or {}, result.get("whole_model_gb") or {}
    ram = off.get("host_ram_gb")
    if off.get("mode") != "layers" or not ram or not whole or not result.get("cluster_memory_gb"):
        return []
    rows = [["weights of the whole model", whole["weights"]], *cluster_rows(result),
            ["host RAM given", ram],
            ["GPU memory + host RAM", result["cluster_memory_gb"] + ram]]
    if len(rows) == 5:  # the label's total too
        rows.append(["the same by the GPUs' datasheet label", rows[2][1] + ram])
    return [table(["memory in all", "GB"], rows)]


def _least(result: dict[str, Any]) -> list[str]:
    return [LEAST] if result["workload"] != "inference" else []


def _kv_room(result: dict[str, Any]) -> tuple[str, Step]:
    """The free memory as KV cache tokens: each GPU holds 1/(tp·pp) of every token's cache."""
    gpus, per_token = result["layout"]["gpus"], result["kv_cache_bytes_per_token"]
    tokens = int(result["headroom_gb"] * 1e9 * gpus / per_token)
    step = Step(label="room left for KV cache", formula="headroom per GPU × GPUs / KV bytes per "
                "token", inputs={"headroom": q(result["headroom_gb"], "GB"), "gpus": q(gpus),
                                 "kv_per_token": q(per_token, "B/token")},
                result=q(tokens, "tokens"), notes=["kv-cache#per-token"])
    replicas = int(result["layout"].get("dp") or 1)
    if replicas > 1:  # each replica holds its own sequences: say the room a replica has
        return (f"That room holds about **{num(tokens // replicas)} more tokens** of KV cache "
                f"in each of the {num(replicas)} replicas ({num(tokens)} in all; "
                f"{num(per_token)} bytes per token).", step)
    return (f"That room holds about **{num(tokens)} more tokens** of KV cache "
            f"({num(per_token)} bytes per token).", step)


def _longest_context(intent: Intent, result: dict[str, Any], more: int) -> tuple[str, Step]:
    """"How many tokens of context can I fit?": the context sized plus the spare KV room, for
    one sequence, held to the model's trained context; under vLLM, whose cache gets only
    gpu_memory_utilization (0.9) of each GPU, what that share leaves after the rest."""
    sized = int(slot(intent, "context_len") or 4096)
    longest = sized + more
    trained = _trained_context(result)
    step = Step(label="longest context of one sequence", formula="context sized + spare KV "
                "tokens", inputs={"sized": q(sized, "tokens"), "spare": q(more, "tokens")},
                result=q(longest, "tokens"), notes=["kv-cache#per-token"])
    said = f"One sequence can reach about **{num(longest)} tokens** of context"
    if trained and longest > trained:
        said += f", beyond the model's trained {num(trained)}, which is the limit"
    if intent.slots.get("vllm"):
        said += _vllm_share(result)
    return said + ".", step


def _trained_context(result: dict[str, Any]) -> int | None:
    row = catalog().models.rows.get(result.get("model") or "")
    return int(row.max_context) if row is not None and row.max_context else None


def _vllm_share(result: dict[str, Any]) -> str:
    """vLLM gives its cache gpu_memory_utilization x the GPU less everything else
    (serving-memory-preallocation#vllm-default)."""
    gpus, per_token = result["layout"]["gpus"], result["kv_cache_bytes_per_token"]
    kv_sized = float(result["breakdown_gb"]["kv_cache"])
    rest = float(result["per_gpu_gb"]) - kv_sized
    room = VLLM_SHARE * float(result["gpu_memory_gb"]) - rest
    tokens = max(0, int(room * 1e9 * gpus / per_token))
    return (f"; vLLM, which gives the cache {VLLM_SHARE:g} of each GPU by default "
            f"(`--gpu-memory-utilization`), leaves room for about **{num(tokens)} tokens**")


def _most_sequences(intent: Intent, result: dict[str, Any], more: int) -> tuple[str, Step]:
    """"What is the maximum batch size at 2048 context?": the sequence sized plus as many
    more as the spare KV room holds at that length (kv-cache#per-token)."""
    context = int(slot(intent, "context_len") or 4096)
    batch = int(slot(intent, "batch") or 1)
    most = batch + more // context
    step = Step(label="sequences the KV room holds", formula="sequences sized + spare tokens ÷ "
                "context", inputs={"sized": q(batch), "spare_tokens": q(more),
                                   "context": q(context, "tokens")},
                result=q(most, "sequences"), notes=["kv-cache#per-token"])
    return (f"At {num(context)} tokens each that is a batch of at most **{num(most)} "
            f"sequences** (before the engine's own reservations).", step)


def cluster_size(intent: Intent, calls: Calls) -> Reply:
    """The fewest GPUs of the kind asked that hold the job (memory is the floor); with no model
    named, the same for the common sizes and each way of training."""
    if not any(k in intent.slots for k in ("model", "params_b", "config")):
        return count_without_model(intent, calls)
    payload = memory_payload(intent, with_gpu=False, least=True) | {"gpu": slot(intent, "gpu")}
    result = calls.run("memory", payload, "bytes of the job and the fewest GPUs of each kind")
    gpu_id = result["gpu"]
    fewest = (result.get("min_gpus") or {}).get(gpu_id)
    need = f"**{fewest}× {gpu_name(gpu_id)}**" + in_nodes(fewest, slot(intent, "gpus_per_node"))
    budget = ("a token budget (e.g. 15T tokens)" if result["workload"] == "pretrain" else
              "the data size (e.g. 50k samples of 2k tokens, 3 epochs)")
    held = (f"needs at least {need} just to hold it in memory" if fewest else
            f"does not fit on any number of {gpu_name(gpu_id)}, even sharded")
    lead = f"{cap(subject(intent, result))} {held} ({_held(result)})."
    if fewest:
        lead += f" More GPUs shorten the run: give {budget} to size the cluster by training time."
    if result["workload"] == "inference":
        lead = lead.split(" More GPUs")[0]
    if slot(intent, "tp") or slot(intent, "pp"):
        lead = _replica_lead(intent, result) + " " + lead
    shown = result
    if fewest and fewest > 1 and result["layout"]["gpus"] == 1:
        # The breakdown on the GPUs recommended, not the whole job on the one GPU that
        # cannot hold it.
        shown = calls.run("memory", memory_payload(intent, least=True)
                          | {"gpu": gpu_id, "gpus": fewest}, f"bytes per GPU on {fewest} GPUs")
        lead += (f" On {fewest} of them each holds **{num(shown['per_gpu_gb'])} GB** of "
                 f"{num(shown['gpu_memory_gb'])} GB.")
    return Reply(headline=lead, tables=[min_gpus_table(result), breakdown_table(shown),
                                        *totals(shown)],
                 assumptions=_least(result), resolved={"gpus": fewest} if fewest else {})


def _replica_lead(intent: Intent, result: dict[str, Any]) -> str:
    """'TP 2 × PP 8 is 16 GPUs for one copy of the model': the degrees asked multiply into the
    GPUs of one replica; data parallelism adds whole replicas (megatron-lm-2021#degrees-
    multiply)."""
    tp, pp = int(slot(intent, "tp") or 1), int(slot(intent, "pp") or 1)
    replica = tp * pp
    fits = "it fits" if result["fits"] else "it does not fit"
    memory = (f" ({num(result['per_gpu_gb'])} GB per GPU: {fits} on {gpu_name(result['gpu'])})"
              if result.get("gpu") and result["layout"]["gpus"] == replica else "")
    return (f"TP {tp} × PP {pp} is **{replica} GPUs** for one copy of the model{memory}; data "
            f"parallelism adds whole copies, so the GPU count is a multiple of {replica}.")


def _held(result: dict[str, Any]) -> str:
    """What the per-GPU figure is: the whole job on one GPU, or one GPU's share of a layout."""
    gpus = int(result["layout"]["gpus"])
    if gpus == 1:
        return f"{num(result['per_gpu_gb'])} GB unsharded"
    return f"{num(result['per_gpu_gb'])} GB per GPU when spread over {gpus} GPUs"


def in_nodes(gpus: int | None, per_node: int | None) -> str:
    """' (2 nodes of 8)': a GPU count in whole nodes, when a node size is known."""
    if not gpus or not per_node or int(per_node) <= 1:
        return ""
    return f" ({plural(-(-gpus // int(per_node)), 'node')} of {per_node})"


def _released(intent: Intent, result: dict[str, Any]) -> Reply:
    """"How big is the safetensors download for DeepSeek R1?": the weights at the precision they
    are released in (FP8 for DeepSeek-V3/R1), with the other common precisions beside."""
    weights = result["whole_model_gb"]["weights"]
    precision = str(slot(intent, "precision") or "").upper()
    lead = (f"The weights of {model_name(result)} as released in {precision} are about "
            f"**{num(weights)} GB** ({num(result['params_b'])}B parameters), what a download "
            "holds; the files add the tokenizer and configs, a few MB.")
    return Reply(headline=lead, tables=[precision_table(result)])


def checkpoint(intent: Intent, calls: Calls) -> Reply:
    """The bytes a full training checkpoint writes, and how long writing them takes (with no
    model named: the bytes per parameter of each kind of save)."""
    if not any(k in intent.slots for k in ("model", "params_b", "config")):
        return checkpoint_without_model(intent)
    payload = memory_payload(intent, with_gpu=False)
    result = calls.run("memory", payload, "bytes of weights and optimizer states")
    quoted = quoted_size(intent, float(result["params_b"]), model_name(result))
    if result["workload"] == "inference" and not quoted:
        return _released(intent, result)
    size_gb = result["checkpoint_gb"]
    precision = str(slot(intent, "precision") or "").upper()
    weights = f"{precision} weights" if precision else "weights"
    lead = (f"A full training checkpoint of {model_name(result)} ({weights} and optimizer "
            f"states) is **{num(size_gb)} GB**.")
    disk = _size_bytes(intent.slots.get("size"))
    if disk and not quoted and disk / 1e9 > 2 * size_gb:
        # "the temp files of ds_to_universal run out of my 3.5TB disk": many times one copy
        lead += (f" The {num(disk / 1e9)} GB quoted is {num(disk / 1e9 / size_gb)}× that, so "
                 "what fills it is many copies of the states (one per rank or per temporary "
                 "shard), not one checkpoint.")
    # The whole model's states, not one GPU's share: an optimizer offloaded to the CPU is not on
    # the GPU but is still in the checkpoint.
    parts = result["whole_model_gb"]
    tables = [table(["part", "GB"], [["weights", parts["weights"]],
                                      ["optimizer states", parts["optimizer"]],
                                      ["full checkpoint", size_gb]])]
    rate = slot(intent, "bandwidth")
    storage = next((link for link in intent.slots.get("links") or []
                    if (row := catalog().links.rows.get(link)) and row.kind == "storage"), None)
    if rate or storage:
        # a rate given, else the storage named ("to NVMe": a Micron 9400's sequential write)
        seconds, extra = write_time(calls, size_gb, str(rate or storage))
        where = f"at {rate}" if rate else f"to {catalog().links.rows[str(storage)].name}"
        lead += f" Writing it {where} takes **{num(seconds)} s** ({num(seconds / 60)} min)."
        tables += extra
    steps = []
    if intent.slots.get("hours_elapsed") and slot(intent, "hours") and not (rate or storage):
        said, step = _save_rate(calls, float(slot(intent, "hours")), float(size_gb))
        lead += " " + said
        steps.append(step)
    if quoted:  # the file the question quotes first, then what each kind of save holds
        return Reply(headline=f"{quoted.headline} {lead}", tables=quoted.tables + tables,
                     steps=quoted.steps + steps)
    return Reply(headline=lead, tables=tables, steps=steps)


# The catalog's local drive (links.csv, note storage-bandwidth): what a save could write at
LOCAL_DRIVE = "local-nvme"


def _save_rate(calls: Calls, hours: float, size_gb: float) -> tuple[str, Step]:
    """"It took 5 minutes to save a checkpoint": the write rate that implies, against the time
    one local NVMe drive takes, so a slow save shows whether the storage or something else sets
    it."""
    seconds = hours * 3600
    rate = size_gb / seconds
    drive_s, _ = write_time(calls, size_gb, LOCAL_DRIVE)
    step = Step(label="write rate the save time implies", formula="checkpoint bytes / save time",
                inputs={"checkpoint": q(size_gb, "GB"), "save time": q(seconds, "s")},
                result=q(round(rate, 3), "GB/s"), notes=["storage-bandwidth#nvme-write"])
    said = (f"Saved in {num(seconds / 60)} min, that is **{num(rate)} GB/s**; one local NVMe "
            f"drive writes it in {num(drive_s)} s ({num(size_gb / drive_s)} GB/s), so a save far "
            "slower is a shared or network file system, ranks writing one after another, or the "
            "states gathered to one rank before they are written.")
    return said, step
