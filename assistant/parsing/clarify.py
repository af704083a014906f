"""One question back to the user when a slot that cannot be assumed is missing."""

from __future__ import annotations

from clusterplan.assistant.answer import Clarification, Intent
from clusterplan.assistant.parsing.needs import WHY
from clusterplan.db.catalog import Catalog

# Catalog ids offered first, when the catalog has them: the products people plan with most.
POPULAR = {
    "model": ("llama-3-8b", "llama-3-70b", "llama-3.1-405b", "mixtral-8x7b"),
    "gpu": ("h100-sxm", "h200-sxm", "b200-sxm", "a100-sxm-80gb", "mi300x"),
}
FIXED = {
    "gpus": ["1", "8", "16", "64"],
    "workload": ["pretrain", "full_finetune", "lora", "qlora", "inference"],
    "tokens": ["1T tokens", "2T tokens", "15T tokens"],
    "to_unit": ["GB/s", "Gb/s", "TB/s"],
    "size": ["140 GB", "1 TB", "10 TB"],
    "path": ["10 Gb/s", "local NVMe", "parallel file system"],
    "question": ["How much memory to serve Llama 3 70B?", "Convert 400 Gb/s to GB/s",
                 "What does an 8xH100 node cost per month?", "What is pipeline parallelism?"],
}


def clarification(intent: Intent, catalog: Catalog) -> Clarification:
    """Ask for every missing slot in one sentence; offer choices for the first."""
    wanted = [WHY.get(name, name) for name in intent.missing]
    subject = _subject(intent)
    question = f"To answer {subject}, tell me {_join(wanted)}."
    offered = choices(intent.missing[0], catalog) if intent.missing else []
    unknown = intent.slots.get("unknown_gpu")
    if unknown and intent.missing and intent.missing[0] == "gpu":
        # A GPU outside the catalog: say so, and offer its nearest catalog matches first.
        near = catalog.gpus.nearest(str(unknown), 3)
        question = (f"'{unknown}' is not a GPU in the catalog, so it was not used. " + question)
        offered = list(dict.fromkeys([*near, *offered]))[:5]
    return Clarification(question=question, missing=list(intent.missing), choices=offered)


def choices(slot: str, catalog: Catalog) -> list[str]:
    """A few valid values for `slot`, from the catalog where it has them."""
    if slot in ("model", "gpu", "gpu_list", "provider", "links"):
        kind = {"model": "models", "provider": "providers", "links": "links"}.get(slot, "gpus")
        table = getattr(catalog, kind)
        popular = [i for i in POPULAR.get(slot if slot != "gpu_list" else "gpu", ())
                   if i in table.rows]
        return (popular or table.ids())[:5]
    return FIXED.get(slot, [])


def _subject(intent: Intent) -> str:
    what = {
        "memory": "the memory question", "fit": "whether it fits",
        "cluster_size": "how many GPUs are needed", "layout": "the layout question",
        "serving": "the serving question", "training": "the training time and cost",
        "plan": "the cluster plan", "checkpoint": "the checkpoint question",
        "interconnect": "the transfer time" if "op" not in intent.slots else
        "the collective time", "convert": "the conversion",
        "link_compare": "the link comparison", "gpu_compare": "the GPU comparison",
        "pricing": "the price question", "gpu_specs": "the GPU question",
    }
    return what.get(intent.kind, "your question")


def _join(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return "; ".join(parts[:-1]) + "; and " + parts[-1]
