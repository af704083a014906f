"""Tool `parallelism`: the best TP x PP x DP (x EP) layout for a model on a cluster, its step
time, and why every other layout loses; or, for inference, the fewest GPUs per replica.

Contract: `ParallelismInput`, `ParallelismResult`, `run`.
"""

from __future__ import annotations

import dataclasses
import math

from clusterplan.tools.citing import cite
from clusterplan.tools.contract import Step, q
from clusterplan.tools.parallelism.batch import global_batch, search_workable
from clusterplan.tools.parallelism.calibration import (
    calibrate,
    calibration_assumption,
    calibration_step,
    measured,
)
from clusterplan.tools.parallelism.cluster import (
    Cluster,
    JobContext,
    cluster_steps,
    resolve_cluster,
    resolve_job,
    whole_nodes,
)
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.layout_search import NO_FIT
from clusterplan.tools.parallelism.micro_batch import largest_micro_batch, micro_batch_step
from clusterplan.tools.parallelism.result import ParallelismResult, SmallestCluster
from clusterplan.tools.parallelism.serving import (
    serve,
    serving_space,
    serving_steps,
    smallest_serving_cluster,
)
from clusterplan.tools.parallelism.serving_layouts import prefill_flops_per_token
from clusterplan.tools.parallelism.steps import (
    best_by_shape,
    compare_recipe,
    flops_per_token_step,
    memory_step,
    model_step,
    rule_steps,
    training_assumptions,
    winner_steps,
)
from clusterplan.tools.parallelism.training_plans import (
    fits_for,
    run_search,
    smallest_cluster,
    to_plan,
)
from clusterplan.tools.registry import Tool

__all__ = ["ParallelismInput", "ParallelismResult", "run"]


def run(inp: ParallelismInput) -> ParallelismResult:
    """Search the layouts of the cluster and rank them (training), or size replicas (serving)."""
    said: list[str] = []
    ctx = resolve_job(inp, concurrency=inp.concurrency)
    said += ctx.assumed
    cluster = resolve_cluster(inp, ctx.job.precision, said)
    result = ParallelismResult(
        workload=ctx.job.workload, model=ctx.shape.id, gpu=cluster.gpu.id, gpus=cluster.gpus,
        nodes=cluster.nodes, gpus_per_node=cluster.gpus_per_node, fits=False, verdict="",
        steps=[model_step(ctx), *cluster_steps(cluster)], assumptions=said)
    if inp.ignored:
        result.warnings.append(f"ignored for workload {ctx.job.workload}: "
                               + ", ".join(inp.ignored))
    if ctx.job.training:
        _train(inp, cluster, ctx, result)
    else:
        _serve(inp, cluster, ctx, result)
    result.assumptions.append("GB means 1e9 bytes; times in seconds")
    return cite(result)


