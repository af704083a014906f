"""Training step time from FLOPs and communication: the busiest stage's compute, exposed
communication, the pipeline bubble and the optimizer's update.

The FLOP counts follow Narayanan et al. 2021 (Megatron-LM, SC21): per token and layer the dense
matmuls cost 2 FLOPs per parameter forward and twice that backward, and attention scores add
4·s·h forward; full recompute repeats the forward. The output layer runs on the last pipeline
stage. Communication times come from a `Collective` callable, so this module stays pure
arithmetic.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

# (op, size_bytes, ranks, ranks_per_node) -> seconds; ranks_per_node < ranks means the
# group spans nodes.
Collective = Callable[[str, float, int, int], float]
# The all-reduce of a tensor-parallel group, named apart from other all-reduces: its GPUs are
# adjacent, so a bridge joining pairs of PCIe cards carries it when the group fits the bridge.
TP_ALL_REDUCE = "tp_all_reduce"

MEGATRON = "megatron-lm-2021"
RECOMPUTE_MODES = ("none", "selective", "full")
# activation-memory#selective-recompute-time: selective recompute costs 0.2·s/h of the layer's
# time (Korthikanti et al. Table 4: +6.6-6.8% at s/h = 1/3; Figure 8: about 2% at s/h = 0.1).
SELECTIVE_TIME_PER_S_OVER_H = 0.2
# activation-memory#sequence-parallel-time: the layer runs 19.0 ms instead of 19.6 (Table 4).
SEQUENCE_PARALLEL_SPEEDUP = 19.0 / 19.6


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


def model_flops_per_token(params: float, layers: int, seq_len: int, attn_dim: int,
                          frozen: bool = False) -> float:
    """Model FLOPs per trained token (PaLM's MFU numerator): 6·N + 12·l·s·d_attn.

    Frozen weights (LoRA, QLoRA: only small adapters train) skip the backward pass's
    weight-gradient matmuls, 2·N of the 6·N (qlora-paper#lora-compute)."""
    weights = 4 if frozen else 6
    return weights * params + 12 * layers * seq_len * attn_dim


def hardware_flops_per_token(params: float, layers: int, seq_len: int, attn_dim: int,
                             recompute: str, frozen: bool = False) -> float:
    """FLOPs actually executed per token: the model FLOPs plus what recompute repeats."""
    base = model_flops_per_token(params, layers, seq_len, attn_dim, frozen)
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
    sequence_parallel: bool = False  # Megatron SP with tp > 1
    frozen_weights: bool = False  # LoRA / QLoRA: no weight gradients for the base model
    cp: int = 1  # context-parallel ranks splitting each sequence (ring attention)
    shard_group: int = 0  # HSDP: ZeRO-3 within groups of this many ranks; 0 = all dp x cp
    kv_dim: int = 0  # K (or V) width: kv_heads x head_dim; 0 = attn_dim (no GQA)
    vocab: int = 0  # output layer width: its matmul runs on the last pipeline stage alone
    balanced_stages: bool = False  # layers moved off the last stage to balance the head
    update_bytes: float = 0.0  # HBM bytes the optimizer update moves per trained parameter
    hbm_bytes_per_s: float = 0.0  # the GPU's memory bandwidth


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
    virtual_stages: int = 1
    efficiency: float = 0.0  # the share of peak the compute term assumed
    cp_s: float = 0.0  # exposed context-parallel KV exchange
    update_s: float = 0.0  # the optimizer's update of this GPU's parameters

    @property
    def comm_s(self) -> float:
        return self.tp_s + self.pp_s + self.dp_s + self.ep_s + self.cp_s


def compute_time_factor(recompute: str, sequence_parallel: bool, tp: int, seq_len: int,
                        hidden: int) -> float:
    """What selective recompute and sequence parallelism do to the layers' time, as measured.

    Selective recompute repeats the attention core, memory-bound softmax and dropout more than
    FLOPs: its measured cost is 0.2·s/h of the layer's time (the FLOP count, 4·s·h a layer,
    says a third of that), counted here in place of the FLOPs. Sequence parallelism runs layer
    norms and dropouts on 1/t of the tokens: a layer 3% faster when tp > 1.
    """
    factor = 1.0
    if recompute == "selective":
        factor *= 1 + SELECTIVE_TIME_PER_S_OVER_H * seq_len / hidden
    if sequence_parallel and tp > 1:
        factor *= SEQUENCE_PARALLEL_SPEEDUP
    return factor


def head_flops_per_token(hidden: int, vocab: int, frozen: bool = False) -> float:
    """The output layer's FLOPs per token: 2·h·V forward, twice that backward (the weight
    gradient skipped when frozen); Megatron-LM never recomputes it (megatron-lm-2021#flops-
    derivation: factor 3 on the head, 4 on the layers)."""
    return (4 if frozen else 6) * hidden * vocab


def busiest_stage_flops(hw_per_token: float, head_per_token: float, layers: int, pp: int,
                        balanced: bool = False) -> float:
    """FLOPs per token of the slowest pipeline stage, which sets the pace of the whole pipeline.

    Without a pipeline one GPU group runs everything. With one, the last stage runs the output
    layer (logits over the vocabulary and the loss) besides its layers: Megatron-LM builds it
    there alone (megatron-lm-2021#last-stage-head). An even split gives every stage ceil(l/p)
    layers but the last floor(l/p), so with few layers a stage the head makes the last stage
    the slowest. A balanced split (uneven stages allowed: Llama 3 takes a layer off the first
    and last stages, DeepSpeed partitions by parameter count) moves layers off the last stage
    until no stage is slower than it needs to be.
    """
    if pp == 1:
        return hw_per_token
    per_layer = (hw_per_token - head_per_token) / layers
    even = max(math.ceil(layers / pp) * per_layer, layers // pp * per_layer + head_per_token)
    if not balanced:
        return even
    best = even
    for n in range(math.ceil(layers / pp), layers + 1):  # layers on each stage but the last
        last = max(0, layers - (pp - 1) * n)
        best = min(best, max(n * per_layer, last * per_layer + head_per_token))
        if last == 0:
            break
    return best


def step_time(x: StepShape, comm: Collective) -> StepTime:
    """Step = compute + exposed TP, PP, EP and DP communication + bubble, for one layout."""
    tokens = x.dp * x.micro_batch * x.microbatches * x.seq_len
    # Selective recompute is timed by its measured share (compute_time_factor), not its FLOPs.
    counted = "none" if x.recompute == "selective" else x.recompute
    hw = hardware_flops_per_token(x.params, x.layers, x.seq_len, x.attn_dim, counted,
                                  x.frozen_weights)
    head = head_flops_per_token(x.hidden, x.vocab, x.frozen_weights)
    stage = busiest_stage_flops(hw, min(head, hw), x.layers, x.pp, x.balanced_stages)
    factor = compute_time_factor(x.recompute, x.sequence_parallel, x.tp, x.seq_len, x.hidden)
    compute = stage * x.pp * tokens / (x.gpus * x.peak_flops * x.efficiency) * factor
    stage_layers = math.ceil(x.layers / x.pp)
    # A context-parallel rank holds 1/cp of each sequence's tokens.
    activation = x.micro_batch * x.seq_len / x.cp * x.hidden * x.act_bytes
    tp = _tensor_parallel_s(x, comm, activation, stage_layers)
    ep = _expert_parallel_s(x, comm, activation, stage_layers)
    pp = _pipeline_s(x, comm, activation)
    dp = _data_parallel_s(x, comm, compute)
    cp = _context_parallel_s(x, comm, stage_layers)
    bubble = bubble_fraction(x.pp, x.microbatches, x.virtual_stages) * (compute + tp + ep + cp)
    update = optimizer_update_s(x)
    step = compute + tp + pp + dp + ep + cp + bubble + update
    model = model_flops_per_token(x.params, x.layers, x.seq_len, x.attn_dim,
                                  x.frozen_weights) * tokens
    mfu = model / (step * x.gpus * x.peak_flops)
    return StepTime(step, compute, tp, pp, dp, ep, bubble, mfu, tokens / step, x.virtual_stages,
                    x.efficiency, cp, update)


def optimizer_update_s(x: StepShape) -> float:
    """The optimizer step on one GPU of the first stage: a pass over the parameters it updates,
    bound by memory bandwidth (an element-wise update does a few FLOPs per byte it moves).

    Each GPU updates its tp·pp share of the parameters, and only 1/(dp·cp) of that when ZeRO
    shards the optimizer (stage 1 and up). Counted in full, after the backward pass: the update
    cannot start before the gradients are reduced (optimizer-states#update-traffic).
    """
    if not x.update_bytes or not x.hbm_bytes_per_s:
        return 0.0
    share = math.ceil(x.layers / x.pp) / x.layers / x.tp
    dense, experts = x.dense_params * share, x.expert_params * share / x.ep
    if x.zero_stage >= 1:  # sharded over the data-parallel group (experts: dp/ep ranks)
        dense /= x.shard_group or x.dp * x.cp
        experts /= max(1, x.dp // x.ep)
    return (dense + experts) * x.update_bytes / x.hbm_bytes_per_s


def chunk_choices(layers: int, pp: int) -> list[int]:
    """Model chunks per GPU the interleaved schedule can use: the divisors of the busiest
    stage's layers (every chunk whole layers); 1 alone without a pipeline."""
    if pp == 1:
        return [1]
    per_stage = math.ceil(layers / pp)
    return [v for v in range(1, per_stage + 1) if per_stage % v == 0]


def fastest_schedule(x: StepShape, comm: Collective) -> StepTime:
    """The step time under the best pipeline schedule: plain 1F1B or interleaved with v chunks.

    More chunks shrink the bubble v-fold and multiply the pipeline sends v-fold, so the best v
    balances the two; Megatron-LM and Llama 3 both run the interleaved schedule. Nothing else
    depends on v, so each v is priced from the plain 1F1B parts: step(v) = rest + v·sends +
    bubble / v (the same sums `step_time` makes with virtual_stages = v).
    """
    plain = step_time(dataclasses.replace(x, virtual_stages=1) if x.virtual_stages != 1 else x,
                      comm)
    rest = plain.step_s - plain.pp_s - plain.bubble_s
    best_v, best_s = 1, plain.step_s
    for v in chunk_choices(x.layers, x.pp)[1:]:
        seconds = rest + plain.pp_s * v + plain.bubble_s / v
        if seconds < best_s:
            best_v, best_s = v, seconds
    if best_v == 1:
        return plain
    speedup = plain.step_s / best_s
    return dataclasses.replace(plain, step_s=best_s, pp_s=plain.pp_s * best_v,
                               bubble_s=plain.bubble_s / best_v, mfu=plain.mfu * speedup,
                               tokens_per_s=plain.tokens_per_s * speedup, virtual_stages=best_v)


def _tensor_parallel_s(x: StepShape, comm: Collective, activation: float, layers: int) -> float:
    # Megatron: two all-reduces per layer forward, two backward; full recompute repeats the two.
    if x.tp == 1:
        return 0.0
    per_layer = 4 + (2 if x.recompute == "full" else 0)
    one = comm(TP_ALL_REDUCE, activation, x.tp, x.tp)
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
    ranks = x.dp * x.cp  # context-parallel ranks reduce the same weights' gradients too
    if ranks == 1:
        return 0.0
    per_node = max(1, min(ranks, x.ranks_per_node // x.tp))
    shard = x.dense_params / (x.tp * x.pp) * x.grad_bytes
    if x.shard_group:
        return _hybrid_exposed_s(x, comm, shard, compute)
    ep_dp = x.dp // x.ep
    experts = x.expert_params / (x.tp * x.pp * x.ep) * x.grad_bytes if ep_dp > 1 else 0.0
    ep_node = max(1, per_node // x.ep)

    def both(op: str) -> float:
        return comm(op, shard, ranks, per_node) + (comm(op, experts, ep_dp, ep_node)
                                                   if experts else 0.0)

    per_mb = compute / x.microbatches
    window = per_mb * 2 / 3 if x.dp_overlap else 0.0  # a micro-batch's backward
    if x.zero_stage <= 1:
        return max(0.0, both("all_reduce") - window)
    if x.zero_stage == 2:
        hidden = max(0.0, both("reduce_scatter") - window)
        return x.microbatches * hidden + both("all_gather")
    return x.microbatches * _zero3_exposed_s(x, comm, shard, experts, ep_dp, per_node, ep_node,
                                              per_mb, ranks)


def _hybrid_exposed_s(x: StepShape, comm: Collective, shard: float, compute: float) -> float:
    """HSDP: ZeRO-3 inside each shard group (a node or a few), plain data parallelism across
    groups.

    Every micro-batch gathers and reduce-scatters each layer among the group's ranks (on
    NVLink when the group is one node), hidden under that layer's compute as in ZeRO-3; once
    a step each rank all-reduces its 1/group slice of the gradients with the same slice's
    owners in the other groups (one rank a node, over the network), overlapping the last
    micro-batch's backward (zero3-at-scale#fsdp-hybrid).
    """
    group = x.shard_group
    per_node = max(1, min(group, x.ranks_per_node // x.tp))  # a group fills a node or more
    per_mb = compute / x.microbatches
    inside = x.microbatches * _zero3_exposed_s(x, comm, shard, 0.0, 1, per_node, 1, per_mb,
                                                group)
    replicas = x.dp * x.cp // group
    window = per_mb * 2 / 3 if x.dp_overlap else 0.0
    across = max(0.0, comm("all_reduce", shard / group, replicas, 1) - window)
    return inside + across


def _context_parallel_s(x: StepShape, comm: Collective, layers: int) -> float:
    """Exposed ring-attention traffic: each layer passes every rank's K and V chunk around the
    cp ranks (cp - 1 sends) forward, and K, V and their gradients backward (twice the bytes);
    full recompute repeats the forward. Each send overlaps the attention of the chunk already
    received, so per layer only what exceeds the attention core's time is exposed
    (context-parallelism#ring-attention).
    """
    if x.cp == 1:
        return 0.0
    kv_dim = x.kv_dim or x.attn_dim
    chunk = 2 * x.micro_batch * x.seq_len / x.cp * kv_dim / x.tp * x.act_bytes  # K and V
    per_node = 2 if x.tp * x.cp <= x.ranks_per_node else 1
    send = comm("send_recv", chunk, 2, per_node)
    # The attention core of one layer on one rank: its s/cp queries against all s keys,
    # 4·b·(s/cp)·s·d/tp FLOPs forward (scores and the weighted sum), twice that backward.
    core = 4 * x.micro_batch * x.seq_len / x.cp * x.seq_len * x.attn_dim / x.tp
    core_s = core / (x.peak_flops * x.efficiency)
    forward = max(0.0, (x.cp - 1) * send - core_s)
    backward = max(0.0, (x.cp - 1) * 2 * send - 2 * core_s)
    passes = 2 if x.recompute == "full" else 1
    return layers * x.microbatches * (passes * forward + backward)


def _ring_latency_s(comm: Collective, op: str, size: float, ranks: int, per_node: int) -> float:
    """A ZeRO-3 gather or reduce-scatter: the collective's time as priced, plus what a ring's
    latency (a network hop for each of its ranks - 1 steps) adds over the layout priced.

    NCCL runs all-gather and reduce-scatter as rings over every rank of the group, one ring per
    network port, which moves the bytes through the node's ports together
    (collective-algorithms#rings-per-port) but pays a step for each rank, not for each node
    (collective-algorithms#ring). A per-layer gather over thousands of ranks pays
    thousands of hops, which is how ZeRO-3 stops hiding on very large groups.
    """
    if ranks < 2 or size <= 0:
        return 0.0
    hierarchical_latency = comm(op, 1.0, ranks, per_node)  # a byte: latency alone
    hop = comm("send_recv", 1.0, 2, 1 if ranks > per_node else 2)
    return comm(op, size, ranks, per_node) + max(0.0, (ranks - 1) * hop - hierarchical_latency)


def _zero3_exposed_s(x: StepShape, comm: Collective, shard: float, experts: float, ep_dp: int,
                     per_node: int, ep_node: int, per_mb: float, ranks: int) -> float:
    """One micro-batch's ZeRO-3 traffic left over after what its compute hides.

    ZeRO-3 (and FSDP) gather each layer's parameters just before the layer runs, forward and
    again backward, and reduce-scatter its gradients after the backward (zero-paper#stage-3):
    collectives of one layer's shard, each paying its own latency, which grows with the DP
    group, while a layer's compute shrinks as a fixed batch spreads over more ranks. Prefetch
    overlaps the next layer's gather with this layer's compute, so per layer only what exceeds
    the layer's forward (or backward) time is exposed.
    """
    layers = math.ceil(x.layers / x.pp)
    layer, layer_experts = shard / layers, experts / layers

    def one(op: str) -> float:
        return _ring_latency_s(comm, op, layer, ranks, per_node) + (
            _ring_latency_s(comm, op, layer_experts, ep_dp, ep_node) if layer_experts else 0.0)

    forward_share = 0.25 if x.recompute == "full" else 1 / 3  # recompute repeats the forward
    forward = per_mb * forward_share / layers if x.dp_overlap else 0.0
    backward = per_mb * (1 - forward_share) / layers if x.dp_overlap else 0.0
    gather, scatter = one("all_gather"), one("reduce_scatter")
    return layers * (max(0.0, gather - forward) + max(0.0, gather + scatter - backward))
