"""Training step time from FLOPs and communication: compute, exposed comm, pipeline bubble.

The FLOP counts follow Narayanan et al. 2021 (Megatron-LM, SC21): per token and layer the dense
matmuls cost 2 FLOPs per parameter forward and twice that backward, and attention scores add
4·s·h forward; full recompute repeats the forward. Communication times come from a
`Collective` callable, so this module stays pure arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

# (op, size_bytes, ranks, ranks_per_node) -> seconds; ranks_per_node < ranks means the
# group spans nodes.
Collective = Callable[[str, float, int, int], float]

MEGATRON = "megatron-lm-2021"
RECOMPUTE_MODES = ("none", "selective", "full")


def narayanan_flops_per_iteration(batch: int, seq_len: int, layers: int, hidden: int,
                                  vocab: int, recompute: bool = True) -> float:
    """FLOPs of one GPT iteration: 96·B·s·l·h²·(1 + s/6h + V/16lh) with full recompute."""
    b, s, lay, h, v = batch, seq_len, layers, hidden, vocab
    if recompute:
        return 96 * b * s * lay * h**2 * (1 + s / (6 * h) + v / (16 * lay * h))
    # Without the recomputed forward: 3 passes of the layers instead of 4, the head unchanged.
    return 72 * b * s * lay * h**2 * (1 + s / (6 * h) + v / (12 * lay * h))


def paper_training_seconds(tokens: float, params: float, gpus: int, flops_per_gpu: float) -> float:
    """Narayanan et al.'s end-to-end estimate 8·T·P/(n·X) (6 FLOPs per parameter + recompute)."""
    return 8 * tokens * params / (gpus * flops_per_gpu)


def model_flops_per_token(params: float, layers: int, seq_len: int, attn_dim: int) -> float:
    """Model FLOPs per trained token (PaLM's MFU numerator): 6·N + 12·l·s·d_attn."""
    return 6 * params + 12 * layers * seq_len * attn_dim


def hardware_flops_per_token(params: float, layers: int, seq_len: int, attn_dim: int,
                             recompute: str) -> float:
    """FLOPs actually executed per token: the model FLOPs plus what recompute repeats."""
    base = model_flops_per_token(params, layers, seq_len, attn_dim)
    attention_forward = 4 * layers * seq_len * attn_dim
    if recompute == "full":
        return base + 2 * params + attention_forward
    if recompute == "selective":
        # Korthikanti et al. 2022 recompute only the attention core (scores and softmax).
        return base + attention_forward
    return base


def bubble_fraction(pp: int, microbatches: int, virtual_stages: int = 1) -> float:
    """1F1B pipeline bubble as a fraction of the ideal compute time: (p-1)/(v·m).

    v = 1 is plain 1F1B; with v model chunks per GPU (the interleaved schedule, Narayanan et
    al. 2021 Section 2.2.2) each chunk's forward and backward take 1/v of the time, so the same
    p-1 idle slots cost v times less.
    """
    if virtual_stages < 1:
        raise ValueError(f"virtual stages must be at least 1, not {virtual_stages}")
    return (pp - 1) / (virtual_stages * microbatches)


@dataclass(frozen=True)
class StepShape:
    """What one iteration of one layout does, per GPU of the busiest pipeline stage."""

    gpus: int
    tp: int
    pp: int
    dp: int
    ep: int
    zero_stage: int
    micro_batch: int
    microbatches: int
    recompute: str
    seq_len: int
    layers: int
    hidden: int
    params: float  # active parameters (FLOPs)
    dense_params: float  # parameters every DP rank holds a replica of
    expert_params: float  # parameters split over expert-parallel ranks
    attn_dim: int
    experts_per_token: int
    moe: bool
    act_bytes: float
    grad_bytes: float
    peak_flops: float  # dense peak of one GPU at the precision, FLOP/s
    efficiency: float
    ranks_per_node: int
    dp_overlap: bool = True
    virtual_stages: int = 1  # model chunks per GPU: 1 = plain 1F1B, v > 1 = interleaved



@dataclass(frozen=True)
class StepTime:
    """The step's parts in seconds, and the utilisation they imply."""

    step_s: float
    compute_s: float
    tp_s: float
    pp_s: float
    dp_s: float
    ep_s: float
    bubble_s: float
    mfu: float
    tokens_per_s: float

    @property
    def comm_s(self) -> float:
        return self.tp_s + self.pp_s + self.dp_s + self.ep_s


def stage_imbalance(layers: int, pp: int) -> float:
    """The busiest stage's share over an even split: ceil(l/p)·p/l (1 when p divides l)."""
    return math.ceil(layers / pp) * pp / layers


