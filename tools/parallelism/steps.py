"""The trace of a training search: the rules applied, the formulas of the winner, the recipe."""

from __future__ import annotations

from typing import Any

from clusterplan.tools.contract import Step, q
from clusterplan.tools.memory.model_shape import MOE_SHAPE_NOTE, SHAPE_NOTE
from clusterplan.tools.parallelism import layout_search as rules
from clusterplan.tools.parallelism.cluster import Cluster, JobContext, memory_of
from clusterplan.tools.parallelism.input import ParallelismInput
from clusterplan.tools.parallelism.layout_search import (
    Accepted,
    Fits,
    Layout,
    SearchOutcome,
    SearchSpace,
)
from clusterplan.tools.parallelism.matmul_efficiency import is_measured
from clusterplan.tools.parallelism.result import RecipeComparison, TrainingPlan
from clusterplan.tools.parallelism.step_time import model_flops_per_token
from clusterplan.tools.parallelism.training_plans import MOST_FRUGAL, TrainingSearch

TP_RULE_NOTES = ["parallelism-strategies#tp-inside-node", "megatron-lm-2021#tp-within-node",
                 "nvlink-vs-infiniband#node-boundary"]
RULE_NOTES = {
    rules.TP_CROSSES_NODE: TP_RULE_NOTES,
    rules.TP_NOT_GPUS: ["megatron-lm-2021"],
    rules.TP_STRADDLES: TP_RULE_NOTES,
    rules.TP_NOT_HEADS: ["megatron-lm-2021"],
    rules.TP_NOT_KV_HEADS: ["megatron-lm-2021"],
    rules.PP_NOT_LAYERS: ["megatron-lm-2021"],
    rules.PP_NOT_GPUS: ["megatron-lm-2021"],
    rules.PP_TOO_DEEP: ["megatron-lm-2021"],
    rules.EP_NOT_DP: ["megatron-lm-2021"],
    rules.BATCH_SPLIT: ["megatron-lm-2021#bubble-1f1b"],
    rules.NO_FIT: ["memory-sizing", "zero-paper"],
}


def model_step(ctx: JobContext) -> Step:
    s = ctx.shape
    return Step(label="model", formula="from the catalog, or params_b with a stated shape",
                inputs={"params": q(s.params_b, "billion params"),
                        "active": q(s.active_params_b, "billion params"),
                        "layers": q(s.layers), "hidden": q(s.hidden), "heads": q(s.heads),
                        "kv_heads": q(s.kv_heads), "experts": q(s.experts)},
                result=q(s.id), notes=[s.source_note] if s.source_note else
                [SHAPE_NOTE, MOE_SHAPE_NOTE] if "experts" in s.assumed else
                [SHAPE_NOTE] if s.assumed else [])


def flops_per_token_step(ctx: JobContext, seq_len: int, frozen: bool) -> tuple[float, Step]:
    """The model FLOPs one trained token costs, whatever the layout: what sets the GPU-hours
    of a token budget, so two models compare by it before any cluster is chosen."""
    s = ctx.shape
    active, attn_dim = s.active_params_b * 1e9, s.heads * s.head_dim
    flops = model_flops_per_token(active, s.layers, seq_len, attn_dim, frozen)
    per_param = "4·N (frozen weights: no weight gradients)" if frozen else "6·N"
    return flops, Step(
        label="model FLOPs per trained token", formula=f"{per_param} + 12·l·s·d_attn "
        "(N: parameters a token passes through, the active ones of an MoE)",
        inputs={"N": q(s.active_params_b, "billion params"), "l": q(s.layers),
                "s": q(seq_len), "d_attn": q(attn_dim)},
        result=q(flops, "FLOP"),
        notes=["megatron-lm-2021#flops-derivation", "mfu-calibration#model-flops-per-token"]
        + (["qlora-paper#lora-compute"] if frozen else []))


