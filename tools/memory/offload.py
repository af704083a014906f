"""Offload to the host: layers kept in system RAM for inference (llama.cpp -ngl, accelerate
device_map), optimizer states and parameters kept in host RAM for training (ZeRO-Offload,
ZeRO-Infinity). What stays on the GPU, what the host must hold, and what moving it costs.

Inference: the GPU holds `gpu_layers` of the L layers (their weights and KV cache); the rest
is read from host RAM every token, so a decode step takes at least
gpu_bytes / GPU bandwidth + host_bytes / host bandwidth (inference-roofline#decode-memory-bound).

Training: ZeRO-Offload keeps the FP16 parameters on the GPU and moves each rank's partition of
the FP16 gradients and the optimizer states (FP32 master, momentum, variance) to host RAM:
K + 2 bytes per parameter on the host (zero-offload#partition). Offloading parameters as well
(ZeRO-Infinity, ZeRO stage 3) leaves only the layer being gathered on the GPU.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from clusterplan.tools.contract import Step, ToolError
from clusterplan.tools.memory.job import Job, Layout
from clusterplan.tools.memory.steps import q, step
from clusterplan.tools.memory.terms import CUDA_CONTEXT_BYTES, FRAGMENTATION, Breakdown

HOST_RAM_GBPS = 89.6   # system-ram-offload#ddr5-dual-channel: 2 channels x 5600 MT/s x 8 B
PCIE_GBPS = 31.5       # pcie-bandwidth#encoding: Gen4 x16, one direction
DEEPSPEED_BUFFER = 1.5  # deepspeed-memory-estimator#buffer-factor
GRAD_HOST_BYTES = 2.0   # zero-offload#partition: FP16 gradients copied to the host


class Offload(NamedTuple):
    """The per-GPU breakdown after offloading, the result fields, steps and assumptions."""

    parts: Breakdown
    fields: dict[str, Any]
    steps: list[Step]
    said: list[str]


def _with_overhead(w: float, g: float, o: float, act: float, kv: float) -> Breakdown:
    overhead = CUDA_CONTEXT_BYTES + FRAGMENTATION * (w + g + o + act + kv)
    return Breakdown(w, g, o, act, kv, overhead)


def layers_that_fit(job: Job, parts: Breakdown, gpu_memory_gb: float) -> int:
    """The most layers whose weights and KV cache fit beside the activations and overhead."""
    layers = job.shape.layers
    per_layer = (parts.weights + parts.kv_cache) / layers
    room = (gpu_memory_gb * 1e9 - CUDA_CONTEXT_BYTES) / (1 + FRAGMENTATION) - parts.activations
    return max(0, min(layers, int(room // per_layer))) if per_layer > 0 else layers


def inference(job: Job, parts: Breakdown, gpu_layers: int, host_gbps: float,
              gpu_gbps: float | None, host_ram_gb: float | None, shards: int = 1) -> Offload:
    """Split weights and KV cache by layer between GPU and host; the decode-speed bound.

    `parts` is one GPU's share of a model spread over `shards` GPUs (TP x PP x EP): the host
    holds what every one of them leaves out, and its CPU reads all of that for each token."""
    layers = job.shape.layers
    if gpu_layers > layers:
        raise ToolError(f"gpu_layers: {gpu_layers} is more than the {layers} layers of "
                        f"{job.shape.name}; valid: 0 to {layers}")
    share = gpu_layers / layers
    w_gpu, kv_gpu = parts.weights * share, parts.kv_cache * share
    w_host, kv_host = parts.weights - w_gpu, parts.kv_cache - kv_gpu
    new = _with_overhead(w_gpu, 0.0, 0.0, parts.activations, kv_gpu)
    active = job.shape.active_params_b / job.shape.params_b  # MoE: the experts a token uses
    w_host, kv_host = w_host * shards, kv_host * shards
    read_gpu, read_host = w_gpu * active + kv_gpu, w_host * active + kv_host
    seconds = read_host / (host_gbps * 1e9) + (read_gpu / (gpu_gbps * 1e9) if gpu_gbps else 0.0)
    tokens = 1 / seconds if seconds > 0 else None
    host_gb = round((w_host + kv_host) / 1e9, 3)
    fields = {"mode": "layers", "gpu_layers": gpu_layers, "layers": layers,
              "gpu_weights_gb": round(w_gpu / 1e9, 3), "host_weights_gb": round(w_host / 1e9, 3),
              "gpus_sharing_the_model": shards,
              "host_kv_cache_gb": round(kv_host / 1e9, 3), "host_ram_needed_gb": host_gb,
              "host_ram_gb": host_ram_gb,
              "host_fits": None if host_ram_gb is None else host_gb <= host_ram_gb,
              "host_bw_gbps": host_gbps, "gpu_bw_gbps": gpu_gbps,
              "decode_tokens_per_s_max": round(tokens, 3) if tokens else None}
    notes = ["inference-roofline#decode-memory-bound", "system-ram-offload#layer-split"]
    steps = [step("layers on the GPU", "weights and KV cache × gpu_layers ÷ layers on each GPU; "
                  "the rest of every GPU's share (× GPUs sharing the model) in host RAM",
                  {"gpu_layers": q(gpu_layers), "layers": q(layers),
                   "GPUs sharing the model": q(shards)},
                  q(host_gb, "GB in host RAM"), notes),
             step("decode speed bound", "1 ÷ (GPU bytes ÷ GPU bandwidth + host bytes ÷ host "
                  "bandwidth), bytes read per token: active weights + KV cache",
                  {"gpu_bytes": q(round(read_gpu / 1e9, 3), "GB"),
                   "host_bytes": q(round(read_host / 1e9, 3), "GB"),
                   "gpu_bw": q(gpu_gbps, "GB/s"), "host_bw": q(host_gbps, "GB/s")},
                  q(round(tokens, 3) if tokens else None, "tokens/s per sequence"),
                  notes + ["system-ram-offload#ddr5-dual-channel"])]
    said = [f"host_bw: {host_gbps:g} GB/s for the layers in host RAM (computed by the CPU from "
            "RAM, as llama.cpp does; layers streamed to the GPU over PCIe 4.0 x16 would be "
            f"bound by {PCIE_GBPS:g} GB/s)"]
    if not gpu_gbps:
        said.append("decode speed: no GPU kind named, so the bound counts the host part only")
    return Offload(new, fields, steps, said)


def largest_layer_params(job: Job) -> float:
    """The biggest single weight matrix (embedding or FFN), which ZeRO-3 gathers whole."""
    s = job.shape
    return float(max(s.vocab * s.hidden, s.hidden * s.ffn_hidden, s.hidden * s.heads * s.head_dim))


def training(job: Job, layout: Layout, parts: Breakdown, mode: str, gpus_per_node: int,
             host_gbps: float, host_ram_gb: float | None) -> Offload:
    """ZeRO-Offload (optimizer) or ZeRO-Infinity (optimizer and parameters) on one node."""
    z = job.zero_stage
    if z == 0:
        raise ToolError("offload: ZeRO-Offload moves each rank's partition of the optimizer "
                        "states, so it needs zero_stage 1, 2 or 3")
    if mode == "optimizer_and_params" and z != 3:
        raise ToolError("offload: parameters can be offloaded only when they are partitioned: "
                        "zero_stage 3 (ZeRO-Infinity)")
    k = job.optimizer.per_param if job.optimizer else 0.0
    psi_rank = parts.optimizer / k if k else 0.0  # trained parameters in this rank's partition
    host_rank = parts.optimizer + GRAD_HOST_BYTES * psi_rank
    w, g = parts.weights, (0.0 if z >= 2 else parts.gradients)
    pcie = 4 * psi_rank  # FP16 gradients down, updated FP16 parameters up
    if mode == "optimizer_and_params":
        host_rank += 2 * psi_rank
        w = 4 * largest_layer_params(job) / layout.tp  # deepspeed-memory-estimator#largest-layer
        pcie = 6 * psi_rank  # the partition up for forward and for backward, gradients down
    ranks = min(gpus_per_node, layout.gpus)
    host_node = host_rank * ranks
    seconds = pcie / (host_gbps * 1e9)
    new = _with_overhead(w, g, 0.0, parts.activations, 0.0)
    fields = {"mode": mode, "host_ram_per_node_gb": round(host_node / 1e9, 3),
              "host_ram_gb": host_ram_gb,
              "host_fits": None if host_ram_gb is None else host_node / 1e9 <= host_ram_gb,
              "deepspeed_estimate_per_node_gb": _deepspeed(job, layout, mode, ranks),
              "pcie_gb_per_step_per_gpu": round(pcie / 1e9, 3),
              "pcie_s_per_step": round(seconds, 3), "host_bw_gbps": host_gbps}
    notes = ["zero-offload#partition", "deepspeed-memory-estimator#zero2-zero3"]
    steps = [step("host RAM per node", "(optimizer K + 2 bytes FP16 gradients"
                  f"{' + 2 bytes FP16 parameters' if mode != 'optimizer' else ''}) × trained "
                  "params ÷ dp × GPUs on the node", {"K": q(k, "bytes"), "dp": q(layout.dp),
                  "gpus_per_node": q(ranks)}, q(round(host_node / 1e9, 3), "GB"), notes),
             step("PCIe per step", "bytes each GPU moves to and from the host per step ÷ "
                  "PCIe bandwidth (directions added, no overlap)",
                  {"bytes": q(round(pcie / 1e9, 3), "GB"), "pcie": q(host_gbps, "GB/s")},
                  q(round(seconds, 3), "s"),
                  ["zero-offload#pcie-traffic", "pcie-bandwidth#encoding"])]
    said = [f"host_bw: PCIe 4.0 x16, {host_gbps:g} GB/s per direction, for offload traffic; "
            "the CPU optimizer step's own time is not counted"]
    return Offload(new, fields, steps, said)


def _deepspeed(job: Job, layout: Layout, mode: str, ranks: int) -> float | None:
    """DeepSpeed's model-states estimator for host RAM per node (its 1.5 buffer included):
    stage 1-2 params × max(4·gpus_per_node, 16); stage 3 params × 16 (18 with parameters)
    × gpus_per_node ÷ all GPUs (deepspeed-memory-estimator#zero2-zero3)."""
    if job.adapters:
        return None  # the estimator counts every parameter as trained
    psi = job.shape.params
    if job.zero_stage < 3:
        bytes_ = psi * max(4 * ranks, 16)
    else:
        bytes_ = psi * (18 if mode == "optimizer_and_params" else 16) * ranks / layout.gpus
    return round(bytes_ * DEEPSPEED_BUFFER / 1e9, 3)


def plan(inp: Any, job: Job, layout: Layout, parts: Breakdown, gpu_memory_gb: float | None,
         gpu_gbps: float | None, gpus_per_node: int) -> Offload | None:
    """The offload the input asks for (or, for inference given host RAM and a GPU too small,
    the most layers that fit), or None when everything stays on the GPU."""
    host_ram, host_bw = inp.host_ram_gb, inp.host_bw_gbps
    if job.training:
        if inp.gpu_layers is not None:
            raise ToolError("gpu_layers: layer offload is for inference; training offloads "
                            "with `offload` (optimizer or optimizer_and_params)")
        if inp.offload in (None, "none"):
            return None
        return training(job, layout, parts, inp.offload, gpus_per_node, host_bw or PCIE_GBPS,
                        host_ram)
    if inp.offload not in (None, "none"):
        raise ToolError("offload: ZeRO offload is for training; inference offloads layers "
                        "with `gpu_layers`")
    said: list[str] = []
    layers = inp.gpu_layers
    if layers is None:
        if host_ram is None or gpu_memory_gb is None or parts.total <= gpu_memory_gb * 1e9:
            return None
        layers = layers_that_fit(job, parts, gpu_memory_gb)
        said.append(f"gpu_layers: {layers} of {job.shape.layers}, the most whose weights and "
                    f"KV cache fit {gpu_memory_gb:.3g} GB of GPU memory; the rest in host RAM")
    result = inference(job, parts, layers, host_bw or HOST_RAM_GBPS, gpu_gbps, host_ram,
                       shards=layout.tp * layout.pp * layout.ep)
    return result._replace(said=said + result.said)
