"""Answers when part of a job lives in host RAM: layers in system RAM for inference, ZeRO
offload for training. The memory tool does the arithmetic; this says it in one paragraph."""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.composing.markdown import num
from clusterplan.assistant.routing.dispatch import Calls

# GGUF mixes from widest to narrowest: the first whose layers fit VRAM + RAM is suggested.
SMALLER = ("q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k")


def offload_lead(result: dict[str, Any], subject: str) -> str:
    """One paragraph: what stays on the GPU, what the host holds, and what it costs."""
    off = result["offload"]
    if off["mode"] == "layers":
        return _layers(result, off, subject)
    host, have = off["host_ram_per_node_gb"], off.get("host_ram_gb")
    verdict = "" if have is None else (f", within the {num(have)} GB given" if off["host_fits"]
                                       else f", more than the {num(have)} GB given")
    kind = "optimizer states, gradients and parameters" if off["mode"] != "optimizer" \
        else "optimizer states and gradients"
    deepspeed = off.get("deepspeed_estimate_per_node_gb")
    ds = (f" DeepSpeed's estimator, with its 1.5× buffer, asks for {num(deepspeed)} GB per node."
          if deepspeed else "")
    return (f"{subject}, with the {kind} offloaded to host RAM, needs **{num(host)} GB of host "
            f"RAM per node**{verdict}; each GPU still needs {num(result['per_gpu_gb'])} GB"
            f"{_gpu_verdict(result)}. Each GPU "
            f"moves {num(off['pcie_gb_per_step_per_gpu'])} GB over PCIe per step, "
            f"**{num(off['pcie_s_per_step'])} s** at {num(off['host_bw_gbps'])} GB/s if none of "
            f"it overlaps compute.{ds}")


def _gpu_verdict(result: dict[str, Any]) -> str:
    """Whether the GPU's share fits the GPU memory, when a GPU (or its size) was given."""
    if result.get("fits") is None:
        return ""
    have = num(result["gpu_memory_gb"])
    return f", within its {have} GB" if result["fits"] else f", **more than its {have} GB**"


def _layers(result: dict[str, Any], off: dict[str, Any], subject: str) -> str:
    gpu_gb, have = result["per_gpu_gb"], off.get("host_ram_gb")
    shards = int(off.get("gpus_sharing_the_model") or 1)
    where = f"on the {shards} GPUs, split over them (" if shards > 1 else "on the GPU ("
    each = " on each" if shards > 1 else ""
    text = (f"{subject} keeps **{off['gpu_layers']} of {off['layers']} layers** {where}"
            f"{num(gpu_gb)} GB{each}{_gpu_verdict(result)}) and the other "
            f"{off['layers'] - off['gpu_layers']} in system RAM "
            f"(**{num(off['host_ram_needed_gb'])} GB**")
    if have is not None:
        text += f", {'within' if off['host_fits'] else 'more than'} the {num(have)} GB given"
    text += ")."
    speed = off.get("decode_tokens_per_s_max")
    if speed:
        text += (f" Decoding reads the RAM-resident layers at {num(off['host_bw_gbps'])} GB/s, "
                 f"so at most **{num(speed)} tokens/s** per sequence.")
    return text


def smaller_format(calls: Calls, payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The widest GGUF mix whose layers fit the GPU and the host RAM given, with its result."""
    for fmt in SMALLER:
        result = calls.run("memory", payload | {"precision": fmt, "gpu_layers": None},
                           f"the same split with {fmt.upper()} weights")
        off = result.get("offload")
        if result.get("fits") and (off is None or off.get("host_fits") is not False):
            return fmt, result
    return None
