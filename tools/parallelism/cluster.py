"""What the parallelism search works on: the cluster (GPUs, nodes, links, peak) and the job
(the memory tool's resolved model and defaults), each resolved once per question."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace
from functools import lru_cache

from pydantic import ValidationError

from clusterplan.db.rows import GpuRow, LinkRow
from clusterplan.tools.contract import Step, ToolError, q
from clusterplan.tools.interconnect.collectives import collective_time
from clusterplan.tools.interconnect.links import find_link, node_link, require_scope
from clusterplan.tools.memory.input import MemoryInput
from clusterplan.tools.memory.job import Job
from clusterplan.tools.memory.job import Layout as MemoryLayout
from clusterplan.tools.memory.model_shape import ModelShape
from clusterplan.tools.memory.terms import Breakdown, per_gpu
from clusterplan.tools.memory.tool import prepare
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.matmul_efficiency import A100_GPUS, gpu_scale, is_measured
from clusterplan.tools.parallelism.step_time import TP_ALL_REDUCE, Collective
from clusterplan.validation import describe

DEFAULT_INTER_LINK = "ib-ndr"  # multi-node-clusters#quantum2-ndr
# nvidia-a100-datasheet#dgx-a100-network: A100 nodes came with HDR, a 200 Gb/s port per GPU.
A100_INTER_LINK = "ib-hdr"
EFFICIENCY = 0.6  # mfu-calibration#efficiency-assumption
SEQUENCE_PARALLEL = True  # activation-memory#sequence-parallel-default
PEAK_COLUMN = {"fp32": "fp32_tflops", "bf16": "bf16_tflops", "fp16": "fp16_tflops",
               "fp8": "fp8_tflops"}


@dataclass(frozen=True)
class Cluster:
    """The GPUs, how they sit in nodes, the links between them and their peak at a precision."""

    gpu: GpuRow
    gpus: int
    gpus_per_node: int
    nodes: int
    intra: LinkRow
    inter: LinkRow
    nics_per_node: int
    peak_flops: float
    peak_column: str
    efficiency: float
    comm: Collective
    efficiency_given: bool = False  # the user's figure replaces the training curve
    ridge_flop_per_byte: float = 0.0  # peak FLOP/s over HBM bytes/s: where GEMMs stop starving
    efficiency_scale: float = 1.0  # a user's measurement, matched (calibration.calibrate)
    gpu_scale: float = 1.0  # the fitted curve's factor for this GPU (matmul_efficiency)


def resolve_cluster(inp: ParallelismInput, precision: str, said: list[str]) -> Cluster:
    """GPU row, GPU count and node size, links (given or defaults) and the dense peak."""
    gpu, intra = node_link(inp.gpu, intra_link=inp.intra_link)
    gpn = inp.gpus_per_node or _per_node_given(inp) or gpu.gpus_per_node
    if inp.gpus_per_node is None and not (inp.gpus and inp.nodes):
        said.append(f"gpus_per_node: {gpn} (the usual {gpu.name} node)")
    gpus = inp.gpus or (inp.nodes or 1) * gpn
    if inp.inter_link:
        inter = require_scope(find_link(inp.inter_link, "inter_link"), "inter_node", "inter_link")
    else:
        inter = find_link(A100_INTER_LINK if gpu.id in A100_GPUS else DEFAULT_INTER_LINK)
        said.append(f"inter_link: {inter.id} between nodes, one port per GPU"
                    + (" (as DGX A100 nodes ship)" if gpu.id in A100_GPUS else ""))
    nics = inp.nics_per_node or gpn
    column = _peak_column(gpu, precision, said)
    efficiency = inp.efficiency or EFFICIENCY
    peak = float(getattr(gpu, column)) * 1e12
    scale = gpu_scale(gpu.id)
    if inp.efficiency is None:
        said.append(_curve_said(gpu, scale) if inp.workload != "inference"
                    else f"efficiency: the matmuls reach {EFFICIENCY:.0%} of the dense peak "
                    "(calibrated on published MFUs)")
    pair = find_link(gpu.pair_link) if gpu.pair_link and not inp.intra_link else None
    comm = _group_comm(intra, inter, nics, gpn, pair, gpu.nvlink_domain_gpus)
    return Cluster(gpu, gpus, min(gpn, gpus), math.ceil(gpus / gpn), intra, inter, nics,
                   peak, column, efficiency, comm, inp.efficiency is not None,
                   peak / (gpu.memory_bandwidth_tb_s * 1e12), gpu_scale=scale)


def _curve_said(gpu: GpuRow, scale: float) -> str:
    """The training efficiency assumption in words: the A100 curve, and what carries it over."""
    base = ("efficiency: the matmuls reach a share of the dense peak that grows with their size "
            "(fitted on Megatron-LM's Table 1, A100)")
    if scale == 1.0:
        return base
    if is_measured(gpu.id):
        return (f"{base}, x {scale:g} on {gpu.name} (Hopper), fitted on MosaicML's measured MFU "
                "of MPT 1B-70B on H100")
    return (f"{base}, x {scale:g} on {gpu.name}: no published training run calibrates it, so it "
            "is taken at the H100's measured share; a measured_tflops_per_gpu or measured_step_s "
            "fits it to yours")


def whole_nodes(cluster: Cluster) -> Cluster:
    """The cluster as the first of its GPU's usual nodes, for growing it: a job that does not
    fit on one GPU (or part of a node) grows by whole nodes, not by one-GPU nodes."""
    usual = cluster.gpu.gpus_per_node
    if cluster.nodes > 1 or cluster.gpus_per_node >= usual:
        return cluster
    return replace(cluster, gpus_per_node=usual)


def _per_node_given(inp: ParallelismInput) -> int | None:
    """GPUs per node when the user gave both gpus and nodes: they must split evenly."""
    if not (inp.gpus and inp.nodes):
        return None
    if inp.gpus % inp.nodes:
        raise ToolError(f"gpus: {inp.gpus} GPUs do not split evenly over {inp.nodes} nodes; "
                        "give gpus_per_node or a multiple of nodes")
    return inp.gpus // inp.nodes


def _peak_column(gpu: GpuRow, precision: str, said: list[str]) -> str:
    """The catalog's dense-peak column for the compute precision (4/8-bit weights: BF16)."""
    column = PEAK_COLUMN.get(precision, "bf16_tflops")
    if precision not in PEAK_COLUMN:
        said.append(f"compute: {precision} weights are dequantised, so matmuls run at BF16 peak")
    if getattr(gpu, column) is None:
        # A precision the GPU lacks (V100: no BF16; before Hopper/Ada: no FP8) runs at the next
        # 16-bit rate it has, and the answer says why; no FP32 figure at all is a refusal.
        have = [c for c in ("bf16_tflops", "fp16_tflops") if getattr(gpu, c) is not None]
        if column == "fp32_tflops" or not have:
            raise ToolError(f"gpu: {gpu.name} has no published {precision.upper()} peak; it "
                            f"has {', '.join(p.upper() for p in gpu.precisions())}")
        compute = precision if precision in PEAK_COLUMN else "bf16"
        why = gpu.lacks(compute) or f"{gpu.name} has no {compute} tensor rate in the catalog"
        column = have[0]
        said.append(f"compute: {why}; {column.split('_')[0].upper()} peak assumed")
    return column


