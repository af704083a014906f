"""Cluster questions: the parallel layout, training time and cost, serving, a whole plan."""

from __future__ import annotations

import math
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, pct, plural, table, usd, usd_rate
from clusterplan.assistant.parsing import calibration
from clusterplan.assistant.parsing.jobs import (
    WORKLOAD_WORDS,
    cap,
    gpu_name,
    memory_payload,
    model_name,
    subject,
)
from clusterplan.assistant.parsing.needs import TOKENS_PER_PARAM
from clusterplan.assistant.parsing.published_tokens import PUBLISHED_GPU_HOURS, PUBLISHED_TOKENS
from clusterplan.assistant.routing.dispatch import Calls, Reply, model_fields, slot
from clusterplan.assistant.routing.layout_rule import has_model, over_pcie, rule_of_thumb
from clusterplan.assistant.routing.memory import fit
from clusterplan.assistant.routing.progress import extrapolate
from clusterplan.db.active import catalog
from clusterplan.figures import days
from clusterplan.tools.contract import Step, ToolError, q
from clusterplan.tools.parallelism.cluster import PEAK_COLUMN

MAX_PLANS = 5


def parallel_payload(intent: Intent, gpus: int | None = None) -> dict[str, Any]:
    """The parallelism tool's input from the intent's slots and assumed defaults."""
    workload = slot(intent, "workload", "pretrain")
    payload: dict[str, Any] = {**model_fields(intent), "workload": workload,
                               "gpu": slot(intent, "gpu"), "precision": slot(intent, "precision")}
    if gpus is not None:
        payload["gpus"] = gpus
    elif "nodes" in intent.slots and "gpus" not in intent.slots:
        payload.update(nodes=intent.slots["nodes"], gpus_per_node=slot(intent, "gpus_per_node"))
    else:
        payload["gpus"] = slot(intent, "gpus")
        if "nodes" in intent.slots:
            # 14 GPUs on 4 nodes: nodes of up to 4, so that 4 nodes hold them (-(-a // b) is
            # the ceiling)
            payload["gpus_per_node"] = -(-slot(intent, "gpus") // intent.slots["nodes"])
    if workload == "inference":
        payload.update(context_len=slot(intent, "context_len"), concurrency=slot(intent, "batch"))
    else:
        payload.update(seq_len=slot(intent, "seq_len"), optimizer=slot(intent, "optimizer"),
                       tokens=slot(intent, "tokens"))
        for given in ("global_batch", "global_batch_tokens"):
            if given in intent.slots:
                payload[given] = intent.slots[given]
        if "micro_batch" in intent.slots:
            payload["micro_batches"] = [intent.slots["micro_batch"]]
        if "zero_stage" in intent.slots:
            payload["zero_stages"] = [intent.slots["zero_stage"]]
        if intent.slots.get("fp32_main_grads"):
            payload["fp32_main_grads"] = True
        if "recompute" in intent.slots:
            payload["recompute"] = [intent.slots["recompute"]]
        payload |= calibration.payload_fields(intent, payload["gpu"])
    if network := named_network(intent):  # "over 100 Gbps Ethernet": the fabric between nodes
        payload["inter_link"] = network
        if network.startswith("eth-") and "nics_per_node" not in intent.slots:
            # an Ethernet node is a server's own port, not an HGX rail of one NIC per GPU
            payload["nics_per_node"] = 1
            intent.assumed["nics_per_node"] = 1
    if "nics_per_node" in intent.slots:
        payload["nics_per_node"] = intent.slots["nics_per_node"]
    return payload


def named_network(intent: Intent) -> str | None:
    """The link between nodes the question names (InfiniBand, RoCE, Ethernet), if any."""
    rows = catalog().links.rows
    return next((k for k in intent.slots.get("links", [])
                 if k in rows and rows[k].scope == "inter_node"), None)


def layout(intent: Intent, calls: Calls) -> Reply:
    """The best TP × PP × DP layout and why the others lose (with no model named: the split
    the cluster's links dictate)."""
    if not has_model(intent):
        return rule_of_thumb(intent, calls)
    if "gpu" not in intent.slots and "gpu_memory_gb" in intent.slots:
        return _memory_only(intent, calls)
    result = calls.run("parallelism", parallel_payload(intent), "search the layouts")
    reply = Reply(headline=" ".join([layout_sentence(result), *_tp_compared(intent, result),
                                     *_split_wider(intent, calls, result)])
                  if result["plans"] and result["workload"] == "inference"
                  else layout_sentence(result), tables=plan_tables(result))
    # TP asked for (or chosen) wider than the cards' NVLink: say it runs over PCIe
    plans = result.get("plans") or []
    tp = int(slot(intent, "tp") or (plans[0]["tp"] if plans else 1))
    wide = over_pcie(result.get("gpu"), tp, calls)
    if wide is not None:
        reply.headline = f"{wide.said} {reply.headline}"
        reply.steps += wide.steps
    network = named_network(intent)
    if network and plans and result.get("nodes", 1) > 1:
        best = plans[0]
        share = float(best["comm_s"]) / float(best["step_time_s"])
        reply.headline += (f" Over {catalog().links.rows[network].name} between the nodes, the "
                           f"step's exposed communication is **{num(best['comm_s'])} s** of "
                           f"{num(best['step_time_s'])} s (**{pct(share)}**).")
    return reply


def _memory_only(intent: Intent, calls: Calls) -> Reply:
    """A GPU outside the catalog, known by its memory alone: the search has no links or FLOP/s
    to time layouts with, so the answer is the memory per GPU at the layout asked (or the
    least a layout allows), said as such."""
    reply = fit(intent, calls)
    said = (f"'{intent.slots['unknown_gpu']}' is not in the catalog"
            if "unknown_gpu" in intent.slots else "the GPUs are known only by their memory")
    reply.headline = (f"The layout search times layouts with a catalog GPU's links and FLOP/s, "
                      f"and {said}, so this is the memory check alone. " + reply.headline)
    return reply


def layout_sentence(result: dict[str, Any]) -> str:
    where = f"{result['gpus']}× {gpu_name(result['gpu'])} ({result['nodes']} node" \
            f"{'s' if result['nodes'] != 1 else ''})"
    if not result["plans"]:
        small = result.get("smallest_cluster")
        if not small:
            return f"No layout fits on {where}: {result['verdict']}."
        return (f"No layout fits on {where}. The smallest cluster that holds it: "
                f"**{small['gpus']} GPUs** ({plural(small['nodes'], 'node')}), where "
                f"{_split(small['layout'])} holds {num(small['per_gpu_gb'])} GB per GPU (the "
                f"fastest layout there may differ).")
    best = result["plans"][0]
    if result["workload"] == "inference":
        return (f"Serve with **TP {best['tp']} × PP {best['pp']}** per replica, "
                f"{plural(best['replicas'], 'replica')} on {where}: about "
                f"**{num(best['decode_tokens_per_s'])} output tokens/s** in all, "
                f"{num(best['time_per_output_token_ms'])} ms per token per sequence, room for "
                f"{num(best['kv_capacity_tokens'])} tokens of KV cache per replica.")
    chunks = best.get("virtual_stages", 1)
    schedule = f", interleaved pipeline of {chunks} chunks per GPU" if chunks > 1 else ""
    largest = result.get("largest_micro_batch")
    room = (f"; micro-batches up to {largest} fit at this layout"
            if largest and largest > best["micro_batch"] else "")
    cp = best.get("cp", 1)
    shape = f"TP {best['tp']} × " + (f"CP {cp} × " if cp > 1 else "") + \
        f"PP {best['pp']} × DP {best['dp']}"
    group = best.get("shard_group")
    zero = f"ZeRO-{best['zero_stage']}" + (f" sharded within {group} GPUs, replicated across "
                                           "nodes (HSDP)" if group else "")
    return (f"Best layout on {where}: **{shape}**"
            f" ({zero}, micro-batch {best['micro_batch']}, recompute "
            f"{best['recompute']}{schedule}): step {num(best['step_time_s'])} s, MFU "
            f"{pct(best['mfu'])}, {num(best['per_gpu_gb'])} GB per GPU{room}.")


def _split(lay: dict[str, Any]) -> str:
    """A layout in words; a serving layout has no data-parallel degree, ZeRO or recompute."""
    if "dp" not in lay:
        uneven = f" ({lay['uneven_stages']})" if lay.get("uneven_stages") else ""
        return f"TP {lay['tp']} × PP {lay['pp']} per replica{uneven}"
    return (f"TP {lay['tp']} × PP {lay['pp']} × DP {lay['dp']}, ZeRO-{lay['zero_stage']}, "
            f"recompute {lay['recompute']}")


def plan_tables(result: dict[str, Any]) -> list[str]:
    tables = []
    plans = result.get("plans", [])[:MAX_PLANS]
    if plans and result["workload"] == "inference":
        tables.append(table(["rank", "tp", "pp", "replicas", "GB/GPU", "KV tokens/replica",
                             "output tokens/s", "ms/token"],
                            [[p["rank"], p["tp"], p["pp"], p["replicas"], p["per_gpu_gb"],
                              p["kv_capacity_tokens"], p["decode_tokens_per_s"],
                              p["time_per_output_token_ms"]] for p in plans]))
    elif plans:
        tables.append(table(["rank", "tp", "pp", "dp", "ZeRO", "micro-batch", "recompute",
                             "GB/GPU", "step (s)", "MFU", "tokens/s"],
                            [[p["rank"], p["tp"], p["pp"], p["dp"], p["zero_stage"],
                              p["micro_batch"], p["recompute"], p["per_gpu_gb"],
                              p["step_time_s"], pct(p["mfu"]), p["tokens_per_s"]]
                             for p in plans]))
    rejected = result.get("rejected") or {}
    if rejected:
        tables.append(table(["rejected because", "layouts"],
                            [[reason, n] for reason, n in rejected.items()]))
    recipe = result.get("recipe")
    if recipe:
        tables.append(table(["recipe", "found", "rank", "step (s)", "× best", "rejected because"],
                            [[f"tp {recipe['tp']} pp {recipe['pp']} dp {recipe['dp']}",
                              recipe["found"], recipe.get("rank"), recipe.get("step_time_s"),
                              recipe.get("slower_than_best"), recipe.get("rejected_because")]]))
    return tables


def training(intent: Intent, calls: Calls) -> Reply:
    """Days and GPU-hours for a token budget, then what the GPU-hours cost; with no model
    named, the run's own reported pace ("30mins for 0.01 epochs") is the whole answer."""
    pace = extrapolate(intent)
    if pace and not (slot(intent, "model") or intent.slots.get("params_b")):
        return Reply(headline=pace.headline)
    result = calls.run("parallelism", parallel_payload(intent), "layouts and training time")
    if not result["plans"] or not result.get("gpu_hours"):
        said = " ".join([layout_sentence(result), *_instead(intent, calls, result)])
        if pace:  # the run's measured pace leads; the model's reading of the GPUs follows
            said = f"{pace.headline} Set beside that, the estimate: {said}"
        return Reply(headline=said, tables=plan_tables(result))
    tokens = result["tokens"]
    said = tokens_said(tokens)
    if "published" in str(intent.assumed.get("tokens_counted_as", "")):
        said += f" tokens ({catalog().models.rows[intent.slots['model']].name}'s published " \
            "pretraining count)"
    else:
        said += " tokens"
    job = WORKLOAD_WORDS.get(result["workload"], "training")
    trained = model_name({"params_b": slot(intent, "params_b") or result["active_params_b"],
                          **result})
    lead = (f"{cap(job)} {trained} on {said} on {result['gpus']}× "
            f"{gpu_name(result['gpu'])} takes about **{days(result['training_days'])}** "
            f"({num(result['gpu_hours'])} GPU-hours) with the best layout.")
    price = price_run(intent, calls, result)
    cheapest = price.get("cheapest")
    if cheapest and price.get("run_usd"):
        lead += (f" At {cheapest['provider']}'s {usd_rate(cheapest['effective_usd_per_gpu_hour'])} "
                 f"per GPU-hour it costs about **{usd(price['run_usd'])}**.")
    elif slot(intent, "provider"):  # "and the cost on lambda?": say there is none, not nothing
        kind = str(slot(intent, "kind", "on_demand")).replace("_", "-")
        lead += (f" {cap(str(slot(intent, 'provider')))} has no {kind} offer for "
                 f"{gpu_name(result['gpu'])} on record, so the run is not priced there.")
    steps = []
    published = _published_run(intent, result)
    if published:
        lead += " " + published[0]
        steps.append(published[1])
    deadline = _against_deadline(intent, result)
    if deadline:
        lead += " " + deadline[0]
        steps.append(deadline[1])
    if pace:  # the run's measured pace leads; the model's estimate is set beside it
        lead = f"{pace.headline} Set beside that, the estimate: {lead}"
    return Reply(headline=lead + " " + layout_sentence(result), tables=plan_tables(result),
                 steps=steps)


def _against_deadline(intent: Intent, result: dict[str, Any]) -> tuple[str, Step] | None:
    """The run's days set against the time the question gives it ("within 1 month?")."""
    hours = intent.slots.get("hours")
    if not hours or not result.get("training_days"):
        return None
    if intent.slots.get("hours_elapsed"):
        return _against_reported(float(hours), result, "tokens" not in intent.slots)
    allowed, needed = float(hours) / 24, float(result["training_days"])
    if needed <= allowed:
        said = (f"That is **within the {num(allowed)} days** asked ({pct(needed / allowed)} of "
                "them)." + _largest_in_time(intent, result, allowed / needed))
    else:
        said = (f"That is **{num(needed / allowed)}× the {num(allowed)} days** asked: about "
                f"{num(math.ceil(result['gpus'] * needed / allowed))} GPUs at the same MFU would "
                "finish in time, or fewer tokens.")
    step = Step(label="the run against the time asked", formula="days needed ÷ days asked",
                inputs={"days needed": q(needed, "days"), "days asked": q(allowed, "days")},
                result=q(needed / allowed))
    return said, step


def _largest_in_time(intent: Intent, result: dict[str, Any], spare: float) -> str:
    """With the tokens assumed at 20 a parameter, compute grows with the parameters squared
    (6·N·20N), so a model sqrt(spare) times larger fits the same days at the same MFU."""
    if "tokens" in intent.slots or slot(intent, "workload", "pretrain") != "pretrain":
        return ""
    params = float(result.get("active_params_b") or result.get("params_b") or 0)
    tokens = float(result.get("tokens") or 0)
    if params <= 0 or tokens <= 0 or abs(tokens / (params * 1e9) - TOKENS_PER_PARAM) > 1:
        return ""
    largest = params * math.sqrt(spare)
    its_tokens = tokens_said(TOKENS_PER_PARAM * largest * 1e9)
    return (f" At {TOKENS_PER_PARAM} tokens a parameter the compute grows with the parameters "
            f"squared, so about a **{num(largest)}B** model ({its_tokens} tokens) would fill the "
            "whole time at the same MFU.")


def _against_reported(hours: float, result: dict[str, Any], tokens_assumed: bool = False
                      ) -> tuple[str, Step]:
    """The time the asker reports the run takes ("预计耗时400小时") against the estimate: how
    many times longer, and the MFU that time means for the same work. When the data size was
    not given, the tokens the reported time covers at this layout's pace are the figure to
    hold against one's own data set."""
    needed_h = float(result["training_days"]) * 24
    mfu = float(result["plans"][0]["mfu"])
    implied = mfu * needed_h / hours
    if tokens_assumed:
        covered = float(result["plans"][0]["tokens_per_s"]) * hours * 3600
        said = (f"At this layout's pace ({num(result['plans'][0]['tokens_per_s'])} tokens/s) "
                f"the **{num(hours)} h** you report covers about **{tokens_said(covered)} "
                "tokens** (examples × tokens each × epochs): if your data is much less, the run "
                f"is slower than it should be, below this layout's {pct(mfu)} MFU.")
    else:
        said = (f"The **{num(hours)} h** you report is **{num(hours / needed_h)}×** this "
                f"estimate's {num(needed_h)} h: the same work in that time means an MFU of "
                f"about **{pct(implied)}**, where this layout reaches {pct(mfu)}.")
    step = Step(label="the reported time against the estimate",
                formula="MFU of the layout × hours estimated ÷ hours reported",
                inputs={"hours reported": q(hours, "h"), "hours estimated": q(needed_h, "h"),
                        "layout MFU": q(round(100 * mfu, 2), "%")},
                result=q(round(100 * implied, 2), "%"), notes=["mfu-calibration#mfu-definition"])
    return said, step


def _published_run(intent: Intent, result: dict[str, Any]) -> tuple[str, Step] | None:
    """The published run's own GPU-hours beside an estimate of that run (its model and its
    published tokens): a real run counts every hour its GPUs were held, the estimate only the
    uninterrupted steps of the found layout, so the ratio says how far apart the two are."""
    model = slot(intent, "model")
    published = PUBLISHED_GPU_HOURS.get(model or "")
    own_tokens = PUBLISHED_TOKENS.get(model or "", (None, ""))[0]
    if published is None or result.get("tokens") != own_tokens or not result.get("gpu_hours"):
        return None
    hours, gpu, claim = published
    said = f"The published run took {num(hours)} {gpu_name(gpu)} GPU-hours"
    if gpu == result["gpu"]:
        said += (f", {num(hours / result['gpu_hours'])}× this estimate, which counts only "
                 "uninterrupted training steps at the layout found.")
    else:
        said += "; it ran on another GPU, so the two are not compared."
    step = Step(label="the published run's GPU-hours", formula="published GPU-hours ÷ estimate",
                inputs={"published": q(hours, "GPU-hours"),
                        "estimate": q(result["gpu_hours"], "GPU-hours")},
                result=q(hours / result["gpu_hours"]), notes=[claim])
    return said, step


def tokens_said(tokens: float) -> str:
    """15T, 20.0B, 550M: the unit a person would write."""
    if tokens >= 1e12:
        return f"{num(tokens / 1e12)}T"
    return f"{num(tokens / 1e9)}B" if tokens >= 1e9 else f"{num(tokens / 1e6)}M"


def _instead(intent: Intent, calls: Calls, result: dict[str, Any]) -> list[str]:
    """When the job fits no layout of the GPUs asked: its time on the smallest cluster that
    holds it, and for a full fine-tune the same run as LoRA on the GPUs asked (which keeps
    only small adapters' gradients and optimizer states)."""
    said: list[str] = []
    small, tokens = result.get("smallest_cluster"), result.get("tokens")
    if small and tokens:
        there = calls.run("parallelism", parallel_payload(intent, gpus=small["gpus"]),
                          f"training time on the smallest cluster that holds it "
                          f"({small['gpus']} GPUs)")
        if there["plans"] and there.get("training_days"):
            said.append(f"On {small['gpus']} GPUs, {tokens_said(tokens)} tokens take about "
                        f"**{num(there['training_days'])} days** "
                        f"({num(there['gpu_hours'])} GPU-hours{_cost_of(intent, calls, there)}).")
    if result["workload"] == "full_finetune" and tokens:
        lora = calls.run("parallelism", parallel_payload(intent) | {"workload": "lora"},
                         "the same run as LoRA on the GPUs asked")
        if lora["plans"] and lora.get("training_days"):
            said.append(f"As LoRA fine-tuning it fits the {result['gpus']} GPU"
                        f"{'s' if result['gpus'] != 1 else ''} asked: about "
                        f"**{num(lora['training_days'])} days** "
                        f"({num(lora['gpu_hours'])} GPU-hours{_cost_of(intent, calls, lora)}).")
    return said


def price_run(intent: Intent, calls: Calls, run: dict[str, Any]) -> dict[str, Any]:
    """A timed run's GPU-hours at the cheapest offer of its GPU (the provider asked, if one
    was; on-demand unless another kind was): the pricing tool's result."""
    provider = slot(intent, "provider")
    return calls.run("pricing", {"gpu": run["gpu"], "gpu_hours": run["gpu_hours"],
                                 "gpus": run["gpus"], "provider": provider,
                                 "kind": slot(intent, "kind", "on_demand")},
                     f"cost of the GPU-hours at {provider}'s cheapest offer" if provider
                     else "cost of the GPU-hours at the cheapest offer")


def _cost_of(intent: Intent, calls: Calls, run: dict[str, Any]) -> str:
    """', about $X at runpod': the run's price, said after its GPU-hours."""
    price = price_run(intent, calls, run)
    cheapest = price.get("cheapest")
    if not cheapest or not price.get("run_usd"):
        return ""
    return f", about **{usd(price['run_usd'])}** at {cheapest['provider']}"


def serving(intent: Intent, calls: Calls) -> Reply:
    if not slot(intent, "gpu"):  # a GPU the catalog lacks, known by its memory only: the
        return fit(intent, calls)  # fit and KV room; its speed is not known to rank layouts
    result = calls.run("parallelism", parallel_payload(intent), "serving layouts and throughput")
    said, steps = [layout_sentence(result)], []
    if not result["plans"]:
        said += _served_instead(intent, calls, result)
    else:
        said += _served_goal(intent, result) + _served_cost(intent, calls, result)
        said += _tp_compared(intent, result)
        if first := _first_token(intent, result):
            said.append(first[0])
            steps.append(first[1])
        if users := _served_users(intent, calls, result):
            said.append(users[0])
            steps.append(users[1])
        if ceiling := _bandwidth_ceiling(intent, calls, result):
            said.append(ceiling[0])
            steps.append(ceiling[1])
    return Reply(headline=" ".join(said), tables=plan_tables(result), steps=steps)


def _served_goal(intent: Intent, result: dict[str, Any]) -> list[str]:
    """'50 users at 20 tokens/s each': whether each sequence's speed at that concurrency
    (one token per time-per-output-token) reaches the rate asked."""
    users, wanted = slot(intent, "users"), slot(intent, "user_tokens_per_s")
    if not users or not wanted:
        return []
    best = result["plans"][0]
    each = 1000 / float(best["time_per_output_token_ms"])
    verdict = "met" if each >= float(wanted) else "**not met**"
    return [f"{num(users)} users at {num(wanted)} tokens/s each: each sequence gets about "
            f"{num(each)} tokens/s (1,000 / {num(best['time_per_output_token_ms'])} ms), "
            f"{verdict}."]


def _split_wider(intent: Intent, calls: Calls, result: dict[str, Any]) -> list[str]:
    """A model served on one GPU, its parallel layout asked ("单A100 ... 推理很慢, 有模型并行的
    方案吗"): one GPU has nothing to split, so the time per token tensor parallelism over 2 and
    4 of the same GPUs would give, each GPU reading its share of the weights."""
    if int(result["gpus"]) != 1 or slot(intent, "tp"):
        return []
    wider = []
    for gpus in (2, 4):
        try:
            split = calls.run("parallelism", parallel_payload(intent) | {"gpus": gpus},
                              f"the same model split over {gpus} GPUs", aside=True)
        except (ToolError, ValueError, LookupError):
            continue
        tp = next((p for p in split["plans"] if int(p["tp"]) == gpus), None)
        if tp:
            wider.append(f"tp {gpus}: {num(tp['time_per_output_token_ms'])} ms a token")
    if not wider:
        return []
    one = result["plans"][0]
    return [f"One GPU has nothing to split: tensor parallelism over more of them shortens each "
            f"token (now {num(one['time_per_output_token_ms'])} ms), every GPU reading its share "
            f"of the weights: {'; '.join(wider)}."]


def _tp_compared(intent: Intent, result: dict[str, Any]) -> list[str]:
    """"With tp=8 the throughput is lower than with tp=4": the two layouts from the ranking,
    side by side. On the same GPUs a smaller TP runs more replicas, each paying fewer
    all-reduces a token, so while the model fits, more replicas serve more in all."""
    by_tp = {int(p["tp"]): p for p in result["plans"] if int(p["pp"]) == 1}
    shown = [by_tp[tp] for tp in intent.slots.get("tp_compared") or [] if tp in by_tp]
    if len(shown) < 2:
        return []
    parts = [f"tp {p['tp']} ({p['replicas']} replica{'s' if p['replicas'] != 1 else ''}) "
             f"{num(p['decode_tokens_per_s'])} tokens/s in all, "
             f"{num(p['time_per_output_token_ms'])} ms a token" for p in shown]
    best = max(shown, key=lambda p: p["decode_tokens_per_s"])
    return [f"The degrees compared: {'; '.join(parts)}. With the model fitting tp "
            f"{best['tp']}, the larger TP adds all-reduces to every token and leaves fewer "
            f"replicas, so in all it serves less: run {best['replicas']} replicas of tp "
            f"{best['tp']} (in vLLM, data parallelism over them) for throughput, the larger TP "
            "only for a shorter time per token."]


def _first_token(intent: Intent, result: dict[str, Any]) -> tuple[str, Step] | None:
    """A long prompt named ("long context (16K) RAG ... TTFT 15 seconds"): the prompt's
    prefill, compute bound, as the time to the first token; its floor at the GPU's dense peak
    (inference-roofline#prefill-compute-bound); a stated TTFT set against both."""
    prompt = slot(intent, "input_tokens") or intent.slots.get("context_len")
    row = catalog().gpus.rows.get(result.get("gpu") or "")
    per_token = result.get("prefill_flops_per_token")
    precision = str(slot(intent, "precision") or "bf16")
    # the peak the matmuls run at: the precision's own, 16-bit for dequantised weights
    peak = getattr(row, PEAK_COLUMN.get(precision, "bf16_tflops"), None) if row else None
    peak = peak or (row.bf16_tflops or row.fp16_tflops if row else None)
    if not prompt or not per_token or row is None or not peak:
        return None
    best = result["plans"][0]
    flops = float(prompt) * float(per_token)
    seconds = float(prompt) / float(best["prefill_tokens_per_s_per_replica"])
    floor = flops / (float(peak) * 1e12 * best["gpus_per_replica"])
    said = (f"A {num(prompt)}-token prompt is **{num(flops / 1e15)} PFLOP** to prefill (2 per "
            f"parameter a token, plus causal attention), so the first token comes after about "
            f"**{num(seconds)} s** on {best['gpus_per_replica']}× {gpu_name(result['gpu'])} "
            f"({num(floor)} s even at the dense peak).")
    if precision not in PEAK_COLUMN:
        said += (" Quantised weights do not shorten it: they are dequantised and the matmuls "
                 "run in 16 bits.")
    stated = intent.slots.get("ttft_ms")
    if stated:
        stated_s = float(stated) / 1000
        said += (f" The {num(stated_s)} s stated is below even that floor, so the prompt was "
                 "shorter or partly served from a prefix cache." if stated_s < floor else
                 f" The {num(stated_s)} s stated is what this prompt costs here: only more or "
                 "faster GPUs (tensor parallelism splits the prefill), a smaller model or "
                 "prefix caching shorten it; no server flag does.")
    step = Step(label="time to first token: the prompt's prefill",
                formula="prompt x FLOPs a prompt token / prefill FLOP/s",
                inputs={"prompt": q(prompt, "tokens"),
                        "FLOPs a prompt token": q(per_token, "FLOP"),
                        "prefill rate": q(best["prefill_tokens_per_s_per_replica"], "tokens/s")},
                result=q(round(seconds, 3), "s"),
                notes=["inference-roofline#prefill-compute-bound", row.source_note])
    return said, step


def _served_users(intent: Intent, calls: Calls, result: dict[str, Any]
                  ) -> tuple[str, Step] | None:
    """"How many users can it serve?": the sequences the KV cache holds at once at the context
    assumed, and the speed each gets when all of them decode together. Each user's cache is
    what grows the memory in use (kv-cache#per-token)."""
    if not intent.slots.get("max_batch_asked") or "batch" in intent.slots:
        return None
    best = result["plans"][0]
    context = int(slot(intent, "context_len") or 4096)
    # the one sequence sized plus what the spare room holds; activations grow with the batch
    # too, so the count steps down until the tool finds it fits
    held = (1 + int(best["kv_capacity_tokens"]) // context) * int(best["replicas"])
    loaded = None
    while held >= 2 and loaded is None:
        full = calls.run("parallelism", parallel_payload(intent) | {"concurrency": held},
                         f"serving {held} sequences at once")
        loaded = full["plans"][0] if full["plans"] else None
        held -= 0 if loaded else max(1, held // 20)
    if loaded is None:
        return None
    each = 1000 / float(loaded["time_per_output_token_ms"])
    memory = calls.run("memory", memory_payload(intent, with_gpu=False), "the KV cache a "
                       "sequence adds", aside=True)
    per_user_gb = float(memory["kv_cache_bytes_per_token"]) * context / 1e9
    step = Step(label="sequences the KV cache holds at once",
                formula="KV tokens per replica ÷ context × replicas",
                inputs={"KV tokens per replica": q(best["kv_capacity_tokens"], "tokens"),
                        "context": q(context, "tokens"), "replicas": q(best["replicas"])},
                result=q(held, "sequences"), notes=["kv-cache#per-token"])
    return (f"At {num(context)} tokens each, the KV cache holds about **{num(held)} sequences "
            f"at once**; with all of them decoding, each gets about **{num(each)} tokens/s** "
            f"({num(loaded['decode_tokens_per_s'])} tokens/s in all). Each user's cache is "
            f"what grows the memory in use: {num(per_user_gb)} GB per {num(context)}-token "
            f"sequence.", step)


def _served_cost(intent: Intent, calls: Calls, result: dict[str, Any]) -> list[str]:
    """When a cost is asked of a served job: the cluster's month on demand, and what that
    makes a million output tokens at the layout's throughput, running flat out."""
    if not slot(intent, "cost"):
        return []
    price = calls.run("pricing", {"gpu": result["gpu"], "gpus": result["gpus"],
                                  "kind": "on_demand"}, "what the serving cluster costs")
    cheapest = price.get("cheapest")
    if not cheapest:
        return [f"No on-demand offer for {gpu_name(result['gpu'])} is in the price list."]
    tokens_per_hour = float(result["plans"][0]["decode_tokens_per_s"]) * 3600
    per_million = float(price["hourly_usd"]) / tokens_per_hour * 1e6
    return [f"At {cheapest['provider']}'s {usd(cheapest['effective_usd_per_gpu_hour'])} per "
            f"GPU-hour the cluster costs **{usd(price['monthly_usd'])} a month** "
            f"({usd(price['hourly_usd'])} an hour), **{usd_rate(per_million)} per million "
            "output tokens** when it runs flat out."]


def _bandwidth_ceiling(intent: Intent, calls: Calls, result: dict[str, Any]
                       ) -> tuple[str, Step] | None:
    """One sequence's decode reads every weight per token: the GPU's memory bandwidth over the
    weight bytes is the speed no engine passes, the figure people hold a measurement against
    ("70 tokens/s for a 7B on an A800, is that real?")."""
    best = result["plans"][0]
    row = catalog().gpus.rows.get(result.get("gpu") or "")
    if best.get("decode_bound") != "memory bandwidth" or int(slot(intent, "batch") or 1) != 1 \
            or row is None or not row.memory_bandwidth_tb_s:
        return None
    memory = calls.run("memory", memory_payload(intent, with_gpu=False), "the weights read per "
                       "token", aside=True)
    if memory["active_params_b"] < memory["params_b"]:
        return None  # an MoE reads only its active experts: the plan's own figure says it
    weights_gb, bandwidth = float(memory["whole_model_gb"]["weights"]), \
        float(row.memory_bandwidth_tb_s) * best["tp"]
    ceiling = bandwidth * 1000 / weights_gb
    step = Step(label="decode ceiling: all weights read once per token",
                formula="memory bandwidth of the TP GPUs ÷ weight bytes",
                inputs={"bandwidth": q(bandwidth, "TB/s"), "weights": q(weights_gb, "GB")},
                result=q(round(ceiling, 1), "tokens/s"),
                notes=["inference-roofline#decode-memory-bound", row.source_note])
    return (f"Memory bandwidth caps one sequence at **{num(ceiling)} tokens/s** here: every "
            f"token reads all {num(weights_gb)} GB of weights at {num(bandwidth)} TB/s (only "
            "speculative decoding gets past it).", step)


def _served_instead(intent: Intent, calls: Calls, result: dict[str, Any]) -> list[str]:
    """A served model too big for the GPUs asked: its speed on the smallest cluster that holds
    it, and, when no precision was asked, with 4-bit weights on the GPUs asked."""
    try:
        return _served_elsewhere(intent, calls, result)
    except (ToolError, ValueError, LookupError):  # an aside never undoes the answer
        return []


def _served_elsewhere(intent: Intent, calls: Calls, result: dict[str, Any]) -> list[str]:
    said = []
    small = result.get("smallest_cluster")
    if small:
        there = calls.run("parallelism", parallel_payload(intent, gpus=small["gpus"]),
                          f"serving on the smallest cluster that holds it ({small['gpus']} GPUs)")
        if there["plans"]:
            best = there["plans"][0]
            said.append(f"On {small['gpus']} GPUs: about **{num(best['decode_tokens_per_s'])} "
                        f"output tokens/s**, {num(best['time_per_output_token_ms'])} ms per "
                        "token per sequence.")
    if "precision" not in intent.slots:
        four = calls.run("parallelism", parallel_payload(intent) | {"precision": "int4"},
                         "the same GPUs with 4-bit weights")
        if four["plans"]:
            best = four["plans"][0]
            said.append(f"With 4-bit weights (GPTQ, AWQ) it fits the GPUs asked: about "
                        f"**{num(best['decode_tokens_per_s'])} output tokens/s**, "
                        f"{num(best['time_per_output_token_ms'])} ms per token per sequence.")
        else:
            said.append("Even with 4-bit weights it does not fit the GPUs asked.")
    return said


def plan(intent: Intent, calls: Calls) -> Reply:
    """Memory sets the floor, the layout search picks the split, pricing says what it costs."""
    gpu = slot(intent, "gpu")
    memory = calls.run("memory", memory_payload(intent, with_gpu=False, least=True) | {"gpu": gpu},
                       "bytes of the job and the fewest GPUs that hold it")
    fewest = (memory.get("min_gpus") or {}).get(memory["gpu"])
    if not fewest:
        return Reply(headline=f"{cap(subject(intent, memory))} does not fit on any number of "
                     f"{gpu_name(gpu)}.")
    gpus = slot(intent, "gpus") or _whole_nodes(fewest, memory["gpu"])
    result = calls.run("parallelism", parallel_payload(intent, gpus=gpus),
                       f"the best layout on {gpus} GPUs")
    lead = (f"Plan: {subject(intent, memory)} needs at least {fewest}× {gpu_name(gpu)} "
            f"({num(memory['per_gpu_gb'])} GB unsharded); on {gpus} GPUs (whole nodes): "
            + layout_sentence(result))
    provider = slot(intent, "provider")
    price = calls.run("pricing", {"gpu": memory["gpu"], "gpus": gpus, "kind": "on_demand",
                                  "provider": provider}, "what the cluster costs a month")
    if provider and not price.get("cheapest"):
        # "on AWS": none there for these GPUs, so say so and price them where they are
        lead += f" {cap(str(provider))} has no on-demand offer for them on record;"
        price = calls.run("pricing", {"gpu": memory["gpu"], "gpus": gpus, "kind": "on_demand"},
                          "what the cluster costs a month elsewhere")
    if price.get("cheapest"):
        lead += (f" It rents for about **{usd(price['monthly_usd'])} a month** on demand "
                 f"({price['cheapest']['provider']}).")
    return Reply(headline=lead, tables=plan_tables(result), resolved={"gpus": gpus})


def _whole_nodes(gpus: int, gpu_id: str) -> int:
    per_node = catalog().gpus.rows[gpu_id].gpus_per_node
    return max(per_node, -(-gpus // per_node) * per_node)
