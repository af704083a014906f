"""A serving replica's latency, term by term: time to first token (prefill) and time per output
token (decode), each split into weights read, KV read, compute and tensor-parallel traffic.

The plan search needs these per GPU kind, tensor-parallel degree and concurrency, thousands of
times; the model and the GPU are resolved once (through the memory and parallelism tools) and
each evaluation is a few multiplications (note serving-latency).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from clusterplan.tools.memory.kv_cache import bytes_per_token
from clusterplan.tools.memory.precision import BYTES
from clusterplan.tools.parallelism.cluster import (
    Cluster,
    JobContext,
    memory_of,
    resolve_cluster,
    resolve_job,
)
from clusterplan.tools.parallelism.expert_reads import weights_read_share
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.serving_layouts import (
    KV_READ_EFFICIENCY,
    WEIGHTS_READ_EFFICIENCY,
)
from clusterplan.tools.parallelism.serving_step import Phase, pass_overhead_s, tp_link_kind

ACT_BYTES = 2.0  # BF16 activations on the wire (serving-latency#decode-step)


@dataclass(frozen=True)
class Replica:
    """One replica shape (tp GPUs in a node, pp stages over nodes) of one GPU kind."""

    tp: int
    pp: int
    weights_gb: float  # the whole replica's weights
    free_kv_gb: float  # HBM left for KV cache over the replica's GPUs
    kv_bytes_per_token: float

    @property
    def gpus(self) -> int:
        return self.tp * self.pp

    def max_batch(self, context: int) -> int:
        """Sequences whose KV cache at full context fits beside the weights."""
        return max(0, math.floor(self.free_kv_gb * 1e9 / (self.kv_bytes_per_token * context)))


class ServingModel:
    """The resolved model and GPU, and the latency of any replica shape and load."""

    def __init__(self, model_args: dict[str, Any], gpu: str, gpus_per_node: int,
                 context_len: int | None) -> None:
        extra = {"context_len": context_len} if context_len else {}
        inp = ParallelismInput(**model_args, workload="inference", gpu=gpu, gpus=gpus_per_node,
                               gpus_per_node=gpus_per_node, concurrency=1, **extra)
        self.ctx: JobContext = resolve_job(inp, concurrency=1)
        self.cluster: Cluster = resolve_cluster(inp, self.ctx.job.precision, [])
        job, shape = self.ctx.job, self.ctx.shape
        self.context_len = job.context_len
        self.kv_bytes_per_token = bytes_per_token(shape, BYTES[job.kv_precision])
        self.active_params = shape.active_params_b * 1e9
        self.attn_dim = shape.heads * shape.head_dim
        self.hbm_bytes_s = self.cluster.gpu.memory_bandwidth_tb_s * 1e12
        self.hbm_gb = self.cluster.gpu.memory_gb

    def replicas(self, max_nodes: int = 64) -> list[Replica]:
        """Shapes that hold the weights with room for KV cache: TP inside a node (1, 2, 4, 8),
        then whole nodes of pipeline stages when one node is not enough."""
        s, gpn = self.ctx.shape, self.cluster.gpus_per_node
        tps = [t for t in range(1, gpn + 1)
               if gpn % t == 0 and s.heads % t == 0 and s.kv_heads % t == 0]
        shapes = [(t, 1) for t in tps]
        shapes += [(tps[-1], n) for n in range(2, max_nodes + 1)
                   if s.layers % n == 0 and tps[-1] == gpn]
        out = []
        for tp, pp in shapes:
            b = memory_of(self.ctx.job, tp, pp, 1, 1, 0, 1, "none", batch=1)
            fixed_gb = (b.total - b.kv_cache) / 1e9  # weights + overhead per GPU
            free = (self.hbm_gb - fixed_gb) * tp * pp
            if free <= 0:
                continue
            out.append(Replica(tp, pp, b.weights * tp * pp / 1e9, free,
                               self.kv_bytes_per_token))
            if pp > 1:
                break  # the first pipeline depth that fits; deeper ones only add stages
        return out

    def _comm(self, tokens: int, r: Replica) -> float:
        """Two all-reduces a layer of tokens x hidden activations over tp, and pp-1 sends."""
        s, comm = self.ctx.shape, self.cluster.comm
        size = tokens * s.hidden * ACT_BYTES
        tp_s = 2 * s.layers * comm("all_reduce", size, r.tp, r.tp) if r.tp > 1 else 0.0
        pp_s = (r.pp - 1) * comm("send_recv", size, 2, 1) if r.pp > 1 else 0.0
        return tp_s + pp_s

    def _overhead(self, r: Replica) -> float:
        """The pass's fixed cost: kernels a layer, small all-reduces over the TP group's link."""
        c = self.cluster
        return pass_overhead_s(self.ctx.shape.layers, r.tp, tp_link_kind(c.gpu, c.intra, r.tp))

    def decode(self, r: Replica, batch: int, context: int) -> Phase:
        """One decode step for `batch` sequences each holding `context` tokens of KV cache."""
        layers = self.ctx.shape.layers
        flops = batch * (2 * self.active_params + 4 * layers * context * self.attn_dim)
        c = self.cluster
        read = r.weights_gb * weights_read_share(self.ctx.shape, batch)
        return Phase(
            weights_s=read * 1e9 / (r.tp * self.hbm_bytes_s * WEIGHTS_READ_EFFICIENCY),
            kv_s=batch * context * self.kv_bytes_per_token
            / (r.tp * self.hbm_bytes_s * KV_READ_EFFICIENCY),
            compute_s=flops / (r.tp * c.peak_flops * c.efficiency),
            comm_s=self._comm(batch, r), overhead_s=self._overhead(r))

    def prefill(self, r: Replica, prompt: int) -> Phase:
        """One prompt of `prompt` tokens on an idle replica (its time to first token)."""
        layers = self.ctx.shape.layers
        flops = prompt * (2 * self.active_params + 2 * layers * prompt * self.attn_dim)
        c = self.cluster
        read = r.weights_gb * weights_read_share(self.ctx.shape, prompt)
        return Phase(
            weights_s=read * 1e9 / (r.tp * self.hbm_bytes_s * WEIGHTS_READ_EFFICIENCY),
            kv_s=prompt * self.kv_bytes_per_token / (r.tp * self.hbm_bytes_s
                                                     * KV_READ_EFFICIENCY),
            compute_s=flops / (r.tp * c.peak_flops * c.efficiency),
            comm_s=self._comm(prompt, r), overhead_s=self._overhead(r))

    def largest_batch(self, r: Replica, context: int, tpot_s: float | None,
                      cap: int) -> int:
        """The most sequences (<= cap, <= the KV room) whose decode step is within tpot_s;
        0 when even one sequence is too slow. The step grows with the batch, so bisect."""
        hi = min(cap, r.max_batch(context))
        if hi < 1:
            return 0
        if tpot_s is None:
            return hi
        if self.decode(r, 1, context).total_s > tpot_s:
            return 0
        lo = 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.decode(r, mid, context).total_s <= tpot_s:
                lo = mid
            else:
                hi = mid - 1
        return lo