def _train(inp: ParallelismInput, cluster: Cluster, ctx: JobContext,
           result: ParallelismResult) -> None:
    seq_len = ctx.job.seq_len
    unusable = [c for c in inp.context_parallel or [] if seq_len % c or cluster.gpus % c]
    if unusable:
        result.warnings.append("context_parallel " + ", ".join(map(str, unusable)) + " not "
                               f"tried: it must divide the {seq_len:,}-token sequence and the "
                               f"{cluster.gpus:,} GPUs")
    batch = global_batch(inp, seq_len, result.assumptions, result.warnings, cluster.gpus)
    if inp.efficiency_scale and not measured(inp):  # an earlier calibration's factor, carried
        cluster = dataclasses.replace(cluster, efficiency_scale=inp.efficiency_scale)
        result.assumptions.append(f"calibration: every layout's matmul efficiency x "
                                  f"{inp.efficiency_scale:.3g}, from an earlier measurement")
    found, batch = search_workable(inp, cluster, ctx, batch, seq_len, result.warnings)
    if measured(inp):  # the user's measurement rescales the compute, then the search reruns
        cluster, calibration = calibrate(inp, cluster, ctx, batch, seq_len,
                                         found.ranked[0] if found.ranked else None)
        found = run_search(inp, cluster, ctx, batch, seq_len)
        result.assumptions.append(calibration_assumption(calibration))
        result.steps.append(calibration_step(calibration))
    result.efficiency_scale = cluster.efficiency_scale
    out = found.outcome
    result.global_batch, result.seq_len, result.tokens = batch, seq_len, inp.tokens
    result.active_params_b = ctx.shape.active_params_b
    result.model_flops_per_token, flops_step = flops_per_token_step(
        ctx, seq_len, frozen=inp.workload in ("lora", "qlora"))
    result.steps.append(flops_step)
    result.rejected, result.rejected_examples = out.rejected.counts, out.rejected.examples
    result.evaluated = out.evaluated
    result.steps += rule_steps(out)
    if ctx.job.adapters:
        result.warnings.append("LoRA skips most weight-gradient matmuls; the compute time "
                               "counts 6 FLOPs per parameter and is an upper bound")
    fits = fits_for(cluster, ctx, inp.min_headroom_gb)
    result.recipe, recipe_step = compare_recipe(found, cluster, fits, ctx.job.shape.params_b)
    if not found.ranked:
        _no_plan(inp, cluster, ctx, result, batch)
        result.steps.append(recipe_step)
        return
    steps_needed = math.ceil(inp.tokens / (batch * seq_len)) if inp.tokens else None
    plans = [to_plan(i + 1, found.ranked[i], cluster, steps_needed)
             for i in _shown(found.ranked, inp.top_k)]
    result.plans = list(plans[: inp.top_k])
    result.by_shape = best_by_shape(plans)
    result.fits, best = True, plans[0]
    result.verdict = (f"fits: best layout tp={best.tp} pp={best.pp} dp={best.dp} "
                      f"ep={best.ep}" + (f" cp={best.cp}" if best.cp > 1 else "")
                      + f", ZeRO-{best.zero_stage}"
                      + (f" within groups of {best.shard_group} GPUs (HSDP)" if best.shard_group
                         else "") + f", micro-batch {best.micro_batch}, "
                      f"recompute {best.recompute}"
                      + (f", interleaved v={best.virtual_stages}" if best.virtual_stages > 1
                         else "")
                      + f": {best.step_time_s:.3g} s per step, "
                      f"MFU {best.mfu:.0%}")
    result.steps.append(memory_step(found.ranked[0], ctx))
    top = found.ranked[0].layout
    result.largest_micro_batch = largest_micro_batch(ctx, cluster, top, batch,
                                                     inp.min_headroom_gb)
    result.steps.append(micro_batch_step(top, result.largest_micro_batch, batch))
    result.steps += winner_steps(found.ranked[0], cluster, seq_len,
                                 frozen=inp.workload in ("lora", "qlora"))
    result.steps.append(recipe_step)
    if steps_needed is not None:
        _training_time(result, steps_needed, batch, seq_len)
    result.assumptions += training_assumptions(inp)
    if ctx.shape.layers % best.pp:
        result.warnings.append(f"uneven stages: {ctx.shape.layers} layers over {best.pp} stages; "
                               f"the busiest holds {math.ceil(ctx.shape.layers / best.pp)} and "
                               "sets the pace")
    if best.pp > 1 and best.num_microbatches < best.pp:
        result.warnings.append(f"only {best.num_microbatches} micro-batches for {best.pp} "
                               "pipeline stages: the bubble is large; a bigger global batch helps")


def _shown(ranked: list, top_k: int) -> list[int]:
    """Ranks turned into plans: the top_k and the best of each (tp, pp, ep, cp) shape, in
    rank order; a search accepts thousands of layouts and the rest are never shown."""
    seen: set[tuple[int, int, int, int]] = set()
    keep = []
    for i, a in enumerate(ranked):
        x = a.layout
        shape = (x.tp, x.pp, x.ep, x.cp)
        if i < top_k or shape not in seen:
            keep.append(i)
        seen.add(shape)
    return keep


def _training_time(result: ParallelismResult, steps_needed: int, batch: int,
                   seq_len: int) -> None:
    best = result.plans[0]
    result.training_steps = steps_needed
    result.training_days, result.gpu_hours = best.training_days, best.gpu_hours
    result.steps.append(Step(
        label="training time", formula="ceil(tokens / (global batch x seq_len)) x step time",
        inputs={"tokens": q(result.tokens, "tokens"), "global batch": q(batch, "sequences"),
                "seq_len": q(seq_len), "step time": q(best.step_time_s, "s")},
        result=q(best.training_days, "days"),
        notes=["megatron-lm-2021#training-time-estimate"]))
    result.steps.append(Step(label="GPU-hours", formula="GPUs x training time",
                             inputs={"GPUs": q(result.gpus)}, result=q(best.gpu_hours, "h")))


