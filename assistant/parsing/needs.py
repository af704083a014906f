"""What each intent needs: the slots it cannot do without, and the defaults it may assume.

A default is only taken where a planner would take it without asking (BF16, a 4,096-token
sequence, AdamW, one GPU when one is named); every default is listed as an assumption. What
changes the answer by a factor (which model, how many GPUs, which GPU to price) is asked.
"""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.parsing.intents import MEMORY_NEEDED
from clusterplan.assistant.parsing.measurements import MEASURED_COLLECTIVE, find
from clusterplan.assistant.parsing.published_tokens import PUBLISHED_TOKENS
from clusterplan.db.catalog import Catalog
from clusterplan.tools.interconnect import DEFAULT_GPUS_PER_NODE
from clusterplan.tools.plan.input import DEFAULT_FINETUNE_TOKENS
from clusterplan.tools.units import UnitError, parse

Slots = dict[str, Any]

TRAINING = ("pretrain", "full_finetune", "lora", "qlora")
REQUIRED: dict[str, tuple[str, ...]] = {
    "memory": ("model",),
    "fit": ("model", "gpu"),
    "cluster_size": ("model",),
    "layout": ("gpu", "gpus"),  # no model: the split the cluster's links dictate
    "serving": ("model", "gpu", "gpus"),
    "training": ("model", "gpu", "gpus", "tokens"),
    "plan": ("model", "workload"),
    "checkpoint": (),  # no model: the bytes per parameter of each kind of save
    "interconnect": ("size", "gpus"),
    "convert": ("value", "to_unit"),
    "link_compare": ("links",),
    "gpu_compare": ("gpu_list",),
    "pricing": ("gpu",),
    "concept": (),
    "gpu_specs": ("gpu",),
    "unknown": ("question",),
}
WHY = {
    "model": "which model (a catalog name such as llama-3-70b, or a size such as 70B)",
    "gpu": "which GPU",
    "gpus": "how many GPUs",
    "tokens": "how many training tokens (for example 15T tokens)",
    "workload": "which workload (pretrain, full fine-tune, LoRA, QLoRA or inference)",
    "size": "how much data (for example 140 GB)",
    "value": "which quantity to convert (for example 400 Gb/s)",
    "to_unit": "which unit to convert to (for example GB/s)",
    "links": "which two links to compare (for example NVLink 4 and InfiniBand NDR)",
    "gpu_list": "which two GPUs to compare",
    "provider": "which provider",
    "path": "over what (a rate such as 10 Gb/s, or a path such as local NVMe)",
    "question": "what you would like to know: memory, fit, a parallel layout, interconnect "
                "time, prices or a concept",
}