def rule_steps(outcome: SearchOutcome) -> list[Step]:
    """One step per hard rule that rejected something, the TP rule always shown."""
    counts = outcome.rejected.counts
    steps = [Step(label="rule: tensor parallelism stays inside a node",
                  formula="tp <= GPUs per node (TP all-reduces twice per layer each pass)",
                  inputs={}, result=q(counts.get(rules.TP_CROSSES_NODE, 0), "layouts rejected"),
                  notes=TP_RULE_NOTES)]
    for reason, count in counts.items():
        if reason == rules.TP_CROSSES_NODE:
            continue
        example = outcome.rejected.examples[reason]
        steps.append(Step(label=f"rule: {reason}", formula="rejected, e.g. " + _brief(example),
                          result=q(count, "layouts rejected"), notes=RULE_NOTES.get(reason, [])))
    steps.append(Step(label="layouts searched", formula="accepted + rejected",
                      inputs={"accepted": q(len(outcome.accepted)),
                              "rejected": q(outcome.rejected.total)},
                      result=q(outcome.evaluated, "layouts")))
    return steps


def _brief(example: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in example.items())


def memory_step(best: Accepted, ctx: JobContext) -> Step:
    """The memory tool's bytes on the busiest GPU of the best plan."""
    x = best.layout
    parts = memory_of(ctx.job, x.tp, x.pp, x.zero_ranks, x.ep, x.zero_stage, x.micro_batch,
                      x.recompute, cp=x.cp)
    return Step(label="memory of the best plan (memory tool)", formula="weights + gradients + "
                "optimizer (ZeRO-sharded over dp) + activations of the micro-batches in flight "
                "+ overhead, on the busiest GPU",
                inputs={k: q(round(v / 1e9, 3), "GB") for k, v in parts._asdict().items()},
                result=q(round(best.per_gpu_gb, 3), "GB"),
                notes=["zero-paper#k-12", "activation-memory", "memory-sizing"])