def _group_comm(intra: LinkRow, inter: LinkRow, nics: int, gpn: int,
                pair: LinkRow | None = None, pair_size: int = 1) -> Collective:
    """Collective seconds for one parallel group, memoised for the search.

    A group with k members in a node shares the node's NICs with the node's other groups, so
    it gets k/gpn of them (each GPU keeps its own port on an HGX node); with fewer ports than
    GPUs that share is a fraction of a port (the node's gpn/k groups all talk at once). A
    tensor-parallel group no wider than a bridged group of PCIe cards (an RTX 3090 or A40
    pair) all-reduces over the bridge (nvlink-generations#ga102-bridge).
    """

    @lru_cache(maxsize=65536)
    def seconds(op: str, size: float, ranks: int, per_node: int) -> float:
        if ranks < 2 or size <= 0:
            return 0.0
        link = intra
        if op == TP_ALL_REDUCE:
            op = "all_reduce"
            if pair is not None and ranks == per_node <= pair_size:
                link = pair
        group_nics = nics * per_node / gpn
        return collective_time(op, size, ranks, per_node, link, inter, group_nics).time_s

    return seconds


def cluster_steps(c: Cluster) -> list[Step]:
    """The cluster as the trace shows it: GPUs and nodes, peak, links."""
    return [
        Step(label="cluster", formula="GPUs = nodes x GPUs per node",
             inputs={"gpu": q(c.gpu.id), "nodes": q(c.nodes), "GPUs per node": q(c.gpus_per_node)},
             result=q(c.gpus, "GPUs"), notes=[c.gpu.source_note]),
        Step(label="dense peak per GPU", formula=f"catalog column {c.peak_column}",
             inputs={"gpu": q(c.gpu.id)}, result=q(c.peak_flops / 1e12, "TFLOP/s"),
             notes=[c.gpu.source_note]),
        Step(label="links", formula="TP and in-node traffic on the intra link; PP and "
             "cross-node traffic on the inter link",
             inputs={"intra": q(c.intra.id), "inter": q(c.inter.id),
                     "NICs per node": q(c.nics_per_node)},
             notes=[c.intra.source_note, c.inter.source_note, "multi-node-clusters"]),
    ]