def complete(kind: str, slots: Slots, catalog: Catalog) -> tuple[Slots, list[str]]:
    """The defaults assumed for `kind` and the slots still missing."""
    assumed: Slots = {}
    _workload(kind, slots, assumed)
    _model_defaults(kind, slots, assumed, catalog)
    _cluster_defaults(kind, slots, assumed, catalog)
    filled = {**slots, **assumed}
    required = REQUIRED.get(kind, ())
    if kind == "pricing" and slots.get("egress"):
        required = ("size", "provider")
    if kind == "interconnect" and "op" not in slots:
        required = ("size", "path")  # a transfer: how much, and over what
    if kind == "interconnect" and "size" not in slots and slots.get("links"):
        required = ()  # the links themselves are the question
    if kind == "fit" and slots.get("largest_model") and not _present("model", slots):
        required = ("gpu",)  # the catalog is searched for the largest model that fits
    if kind == "plan" and slots.get("largest_model"):
        required = ("workload",)  # the plan tool searches the catalog for the model
    if kind == "memory" and not _present("model", slots) and _gigabytes(slots) \
            and not slots.keys() & {"gpu", "gpu_memory_gb"}:
        # No model, a memory requirement quoted ("382 GB, isn't that too high?"): the
        # parameters that size holds at each precision; no job is sized, so nothing is assumed.
        return {}, []
    if kind == "fit" and not _present("model", slots) and "gpu_memory_gb" in slots \
            and "precision" in slots and slots.get("workload") in (None, "inference"):
        # "Can't load a Q4 model on 12gb vram": with the precision named, the largest model
        # that memory holds is the answer; no job is sized, so nothing is assumed.
        return {}, []
    if kind == "diagnose" and float(slots.get("hours") or 0) >= 1 and "gpu" in slots:
        # A run's duration on a named GPU checked ("88 hours on one RTX 3090, is this
        # normal?"): what that GPU should take scales with the model's parameters, which
        # nothing stands in for. (Seconds to answer are a latency, not a run.)
        required = ("model",)
    if kind == "diagnose" and slots.get("oom") and "gpu" in slots and "size" not in slots:
        # Out of memory on a named GPU, no figure quoted ("still runs out on 4xA100 40Gb"):
        # whether it should fit is the model's size against the GPUs, so the model is asked.
        required = ("model",)
    if kind == "diagnose" and int(slots.get("nodes") or 1) > 1 and "bandwidth" in slots \
            and not _collective_measured(slots):
        # Slower on more nodes over a stated network ("2 nodes slower than one, under
        # 100Gbps"): the time lost is the model's gradients over that link each step.
        required = ("model",)
    if kind == "diagnose" and "gpu" in slots and slots.get("workload") not in (None,
                                                                           "inference") \
            and MEMORY_NEEDED.search(str(slots.get("question", ""))) \
            and not any(m.kind in ("memory", "step_time", "tflops", "mfu", "bandwidth")
                        for m in find(str(slots.get("question", "")))):
        # "全参数微调需要多少显存？... 4*A800, only batch size 1, is this normal?": the memory a
        # fine-tune needs is the model's size on those GPUs, which nothing stands in for.
        required = ("model",)
    if kind == "cluster_size" and not _present("model", slots) and "size" not in slots \
            and slots.get("workload") not in (None, "inference", "pretrain"):
        # "how many GPUs to fine-tune, full or LoRA or QLoRA?" with no model: the comparison
        # over common sizes and workloads answers it (routing.count_rule); nothing is assumed.
        return {}, []
    if kind == "training" and "progress_done" in slots and not _present("model", slots):
        # "30mins for 0.01 epochs, how long?": the run's own pace answers it; no model is
        # sized, so nothing is assumed.
        return {}, []
    missing = [name for name in required if not _present(name, filled)]
    return assumed, missing



def _collective_measured(slots: Slots) -> bool:
    """An algbw or busbw figure ("nccl-tests shows algbw 250 GB/s"), or a rate given for a
    collective named ("all-reduce between two nodes only 86GB/s"): checked against the link
    alone, so no model is needed."""
    question = str(slots.get("question", ""))
    rates = [m for m in find(question) if m.kind == "bandwidth"]
    return "op" in slots or any(m.what for m in rates) \
        or bool(rates and MEASURED_COLLECTIVE.search(question))


def _gigabytes(slots: Slots) -> bool:
    """A quoted size of at least 1 GB: a model's memory, not a block's or a file header's."""
    try:
        return float(parse(str(slots.get("size")), "byte").to("byte").magnitude) >= 1e9
    except (UnitError, ValueError, TypeError):
        return False


def _present(name: str, slots: Slots) -> bool:
    if name == "model":
        return "model" in slots or "params_b" in slots or "config" in slots
    if name == "gpus":
        return "gpus" in slots or "nodes" in slots
    if name == "gpu":
        return "gpu" in slots or "gpu_memory_gb" in slots
    if name == "gpu_list":
        return len(slots.get("gpu_list", [])) >= 2
    if name == "path":
        return "bandwidth" in slots or bool(slots.get("links"))
    if name == "value":
        return any(k in slots for k in ("value", "bandwidth", "size"))
    return name in slots


def _workload(kind: str, slots: Slots, assumed: Slots) -> None:
    if "workload" in slots:
        return
    if kind == "plan":
        # a serving goal (requests or tokens a second, users at a speed) says inference
        if slots.keys() & {"requests_per_s", "users", "user_tokens_per_s"}:
            assumed["workload"] = "inference"
        return
    if "offload" in slots or "zero_stage" in slots:  # ZeRO and its offload are training
        assumed["workload"] = "full_finetune"
        return
    if kind in ("memory", "fit", "cluster_size", "serving", "gpu_compare") or (
            kind == "checkpoint" and slots.get("released_weights")):
        assumed["workload"] = "inference"  # (a download is the weights as released)
    elif kind in ("layout", "training", "checkpoint"):
        assumed["workload"] = "pretrain"