def _no_plan(inp: ParallelismInput, cluster: Cluster, ctx: JobContext,
             result: ParallelismResult, batch: int) -> None:
    rejected = result.rejected
    if NO_FIT not in rejected:
        result.verdict = ("no layout satisfies the rules: " + "; ".join(
            f"{reason} ({n})" for reason, n in rejected.items()))
        return
    smallest = smallest_cluster(inp, whole_nodes(cluster), ctx, batch)
    result.smallest_cluster = smallest
    result.verdict = _does_not_fit(ctx, cluster, smallest)
    result.steps.append(_smallest_step(smallest))


def _does_not_fit(ctx: JobContext, cluster: Cluster, smallest: SmallestCluster | None) -> str:
    head = (f"does not fit: no layout of {ctx.shape.name} fits on {cluster.gpus} x "
            f"{cluster.gpu.id} ({cluster.gpu.memory_gb:.3g} GB each)")
    if smallest is None:
        return head + "; no cluster of this GPU up to a million GPUs holds it"
    return (head + f"; the smallest cluster that would is {smallest.gpus} GPUs "
            f"({smallest.nodes} nodes of {smallest.gpus // smallest.nodes}) with "
            + ", ".join(f"{k}={v}" for k, v in smallest.layout.items()))


def _smallest_step(smallest: SmallestCluster | None) -> Step:
    return Step(label="smallest cluster that fits", formula="double the nodes until a layout "
                "fits every rule (least-memory ZeRO, recompute and micro-batch), then bisect",
                result=q(smallest.gpus if smallest else None, "GPUs"),
                notes=["memory-sizing", "zero-paper"])


def _serve(inp: ParallelismInput, cluster: Cluster, ctx: JobContext,
           result: ParallelismResult) -> None:
    plans, rejected = serve(inp, cluster, ctx)
    result.plans = list(plans)
    result.prefill_flops_per_token = prefill_flops_per_token(serving_space(inp, cluster, ctx))
    result.rejected, result.rejected_examples = rejected.counts, rejected.examples
    result.evaluated = len(plans) + rejected.total
    result.steps += serving_steps(cluster, ctx, plans[0] if plans else None)
    result.assumptions.append("concurrency counts the sequences one replica serves at once; "
                              "decode reads the full context's KV cache every step")
    result.assumptions.append("decode reads every weight of its GPU each step (for a mixture of "
                              "experts, the experts its sequences were routed to, routing spread "
                              "evenly); pipeline stages do not overlap one sequence's tokens")
    if not plans:
        smallest = smallest_serving_cluster(inp, whole_nodes(cluster), ctx)
        result.smallest_cluster = smallest
        result.verdict = _does_not_fit(ctx, cluster, smallest)
        result.steps.append(_smallest_step(smallest))
        return
    best = plans[0]
    result.fits = True
    result.verdict = (f"fits: {best.gpus_per_replica} GPU(s) per replica (tp={best.tp}, "
                      f"pp={best.pp}), {best.replicas} replica(s), "
                      f"{best.decode_tokens_per_s:,.0f} output tokens/s in all")
    if inp.target_tokens_per_s:
        replicas = math.ceil(inp.target_tokens_per_s / best.decode_tokens_per_s_per_replica)
        result.gpus_needed_for_target = replicas * best.gpus_per_replica
        if result.gpus_needed_for_target > cluster.gpus:
            result.warnings.append(f"{inp.target_tokens_per_s:,.0f} tokens/s needs {replicas} "
                                   f"replicas = {result.gpus_needed_for_target} GPUs; the "
                                   f"cluster has {cluster.gpus}")


TOOL = Tool(
    name="parallelism",
    description="Search TP x PP x DP (x EP), ZeRO stage, micro-batch and recompute for a model "
    "on a cluster: memory fit, step time, MFU, bubble, ranked plans, the reason each rejected "
    "layout fails, training days and GPU-hours for a token budget; or the fewest GPUs per "
    "serving replica with decode and prefill speed.",
    input_model=ParallelismInput,
    output_model=ParallelismResult,
    run=run,
)