def winner_steps(best: Accepted, cluster: Cluster, seq_len: int,
                 frozen: bool = False) -> list[Step]:
    """The best plan's step time, part by part, each with its formula and notes (`frozen`:
    LoRA or QLoRA, whose frozen weights take no weight gradients)."""
    x, t = best.layout, best.score
    per_param = "4·N (frozen weights: no weight gradients)" if frozen else "6·N"
    layout = {"tp": q(x.tp), "pp": q(x.pp), "dp": q(x.dp), "micro_batch": q(x.micro_batch),
              "micro-batches": q(x.num_microbatches), "recompute": q(x.recompute)}
    return [
        Step(label="compute", formula=f"FLOPs per token ({per_param} + 12·l·s·d, + recompute's "
             "forward) x "
             "tokens / (GPUs x peak x efficiency)" + ("" if cluster.efficiency_given else
                                                      "; efficiency from the GEMM shapes"),
             inputs={**layout, "seq_len": q(seq_len), "efficiency": q(round(t.efficiency, 4))},
             result=q(t.compute_s, "s"),
             notes=["megatron-lm-2021#flops-derivation", "mfu-calibration#model-flops-per-token",
                    "mfu-calibration#efficiency-assumption" if cluster.efficiency_given
                    else "mfu-calibration#efficiency-curve"]
             + (["mfu-calibration#hopper-scale"] if cluster.gpu_scale != 1.0
                and not cluster.efficiency_given else [])
             + ([] if is_measured(cluster.gpu.id) or cluster.efficiency_given
                else ["mfu-calibration#unmeasured-gpus"])
             + (["activation-memory"] if x.recompute == "selective" else [])
             + (["qlora-paper#lora-compute"] if frozen else [])),
        Step(label="tensor-parallel all-reduces", formula="layers per stage x micro-batches x "
             "(4, or 6 with full recompute) x all-reduce(b·s·h·2 B) on the intra link",
             inputs={"tp": q(x.tp), "link": q(cluster.intra.id)}, result=q(t.tp_s, "s"),
             notes=["megatron-lm-2021#tp-allreduces", cluster.intra.source_note]),
        Step(label="pipeline sends", formula="2 x micro-batches x send(b·s·h·2 B / tp), on the "
             "inter-node link once the cluster spans nodes",
             inputs={"pp": q(x.pp), "link": q(cluster.inter.id if cluster.nodes > 1
                                            else cluster.intra.id)},
             result=q(t.pp_s, "s"),
             notes=["megatron-lm-2021#pp-scatter-gather", cluster.inter.source_note]),
        Step(label="data-parallel gradients (exposed)", formula="hierarchical all-reduce of the "
             "stage's gradients, less the last micro-batch's backward it overlaps; ZeRO-3 adds "
             "per-layer parameter gathers (forward and backward) and gradient reduce-scatters, "
             "each less that layer's compute; HSDP keeps those inside a node and all-reduces "
             "each rank's gradient slice across the nodes once a step",
             inputs={"dp": q(x.dp), "zero_stage": q(x.zero_stage),
                     "shard_group": q(x.shard_group or x.zero_ranks)},
             result=q(t.dp_s, "s"),
             notes=["parallelism-strategies#dp-scales-across-nodes", "zero-paper"]
             + (["zero3-at-scale#planner-model"] if x.zero_stage == 3 else [])
             + (["zero3-at-scale#fsdp-hybrid"] if x.shard_group else [])),
        *_context_parallel_step(x, t, cluster),
        Step(label="pipeline bubble", formula="(p - 1) / (v x m) x (compute + TP communication); "
             "v model chunks per GPU, the interleaved 1F1B schedule (v = 1: plain 1F1B)",
             inputs={"p": q(x.pp), "m": q(x.num_microbatches), "v": q(t.virtual_stages)},
             result=q(t.bubble_s, "s"),
             notes=["megatron-lm-2021#bubble-1f1b", "megatron-lm-2021#interleaved-bubble"]),
        Step(label="optimizer update", formula="parameters this GPU updates (its tp·pp share, "
             "1/dp of it under ZeRO) x HBM bytes per parameter (AdamW: 30) / memory bandwidth",
             inputs={"memory_bandwidth": q(cluster.gpu.memory_bandwidth_tb_s, "TB/s"),
                     "zero_stage": q(x.zero_stage)}, result=q(t.update_s, "s"),
             notes=["optimizer-states#update-traffic"]),
        Step(label="step time", formula="compute + TP + PP + EP + exposed DP + bubble + update",
             result=q(t.step_s, "s")),
        Step(label="MFU", formula="model FLOPs per step / (step time x GPUs x dense peak)",
             result=q(round(t.mfu, 4)), notes=["mfu-calibration#mfu-definition"]),
    ]


def _context_parallel_step(x: Layout, t: Any, cluster: Cluster) -> list[Step]:
    """The ring-attention exchange, when the best plan splits its sequences."""
    if x.cp == 1:
        return []
    return [Step(label="context-parallel KV exchange (exposed)", formula="layers x micro-batches "
                 "x ((cp - 1) sends of the K, V chunk forward, twice that backward), less the "
                 "attention core each overlaps", inputs={"cp": q(x.cp)}, result=q(t.cp_s, "s"),
                 notes=["context-parallelism#ring-attention", cluster.inter.source_note])]