# Weights said to be quantized, bits not said: 4-bit, the width GPTQ and AWQ releases are made
# at (gptq-awq-formats#group-scales); the answer states it as an assumption, so an 8-bit release
# is one word away ("int8").
QUANTIZED_DEFAULT = "int4"


def _model_defaults(kind: str, slots: Slots, assumed: Slots, catalog: Catalog) -> None:
    workload = slots.get("workload") or assumed.get("workload")
    if workload is None:
        return
    if "precision" not in slots and slots.get("bits_per_weight"):
        # "EXL2 at 4.65 bits per weight": a quantised model, computed in 16 bits like any 4-bit one
        assumed["precision"] = "int4" if float(slots["bits_per_weight"]) < 8 else "int8"
    elif "precision" not in slots:
        # QLoRA's base is 4-bit NF4 by definition (the QLoRA paper); a model served as released
        # keeps its checkpoint's precision (DeepSeek-V3/R1 in FP8, gpt-oss in MXFP4); else BF16.
        assumed["precision"] = "nf4" if workload == "qlora" else \
            QUANTIZED_DEFAULT if workload == "inference" and slots.get("quantized") else \
            _released_precision(slots, catalog) if workload == "inference" else \
            _sixteen_bits(slots, catalog)
    if workload == "inference":
        if "seq_len" in slots and "context_len" not in slots:
            # a served sequence's length ("max sequence length 32k") is its context length
            slots["context_len"] = slots.pop("seq_len")
        assumed.update({k: v for k, v in (("context_len", _within(4096, slots, catalog)),
                                          ("batch", 1)) if k not in slots})
    else:
        if "context_len" in slots and "seq_len" not in slots:
            # a trained model's context ("7b model, 64k context") is the length it trains at
            slots["seq_len"] = slots.pop("context_len")
        if "batch" in slots and "micro_batch" not in slots:
            # "fine-tuning ... with batch size 8" is what each GPU runs at once
            slots["micro_batch"] = slots.pop("batch")
        # the layout search tries every micro-batch that fits (its answer says which it chose):
        # only a memory figure assumes one
        searched = kind in ("training", "layout", "plan", "pricing")
        defaults = (("seq_len", _within(DEFAULT_SEQ_LEN, slots, catalog)),
                    *((("micro_batch", 1),) if not searched else ()), ("optimizer", "adamw"))
        assumed.update({k: v for k, v in defaults if k not in slots})


def _within(tokens: int, slots: Slots, catalog: Catalog) -> int:
    """A default length no longer than the catalog model's own context (GPT-2's 1,024)."""
    try:
        row = catalog.models.find(slots["model"]) if "model" in slots else None
    except LookupError:
        row = None
    return min(tokens, row.max_context) if row is not None and row.max_context else tokens


def _sixteen_bits(slots: Slots, catalog: Catalog) -> str:
    """A training job's 16-bit type: BF16, or FP16 on a GPU without BF16 tensor cores (V100,
    T4), which trains in FP16 with loss scaling. The bytes are the same."""
    row = catalog.gpus.rows.get(str(slots.get("gpu") or ""))
    return "fp16" if row is not None and not row.bf16_tflops else "bf16"


def _released_precision(slots: Slots, catalog: Catalog) -> str:
    """The precision a catalog model's released weights are stored in (BF16 if not known)."""
    try:
        row = catalog.models.find(slots["model"]) if "model" in slots else None
    except LookupError:
        row = None
    return getattr(row, "native_precision", None) or "bf16"


# A GPU kind, a count and a token budget have defaults a planner would take and show (the
# common H100 SXM, one node of it, 20 tokens per parameter as Chinchilla-optimal training);
# only the model, which nothing stands in for, is asked.
DEFAULT_GPU = "h100-sxm"
GPU_DEFAULT_KINDS = ("cluster_size", "plan", "fit", "layout", "serving", "training", "pricing")
NODE_DEFAULT_KINDS = ("layout", "serving", "training")
BUDGET_KINDS = ("fit", "memory", "cluster_size")
TOKENS_PER_PARAM = 20
DEFAULT_SEQ_LEN = 4096  # a training sequence when none is named (tokens a sample at most)