@dataclass(frozen=True)
class JobContext:
    """The memory tool's view of the job: the resolved Job, its assumptions, and a memo."""

    job: Job
    assumed: tuple[str, ...]

    @property
    def shape(self) -> ModelShape:
        return self.job.shape


def resolve_job(inp: ParallelismInput, concurrency: int | None = None) -> JobContext:
    """Resolve the model and its defaults through the memory tool (one validation)."""
    arch = {f: getattr(inp, f) for f in ("params_b", "layers", "hidden", "heads", "kv_heads",
                                          "ffn_hidden", "vocab", "experts",
                                          "experts_per_token", "active_params_b")}
    training = inp.workload != "inference"
    extra = dict(zero_stage=inp.zero_stages[0], micro_batch=1, recompute=inp.recompute[0],
                 fp32_main_grads=inp.fp32_main_grads,
                 sequence_parallel=SEQUENCE_PARALLEL if inp.sequence_parallel is None
                 else inp.sequence_parallel) if training else \
        dict(batch=concurrency, context_len=inp.context_len, kv_precision=inp.kv_precision)
    try:
        mem_in = MemoryInput(model=inp.model, workload=inp.workload, precision=inp.precision,
                             flash_attention=inp.flash_attention,
                             optimizer=inp.optimizer if training else None,
                             seq_len=inp.seq_len if training else None, **arch, **extra)
    except ValidationError as exc:
        raise ToolError(describe(exc)) from None
    job, _, said, _ = prepare(mem_in)
    keep = [s for s in said if not s.startswith(("zero_stage", "micro_batch", "recompute"))]
    if training and inp.sequence_parallel is None:
        keep.append("sequence_parallel: on wherever tp > 1, as Megatron-LM and Llama 3 train "
                    "(no effect at tp = 1); sequence_parallel=false turns it off")
    return JobContext(job, tuple(keep))


@lru_cache(maxsize=65536)
def memory_of(job: Job, tp: int, pp: int, dp: int, ep: int, zero: int, micro_batch: int,
              recompute: str, batch: int = 1, cp: int = 1) -> Breakdown:
    """Bytes per GPU from the memory tool, once per distinct layout. `dp` is the ranks ZeRO
    shards over; `cp` context-parallel ranks each keep the activations of 1/cp of a sequence."""
    if job.training:
        job = _training_variant(job, zero, micro_batch, recompute, cp)
    else:
        job = dataclasses.replace(job, batch=batch)
    return per_gpu(job, MemoryLayout(dp=dp, tp=tp, pp=pp, ep=ep))


@lru_cache(maxsize=1024)
def _training_variant(job: Job, zero: int, micro_batch: int, recompute: str, cp: int = 1) -> Job:
    """The job with the search's ZeRO stage, micro-batch and recompute: a few dozen variants
    serve thousands of layouts. Context parallelism splits each sequence over cp ranks, so a
    rank's activations are those of a sequence cp times shorter (context-parallelism#memory)."""
    return dataclasses.replace(job, zero_stage=zero, micro_batch=micro_batch, recompute=recompute,
                               seq_len=-(-job.seq_len // cp))