def compare_recipe(found: TrainingSearch, cluster: Cluster, fits: Fits,
                   params_b: float) -> tuple[RecipeComparison, Step]:
    """The standard layout (TP fills the node, PP spans the nodes) against the winner."""
    tp, pp = cluster.gpus_per_node, cluster.nodes
    dp = max(1, cluster.gpus // (tp * pp))
    ranked = found.ranked
    index = next((i for i, a in enumerate(ranked) if a.layout.tp == tp and a.layout.pp == pp),
                 None)
    if index is not None:
        mine, best = ranked[index].score.step_s, ranked[0].score.step_s
        shapes = list(dict.fromkeys((a.layout.tp, a.layout.pp, a.layout.ep) for a in ranked))
        shape_rank = shapes.index((tp, pp, ranked[index].layout.ep)) + 1
        comparison = RecipeComparison(tp=tp, pp=pp, dp=dp, found=True, rank=index + 1,
                                      shape_rank=shape_rank, step_time_s=mine,
                                      slower_than_best=mine / best)
        said = (f"rank {index + 1} (shape {shape_rank} of {len(shapes)}), "
                f"{mine / best:.2f}x the best step time")
    else:
        why = (rules.tp_rule(found.space, tp) or rules.pp_rule(found.space, tp, pp)
               or _why_variants_fail(found.space, tp, pp, dp, fits))
        comparison = RecipeComparison(tp=tp, pp=pp, dp=dp, found=False, rejected_because=why)
        said = f"not a valid plan: {why}"
    step = Step(label="compare with the standard recipe", formula="TP = GPUs per node inside "
                "each node, PP = nodes across them", inputs={"tp": q(tp), "pp": q(pp)},
                result=q(said), notes=recipe_notes(cluster, params_b))
    return comparison, step


def recipe_notes(cluster: Cluster, params_b: float) -> list[str]:
    """The source's 70B-on-16-GPUs recipe is cited only where it speaks of this very case."""
    general = ["parallelism-strategies#tp-inside-node",
               "parallelism-strategies#pp-standard-multi-node", "megatron-lm-2021#tp-within-node"]
    same_case = cluster.gpus == 16 and cluster.nodes == 2 and 60 <= params_b <= 80
    return ["parallelism-strategies#recipe-70b-16-gpus", *general] if same_case else general


def _why_variants_fail(space: SearchSpace, tp: int, pp: int, dp: int, fits: Fits) -> str:
    """Batch rule or memory: the recipe's least memory-hungry variant, and what it needs."""
    splits = [mb for mb in space.micro_batches if space.global_batch % (dp * mb) == 0]
    if not splits:
        return rules.BATCH_SPLIT
    recompute = next(r for r in MOST_FRUGAL if r in space.recompute)
    mb = splits[0]
    frugal = Layout(tp, pp, dp, 1, max(space.zero_stages), mb, space.global_batch // (dp * mb),
                    recompute)
    _, _, detail = fits(frugal)
    return (f"{rules.NO_FIT}: {detail} even with ZeRO-{frugal.zero_stage}, {recompute} "
            f"recompute and micro-batch {mb}")


def training_assumptions(inp: ParallelismInput) -> list[str]:
    """What the step-time model takes for granted, in words."""
    said = ["pipeline: the interleaved 1F1B schedule with the number of model chunks per GPU "
            "(v, dividing the stage's layers) that gives the shortest step; bubble (p - 1)/(v·m) "
            "of the ideal time, v times the pipeline sends (Narayanan et al. 2021)",
            "TP all-reduces and pipeline sends are not overlapped with compute",
            "activations travel in 16-bit; pipeline sends split over the TP ranks",
            "data-parallel collectives are hierarchical (NVLink inside nodes, network between)",
            "ZeRO-3 is weighed sharded over every data-parallel rank and, as HSDP, within a "
            "node with replicas across nodes (hybrid_sharding=false leaves HSDP out)",
            "context parallelism (ring attention) is weighed for sequences of 16,384 tokens and "
            "more, each rank keeping at least 8,192 of them"]
    said.append("DP gradient reduction overlaps the last micro-batch's backward; ZeRO-3 "
                "prefetches each layer's gather under the previous layer's compute, only what "
                "exceeds it is exposed" if inp.dp_overlap else
                "DP communication is not overlapped (dp_overlap off)")
    if inp.objective == "cost":
        said.append("objective cost: on a fixed cluster GPU-hours are proportional to step "
                    "time, so cost ranks as time; prices come from the pricing tool")
    return said


def best_by_shape(plans: list[TrainingPlan]) -> list[dict[str, Any]]:
    """The best plan of each (tp, pp, ep, cp) shape, in rank order."""
    seen: dict[tuple[int, int, int, int], dict[str, Any]] = {}
    for p in plans:
        key = (p.tp, p.pp, p.ep, p.cp)
        if key not in seen:
            seen[key] = {"tp": p.tp, "pp": p.pp, "dp": p.dp, "ep": p.ep, "cp": p.cp,
                         "rank": p.rank,
                         "step_time_s": p.step_time_s, "mfu": p.mfu, "per_gpu_gb": p.per_gpu_gb}
    return list(seen.values())