def _cluster_defaults(kind: str, slots: Slots, assumed: Slots, catalog: Catalog) -> None:
    # A GPU named outside the catalog is asked about; "6GB VRAM" with no kind is a budget of
    # GPU memory, answered as such (no GPU kind assumed).
    if kind in GPU_DEFAULT_KINDS and "gpu" not in slots and not slots.get("egress") \
            and "unknown_gpu" not in slots and not (kind in (*BUDGET_KINDS, "layout")
                                                    and "gpu_memory_gb" in slots):
        assumed["gpu"] = DEFAULT_GPU
    _default_count_and_tokens(kind, slots, assumed, catalog)
    gpu_id = slots.get("gpu") or assumed.get("gpu")
    counted = "gpus" in slots or "nodes" in slots
    if kind in ("fit", "pricing", "memory") and gpu_id and not counted:
        assumed["gpus"] = 1
    if gpu_id and "gpus_per_node" not in slots and gpu_id in catalog.gpus.rows:
        per_node = catalog.gpus.rows[gpu_id].gpus_per_node
        if "gpus" in slots and "nodes" not in slots:  # "2x RTX 3090": one node, partly filled
            per_node = min(per_node, int(slots["gpus"]))
        if "nodes" in slots or kind in ("layout", "training", "interconnect"):
            assumed["gpus_per_node"] = per_node
    if kind == "interconnect" and "nodes" in slots and not gpu_id \
            and "gpus_per_node" not in slots:
        assumed["gpus_per_node"] = DEFAULT_GPUS_PER_NODE  # the interconnect tool's own default
    if "nodes" in slots and "gpus" not in slots:
        per_node = slots.get("gpus_per_node") or assumed.get("gpus_per_node")
        if per_node:
            assumed["gpus"] = slots["nodes"] * per_node
    if kind in NODE_DEFAULT_KINDS and not counted and gpu_id in catalog.gpus.rows:
        # Serving on "a 24GB GPU" or "GPU p40", one card named in the singular: that card.
        # Otherwise (training, layouts, "H100s") a whole node of the kind.
        one = kind == "serving" and bool(slots.keys() & {"gpu", "gpu_memory_gb"}) \
            and not slots.get("gpu_plural")
        assumed["gpus"] = 1 if one else catalog.gpus.rows[gpu_id].gpus_per_node


def _default_count_and_tokens(kind: str, slots: Slots, assumed: Slots,
                              catalog: Catalog) -> None:
    training_plan = kind == "plan" and (slots.get("workload") == "pretrain" or (
        "samples" in slots and slots.get("workload") != "inference"))
    if (kind not in ("training", "pricing") and not training_plan) or "tokens" in slots:
        return
    if "samples" in slots:  # a dataset named: its tokens, for a time or a run's price
        # A dataset named by its samples: each as long as said, else a full sequence (the
        # most it can hold, so the time is an upper bound), once over unless epochs are named.
        each = slots.get("tokens_per_sample") or slots.get("seq_len") or assumed.get("seq_len") \
            or DEFAULT_SEQ_LEN
        epochs = slots.get("epochs") or 1
        assumed["tokens"] = slots["samples"] * each * epochs
        assumed["tokens_counted_as"] = (
            f"{slots['samples']:,.0f} samples x {each:,.0f} tokens"
            + ("" if "tokens_per_sample" in slots else " (a full sequence each: an upper bound)")
            + f" x {epochs} epoch{'s' if epochs != 1 else ''}")
        return
    if kind != "training" and not training_plan:
        return
    published = PUBLISHED_TOKENS.get(slots.get("model") or "")
    if published and slots.get("workload") == "pretrain":
        name = catalog.models.rows[slots["model"]].name
        assumed["tokens"] = published[0]
        assumed["tokens_counted_as"] = f"{name}'s published pretraining tokens ({published[1]})"
        return
    if slots.get("workload") in ("full_finetune", "lora", "qlora"):
        # a fine-tune's data, not a pretraining budget (finetune-dataset-default#default-tokens)
        assumed["tokens"] = DEFAULT_FINETUNE_TOKENS
        assumed["tokens_counted_as"] = ("a fine-tuning set the size of Alpaca's: 52,000 "
                                        "examples x 512 tokens x 3 epochs")
        return
    params_b = slots.get("params_b")
    if params_b is None and slots.get("model") in catalog.models.rows:
        params_b = catalog.models.rows[slots["model"]].params_b
    if params_b:
        assumed["tokens"] = TOKENS_PER_PARAM * float(params_b) * 1e9
