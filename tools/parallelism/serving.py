"""Serving answers of the parallelism tool: the memory tool's bytes per replica shape, the
fewest GPUs that hold them, replicas, decode and prefill speed, and the trace."""

from __future__ import annotations

import math
from collections.abc import Callable

from clusterplan.tools.contract import Step, q
from clusterplan.tools.memory.kv_cache import bytes_per_token
from clusterplan.tools.memory.precision import BYTES
from clusterplan.tools.parallelism.cluster import Cluster, JobContext, memory_of
from clusterplan.tools.parallelism.expert_reads import weights_read_share
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.layout_search import Rejections
from clusterplan.tools.parallelism.result import ServingPlan, SmallestCluster
from clusterplan.tools.parallelism.serving_layouts import ServingMemory, ServingSpace, plan_replicas
from clusterplan.tools.parallelism.serving_step import tp_link_kind

MAX_SEARCH_GPUS = 1 << 20


def serving_space(inp: ParallelismInput, cluster: Cluster, ctx: JobContext,
                  max_gpus: int | None = None) -> ServingSpace:
    s, job = ctx.shape, ctx.job
    return ServingSpace(
        gpus=cluster.gpus, gpus_per_node=cluster.gpus_per_node, heads=s.heads,
        kv_heads=s.kv_heads, layers=s.layers, hidden=s.hidden, attn_dim=s.heads * s.head_dim,
        active_params=s.active_params_b * 1e9, concurrency=job.batch,
        context_len=job.context_len, hbm_gb=cluster.gpu.memory_gb,
        hbm_tb_s=cluster.gpu.memory_bandwidth_tb_s, peak_flops=cluster.peak_flops,
        efficiency=cluster.efficiency, act_bytes=4.0 if job.precision == "fp32" else 2.0,
        min_headroom_gb=inp.min_headroom_gb, target_latency_ms=inp.target_latency_ms,
        max_gpus=max_gpus, weights_read_share=weights_read_share(s, job.batch),
        link_kind_by_tp={tp: tp_link_kind(cluster.gpu, cluster.intra, tp)
                         for tp in range(1, cluster.gpus_per_node + 1)})


def memory_for(ctx: JobContext) -> Callable[[int, int], ServingMemory]:
    """(tp, pp) -> the memory tool's bytes for one replica serving `batch` sequences."""
    job = ctx.job
    per_token = bytes_per_token(job.shape, BYTES[job.kv_precision])

    def memory(tp: int, pp: int) -> ServingMemory:
        b = memory_of(job, tp, pp, 1, 1, 0, 1, "none", batch=job.batch)
        return ServingMemory(b.total / 1e9, b.weights / 1e9, b.kv_cache / 1e9, per_token)

    return memory


def serve(inp: ParallelismInput, cluster: Cluster,
          ctx: JobContext) -> tuple[list[ServingPlan], Rejections]:
    """Ranked serving plans inside the cluster, their rejections, and the smallest cluster."""
    plans, rejected = plan_replicas(serving_space(inp, cluster, ctx), memory_for(ctx),
                                    cluster.comm)
    if inp.objective == "headroom":
        plans.sort(key=lambda p: (-p.kv_capacity_tokens, p.tp * p.pp))
    else:
        plans.sort(key=lambda p: (p.tp * p.pp, -p.decode_tokens_per_s))
    out = [ServingPlan(rank=i + 1, gpus_per_replica=p.tp * p.pp, **p.__dict__)
           for i, p in enumerate(plans[: inp.top_k])]
    return out, rejected


def smallest_serving_cluster(inp: ParallelismInput, cluster: Cluster,
                             ctx: JobContext) -> SmallestCluster | None:
    """The first replica shape that fits when the cluster may grow: whole nodes of it."""
    space = serving_space(inp, cluster, ctx, max_gpus=MAX_SEARCH_GPUS)
    plans, _ = plan_replicas(space, memory_for(ctx), cluster.comm)
    if not plans:
        return None
    first = min(plans, key=lambda p: p.tp * p.pp)
    nodes = math.ceil(first.tp * first.pp / cluster.gpus_per_node)
    layout: dict[str, object] = {"tp": first.tp, "pp": first.pp}
    if ctx.shape.layers % first.pp:
        layout["uneven_stages"] = f"{ctx.shape.layers} layers over {first.pp} stages"
    return SmallestCluster(gpus=nodes * cluster.gpus_per_node, nodes=nodes, layout=layout,
                           per_gpu_gb=round(first.per_gpu_gb, 2))


def serving_steps(cluster: Cluster, ctx: JobContext, best: ServingPlan | None) -> list[Step]:
    """How a replica is sized and how fast it decodes."""
    job = ctx.job
    steps = [Step(label="replica search", formula="tp = 1, 2, 4... inside a node first; pp over "
                  "whole nodes only when one node cannot hold weights + KV cache",
                  inputs={"concurrency": q(job.batch, "sequences"),
                          "context_len": q(job.context_len, "tokens")},
                  notes=["parallelism-strategies#tp-inside-node",
                         "nvlink-vs-infiniband#inference-rarely-needs-ib"])]
    if best is None:
        return steps
    steps += [
        Step(label="fewest GPUs per replica", formula="first (tp, pp) whose busiest GPU holds "
             "its weights, KV cache and overhead", inputs={"tp": q(best.tp), "pp": q(best.pp)},
             result=q(best.per_gpu_gb, "GB per GPU"), notes=["memory-sizing"]),
        Step(label="decode step", formula="max(pp x (weights per GPU / (HBM x 0.8) + KV per GPU "
             "/ (HBM x 0.5)), 2·N·batch FLOPs / (tp x peak x efficiency)) + TP all-reduces + PP "
             "sends + fixed cost a layer", inputs={
                 "HBM": q(cluster.gpu.memory_bandwidth_tb_s, "TB/s"),
                 "bound": q(best.decode_bound),
                 "fixed cost (kernels, small all-reduces)": q(best.decode_overhead_ms, "ms")},
             result=q(best.time_per_output_token_ms, "ms per output token"),
             notes=["inference-roofline#decode-memory-bound",
                    "serving-latency#weights-read-efficiency",
                    "serving-latency#kv-read-efficiency", "serving-latency#layer-overhead",
                    "serving-latency#small-all-reduce", cluster.gpu.source_note]),
        Step(label="decode throughput", formula="concurrency / decode step x replicas",
             inputs={"replicas": q(best.replicas)}, result=q(best.decode_tokens_per_s,
                                                              "tokens/s"),
             notes=["inference-roofline#decode-memory-bound"]),
        Step(label="prefill", formula="GPUs x peak x efficiency / (2·N + attention) per token",
             result=q(best.prefill_tokens_per_s_per_replica, "tokens/s per replica"),
             notes=["inference-roofline#prefill-compute-bound",
                    "mfu-calibration#efficiency-assumption"]),
    ]
    return steps