def step_time(x: StepShape, comm: Collective) -> StepTime:
    """Step = compute + exposed TP, PP, EP and DP communication + bubble, for one layout."""
    tokens = x.dp * x.micro_batch * x.microbatches * x.seq_len
    hw = hardware_flops_per_token(x.params, x.layers, x.seq_len, x.attn_dim, x.recompute)
    imbalance = stage_imbalance(x.layers, x.pp)
    compute = hw * tokens / (x.gpus * x.peak_flops * x.efficiency) * imbalance
    stage_layers = math.ceil(x.layers / x.pp)
    activation = x.micro_batch * x.seq_len * x.hidden * x.act_bytes
    tp = _tensor_parallel_s(x, comm, activation, stage_layers)
    ep = _expert_parallel_s(x, comm, activation, stage_layers)
    pp = _pipeline_s(x, comm, activation)
    dp = _data_parallel_s(x, comm, compute)
    bubble = bubble_fraction(x.pp, x.microbatches, x.virtual_stages) * (compute + tp + ep)
    step = compute + tp + pp + dp + ep + bubble
    model = model_flops_per_token(x.params, x.layers, x.seq_len, x.attn_dim) * tokens
    mfu = model / (step * x.gpus * x.peak_flops)
    return StepTime(step, compute, tp, pp, dp, ep, bubble, mfu, tokens / step)


def _tensor_parallel_s(x: StepShape, comm: Collective, activation: float, layers: int) -> float:
    # Megatron: two all-reduces per layer forward, two backward; full recompute repeats the two.
    if x.tp == 1:
        return 0.0
    per_layer = 4 + (2 if x.recompute == "full" else 0)
    one = comm("all_reduce", activation, x.tp, x.tp)
    return layers * x.microbatches * per_layer * one


def _expert_parallel_s(x: StepShape, comm: Collective, activation: float, layers: int) -> float:
    # Token dispatch and combine are all-to-alls, forward and backward: four per MoE layer.
    if not x.moe or x.ep == 1:
        return 0.0
    size = activation / x.tp * x.experts_per_token
    per_node = max(1, min(x.ep, x.ranks_per_node // x.tp))
    return layers * x.microbatches * 4 * comm("all_to_all", size, x.ep, per_node)


def _pipeline_s(x: StepShape, comm: Collective, activation: float) -> float:
    # One activation send forward and one gradient send backward per micro-batch; each TP rank
    # sends its 1/tp slice (Narayanan et al.'s scatter/gather optimisation). The interleaved
    # schedule crosses a stage boundary at every one of its v chunks: v times the sends.
    if x.pp == 1:
        return 0.0
    per_node = 2 if x.gpus <= x.ranks_per_node else 1
    sends = 2 * x.microbatches * x.virtual_stages
    return sends * comm("send_recv", activation / x.tp, 2, per_node)


def _data_parallel_s(x: StepShape, comm: Collective, compute: float) -> float:
    """Exposed DP traffic of one step under the ZeRO stage, after what compute hides.

    ZeRO 0/1 reduce the gradients once per step (an all-reduce, or reduce-scatter plus
    all-gather: the same volume), overlapping the last micro-batch's backward. ZeRO 2 keeps only
    its gradient shard, so it reduce-scatters after every micro-batch, then all-gathers the
    updated parameters once. ZeRO 3 also gathers the parameters before each micro-batch's
    forward and backward (1.5x the DP volume per micro-batch); prefetch hides what fits under
    that micro-batch's compute.
    """
    if x.dp == 1:
        return 0.0
    per_node = max(1, min(x.dp, x.ranks_per_node // x.tp))
    shard = x.dense_params / (x.tp * x.pp) * x.grad_bytes
    ep_dp = x.dp // x.ep
    experts = x.expert_params / (x.tp * x.pp * x.ep) * x.grad_bytes if ep_dp > 1 else 0.0
    ep_node = max(1, per_node // x.ep)

    def both(op: str) -> float:
        return comm(op, shard, x.dp, per_node) + (comm(op, experts, ep_dp, ep_node)
                                                  if experts else 0.0)

    per_mb = compute / x.microbatches
    window = per_mb * 2 / 3 if x.dp_overlap else 0.0  # a micro-batch's backward
    if x.zero_stage <= 1:
        return max(0.0, both("all_reduce") - window)
    if x.zero_stage == 2:
        hidden = max(0.0, both("reduce_scatter") - window)
        return x.microbatches * hidden + both("all_gather")
    per_mb_comm = 2 * both("all_gather") + both("reduce_scatter")
    return x.microbatches * max(0.0, per_mb_comm - (per_mb if x.dp_overlap else 0.0))
