"""The bytes one GPU holds for a Job under a Layout: plain arithmetic, no validation, so the
layout search can call it many times."""

from __future__ import annotations

import math
from typing import NamedTuple

from clusterplan.tools.memory import activations, kv_cache
from clusterplan.tools.memory.job import Job, Layout
from clusterplan.tools.memory.model_shape import ModelShape
from clusterplan.tools.memory.precision import BYTES

CUDA_CONTEXT_BYTES = 0.5e9  # gpu-memory-overhead#cuda-context
FRAGMENTATION = 0.05        # gpu-memory-overhead#fragmentation: share of the allocated bytes


class Breakdown(NamedTuple):
    """Bytes per GPU, by kind (the busiest GPU: the first pipeline stage)."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    kv_cache: float
    overhead: float

    @property
    def total(self) -> float:
        return sum(self)


def adapter_params(job: Job) -> float:
    """LoRA parameters: r·(inputs + outputs) of every targeted matrix, in every layer."""
    s = job.shape
    key = ("lora inputs + outputs per layer", job.lora_targets)
    per_layer = s.derived.get(key)
    if per_layer is None:  # depends on the shape and the targets only: kept with the shape
        q_out, kv_out = s.heads * s.head_dim, s.kv_heads * s.head_dim
        sizes = {"q": s.hidden + q_out, "k": s.hidden + kv_out, "v": s.hidden + kv_out,
                 "o": q_out + s.hidden, "gate": s.hidden + s.ffn_hidden,
                 "up": s.hidden + s.ffn_hidden, "down": s.ffn_hidden + s.hidden}
        ffn_copies = s.experts if s.is_moe else 1  # adapters on every expert's FFN
        per_layer = s.derived[key] = sum(
            sizes[t] * (ffn_copies if t in ("gate", "up", "down") else 1)
            for t in job.lora_targets)
    return float(job.lora_rank * per_layer * s.layers)


def adapter_bytes(job: Job) -> float:
    """LoRA adapters train at 16 bits (qlora-paper#nf4), or 32 when the whole job is FP32."""
    return 4.0 if job.precision == "fp32" else 2.0


def stage_share(job: Job, pp: int) -> float:
    """The busiest stage's share of the layers (ceil(L/pp)/L), and so of the parameters."""
    layers = job.shape.layers
    return math.ceil(layers / pp) / layers


def first_stage_params(shape: ModelShape, pp: int) -> tuple[float, float]:
    """(dense, expert) parameters of the first pipeline stage, before tp and ep split them:
    its share of the layers plus, when pp > 1, the whole input embedding, V·h, which sits on
    that stage alone (megatron-lm-2021#first-stage-embedding)."""
    share = math.ceil(shape.layers / pp) / shape.layers
    dense = shape.dense_params * share
    if pp > 1:
        embedding = min(shape.vocab * shape.hidden, shape.dense_params)
        dense += embedding * (1 - share)
    return dense, shape.expert_params * share


def model_states(job: Job, tp: int, pp: int, ep: int) -> ModelStates:
    """Weights, gradients and optimizer states on one GPU, each as (bytes every GPU holds,
    bytes ZeRO divides by dp): ZeRO stage 3 shards weights, 2 gradients, 1 optimizer states.

    TP and PP split every parameter (the first stage holds the input embedding whole: see
    first_stage_params); EP splits expert parameters further. A ZeRO-sharded term is divided
    by dp (experts by dp/ep, their own data-parallel group): (dense + ep·expert)/dp.
    """
    s = job.shape
    share = math.ceil(s.layers / pp) / s.layers / tp  # stage_share(job, pp) / tp
    dense, expert = first_stage_params(s, pp)
    dense, expert = dense / tp, expert / tp / ep
    base, weight_bytes = dense + expert, job.weight_bytes
    if not job.training:
        return base * weight_bytes, 0.0, 0.0, 0.0, 0.0, 0.0
    spread = dense + expert * ep
    z, k = job.zero_stage, job.optimizer.per_param if job.optimizer else 0.0
    if job.adapters:  # a frozen base; only the adapters have gradients and optimizer states
        lora = adapter_params(job) * share
        held = lora * adapter_bytes(job)
        if z >= 3:
            weights = 0.0, spread * weight_bytes + held
        else:
            weights = base * weight_bytes + held, 0.0
        base = spread = lora
    else:
        weights = (0.0, spread * weight_bytes) if z >= 3 else (base * weight_bytes, 0.0)
    return (*weights, *((0.0, spread * job.grad_bytes) if z >= 2 else (base * job.grad_bytes, 0.0)),
            *((0.0, spread * k) if z >= 1 else (base * k, 0.0)))


ModelStates = tuple[float, float, float, float, float, float]


def activation_bytes(job: Job, layout: Layout) -> float:
    """Activations on the busiest GPU (training: kept for backward; inference: transient)."""
    return activations_at(job, layout.tp, layout.pp, layout.dp)


def activations_at(job: Job, tp: int, pp: int, dp: int) -> float:
    """`activation_bytes` from the degrees alone (the layout search calls it often)."""
    s = job.shape
    if job.training:
        return activations.training_bytes(
            job.seq_len, job.micro_batch, s.hidden, s.heads, tp, job.sequence_parallel,
            job.recompute, job.flash, s.layers, pp, job.in_flight or pp, job.activation_scale,
            activations.split_units(s))
    tokens = -(-job.batch // dp) * job.context_len
    return activations.inference_bytes(tokens, s.hidden, s.heads, tp, job.flash,
                                       job.activation_scale, activations.split_units(s))


def sequences_per_replica(job: Job, layout: Layout) -> int:
    """Concurrent sequences one model replica serves: the batch spread over dp replicas."""
    return math.ceil(job.batch / layout.dp)


def kv_bytes(job: Job, layout: Layout, per_token: float | None = None) -> float:
    """KV cache on one GPU (inference only; `per_token`: the whole model's bytes per token,
    when the caller has them)."""
    if job.training:
        return 0.0
    if per_token is None:
        per_token = kv_cache.bytes_per_token(job.shape, BYTES[job.kv_precision])
    tokens = kv_cache.cached_tokens(-(-job.batch // layout.dp), job.context_len, job.paging)
    return per_token * tokens * kv_cache.per_gpu_share(job.shape, layout.tp, layout.pp)


def overhead_bytes(allocated: float) -> float:
    """CUDA context plus a fragmentation share of everything the allocator holds."""
    return CUDA_CONTEXT_BYTES + FRAGMENTATION * allocated


def per_gpu(job: Job, layout: Layout, states: ModelStates | None = None,
            per_token: float | None = None) -> Breakdown:
    """The full breakdown on the busiest GPU (`states`: the layout's model_states, and
    `per_token`: the KV cache's bytes per token, when the caller has them already)."""
    dp, tp, pp = layout.dp, layout.tp, layout.pp
    # each term's fixed + spread/dp
    w, ws, g, gs, o, os = states or model_states(job, tp, pp, layout.ep)
    w, g, o = w + ws / dp, g + gs / dp, o + os / dp
    act = activations_at(job, tp, pp, dp)
    kv = 0.0 if job.training else kv_bytes(job, layout, per_token)
    return Breakdown(w, g, o, act, kv, overhead_bytes(w + g + o + act + kv))


def checkpoint_bytes(job: Job) -> float:
    """What a full checkpoint writes: weights plus optimizer states (adapters only for LoRA);
    for inference, the weights a server loads."""
    s = job.shape
    if not job.training:
        return s.params * job.weight_bytes
    k = job.optimizer.per_param if job.optimizer else 0.0
    if job.adapters:
        return adapter_params(job) * (adapter_bytes(job) + k)
    return s.params * (job.weight_bytes + k)
