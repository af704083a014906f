"""Plan questions that carry a goal (a deadline, a throughput, users at a speed, a budget,
cheapest or fastest) go to the plan tool; the rest keep the fixed-cluster plan."""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, pct, plural, table, usd, usd_rate
from clusterplan.assistant.parsing.jobs import WORKLOAD_WORDS, gpu_name
from clusterplan.assistant.routing.cluster import plan as fixed_cluster_plan
from clusterplan.assistant.routing.dispatch import Calls, Reply, model_fields, slot
from clusterplan.db.active import catalog
from clusterplan.figures import days
from clusterplan.tools.citing import note_ref

HOURS_PER_DAY = 24


# pretraining-tokens#run-lengths: DeepSeek-V3 took 54 days, Llama 3.1 405B about 78
RUN_LENGTHS = "pretraining-tokens#run-lengths"
DEFAULT_PRETRAIN_DAYS = 90


def plan_payload(intent: Intent) -> dict[str, Any] | None:
    """The plan tool's input when the question states a goal, else None."""
    s = intent.slots
    workload = slot(intent, "workload", "pretrain")
    if s.get("largest_model"):  # the catalog is searched: no model of the question's own
        payload: dict[str, Any] = {"largest_model": True, "workload": workload}
    else:
        payload = {**model_fields(intent), "workload": workload}
    for name in ("precision", "kv_precision"):
        if name in s:  # asked ("and with FP8?"), never the assumed default
            payload[name] = s[name]
    goal = False
    if workload == "inference":
        if "users" in s and ("user_tokens_per_s" in s or "tokens_per_s" in s):
            # a total rate ("2,000 tokens/s in total") is shared by the users at once
            each = s.get("user_tokens_per_s") or float(s["tokens_per_s"]) / float(s["users"])
            payload.update(concurrent_users=s["users"], tokens_per_s_per_user=each)
            goal = True
        elif "tokens_per_s" in s:
            payload["tokens_per_s"], goal = s["tokens_per_s"], True
        elif "requests_per_s" in s and "output_tokens" in s:
            payload["requests_per_s"], goal = s["requests_per_s"], True
        if "input_tokens" in s and "output_tokens" in s:
            payload.update(input_tokens=s["input_tokens"], output_tokens=s["output_tokens"])
        if "ttft_ms" in s and "input_tokens" in s:
            payload["ttft_ms"] = s["ttft_ms"]
        if "tpot_ms" in s:
            payload["tpot_ms"] = s["tpot_ms"]
    else:
        if slot(intent, "tokens"):  # given, or pretraining's stated default
            payload["tokens"] = slot(intent, "tokens")
        if "hours" in s:  # a fine-tune with no data size is timed on the tool's stated default
            payload["deadline_days"], goal = s["hours"] / HOURS_PER_DAY, True
    if "usd" in s:
        payload["budget_usd"], goal = s["usd"], True
    if "objective" in s:
        payload["objective"], goal = s["objective"], True
    elif not goal and workload == "pretrain" and "tokens" in payload \
            and not s.keys() & {"gpus", "nodes"}:
        # "what does pretraining X on 300B tokens cost?", "what should I rent to pretrain
        # X?": the cheapest cluster that finishes in a published run's time (a cluster sized
        # only to hold the model says what it rents for a month, not what the run costs;
        # the cheapest alone is one node for years)
        payload["deadline_days"], goal = DEFAULT_PRETRAIN_DAYS, True
        intent.assumed["deadline"] = (f"{DEFAULT_PRETRAIN_DAYS} days, a little over the "
                                      f"longest published pretraining runs ({RUN_LENGTHS})")
    elif (s.get("cost") or "samples" in s) and not goal and workload != "inference":
        # "how costly is it to fine-tune X?": what it costs done the cheapest way (serving
        # needs a throughput to be planned for, which a cost word does not give)
        payload["objective"], goal = "cheapest", True
        intent.assumed["objective"] = "cheapest"
    if "gpu" in s:  # the kinds named ("compare with A100s" adds one), else every kind
        payload["gpus"] = list(s.get("gpu_list") or [s["gpu"]])
    if workload == "pretrain" and "tokens" not in payload:
        return None  # a fine-tune with no data size takes the tool's stated default
    return payload if goal else None


def shape_words(layout: dict[str, Any]) -> str:
    """'TP 2 × PP 1 × DP 96' (EP only when experts are split)."""
    return " × ".join(f"{k.upper()} {layout[k]}" for k in ("tp", "pp", "dp", "ep")
                      if k in layout and (k != "ep" or layout[k] != 1))


def training_layout_words(layout: dict[str, Any]) -> str:
    """A training layout in words: its shape and its ZeRO stage."""
    zero = [f"ZeRO stage {layout['zero_stage']}"] if layout.get("zero_stage") is not None else []
    return ", ".join([shape_words(layout), *zero])


def in_words(rec: dict[str, Any], training: bool) -> str:
    """The recommended option as a sentence: the cluster, the offer, the layout, the time or
    speed, the cost (the tool's own summary keeps field names, for scripts)."""
    layout = rec.get("layout") or {}
    shape = shape_words(layout)
    product = rec["offer"].rsplit("(", 1)[-1].rstrip(")") if "(" in rec["offer"] else ""
    where = (f"from {rec['provider']}{' ' + product if product else ''} "
             f"({str(rec['offer_kind']).replace('_', '-')}) at "
             f"{usd_rate(rec['usd_per_gpu_hour'])} per GPU-hour")
    cluster = f"**{num(rec['gpus'])}× {gpu_name(rec['gpu'])}**"
    if training:
        settings = training_layout_words(layout)
        return (f"{cluster} ({num(rec['nodes'])} node{'s' if rec['nodes'] != 1 else ''} of "
                f"{num(rec['gpus_per_node'])}) {where}; layout {settings}; "
                f"**{days(rec['training_days'])}** at MFU {pct(rec['mfu'])}, about "
                f"**{usd(rec['cost_usd'])}** for the run")
    replicas = rec.get("replicas") or 1
    per_million = rec.get("usd_per_million_output_tokens")
    return (f"{cluster} as {num(replicas)} replica{'s' if replicas != 1 else ''} of "
            f"{plural(int(rec.get('gpus_per_replica') or 0), 'GPU')} ({shape}) {where}: "
            f"{num(rec.get('tokens_per_s'))} tokens/s, "
            f"{num(rec.get('time_per_output_token_ms'))} ms per output token, "
            f"**{usd(rec['cost_usd'])} a month**"
            + (f" ({usd_rate(per_million)} per million output tokens)" if per_million else ""))


def unpriced_words(found: dict[str, Any], shortfall: str | None) -> str:
    """A named GPU kind no offer rents: the count the deadline needs, by time alone."""
    nodes = found["nodes"]
    cluster = (f"**{num(found['gpus'])}× {gpu_name(found['gpu'])}** ({num(nodes)} "
               f"node{'s' if nodes != 1 else ''} of {num(found['gpus_per_node'])}); layout "
               f"{training_layout_words(found['layout'])}; "
               f"**{days(found['training_days'])}** at MFU {pct(found['mfu'])}")
    unpriced = (f" Not priced: no offer in the price list rents the {gpu_name(found['gpu'])}, "
                "so the count is sized by time alone.")
    if found["meets_deadline"]:
        return "Smallest count that meets it: " + cluster + "." + unpriced
    return (f"No count meets it ({shortfall}); the fastest found: " + cluster + "."
            + unpriced)


def _model(model_id: str) -> str:
    """A catalog model's name ('Kimi K2'), as the rest of the answer names models."""
    rows = catalog().models.rows
    return rows[model_id].name if model_id in rows else model_id


def _other_kinds(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The cheapest option of each GPU kind the cost/time front leaves out."""
    shown = {o["gpu"] for o in result.get("pareto") or []}
    return [o for o in result.get("by_gpu") or [] if o["gpu"] not in shown]


def _largest(result: dict[str, Any], sentence: str) -> str:
    """For 'the biggest model I can afford': the model named first, the runner-up after."""
    if not str(result.get("goal", "")).startswith("largest model") or not result.get("model"):
        return sentence
    said = (f"the biggest model the goal affords is **{_model(result['model'])}**: "
            f"{sentence}")
    runner = result.get("runner_up")
    if isinstance(runner, dict) and result.get("runner_up_model"):
        said += (f"; runner-up {_model(result['runner_up_model'])}: {num(runner['gpus'])}× "
                 f"{gpu_name(runner['gpu'])}, about {usd(runner['cost_usd'])}")
    return said


METHOD_WORDS = {"full_finetune": "full", "lora": "LoRA", "qlora": "QLoRA"}


def affordable_table(rows: list[dict[str, Any]]) -> str:
    """The largest model the budget fine-tunes, by method and data size."""
    return table(["method", "tokens", "largest model", "cluster", "provider", "time", "cost"],
                 [[METHOD_WORDS.get(r["workload"], r["workload"]), num(r["tokens"]),
                   r["model"] or "none affordable",
                   f"{num(r['gpus'])}× {gpu_name(r['gpu'])}" if r["gpu"] else "",
                   r["provider"] or "", days(r["training_days"])
                   if r["training_days"] is not None else "", usd(r["cost_usd"])
                   if r["cost_usd"] is not None else ""] for r in rows])


def _in_words(goal: str, workload: str) -> str:
    """The tool's goal with its workload id in words ('largest model: full_finetune on ...'
    -> 'largest model: full fine-tuning on ...')."""
    return re.sub(rf"\b{re.escape(workload)}\b", WORKLOAD_WORDS.get(workload, workload), goal,
                  count=1)


def plan(intent: Intent, calls: Calls) -> Reply:
    """The plan tool's recommendation, its Pareto front and why the rest failed."""
    payload = plan_payload(intent)
    if payload is None:
        return fixed_cluster_plan(intent, calls)
    intent.assumed.pop("gpu", None)  # the search chooses the GPU kind; none is assumed
    result = calls.run("plan", payload, "search GPU kinds, node counts and offers for the goal")
    rec = result.get("recommendation")
    training = payload["workload"] != "inference"
    head = f"Goal: {_in_words(result['goal'], payload['workload'])}. "
    if rec is None and result.get("unpriced"):
        head += unpriced_words(result["unpriced"], result.get("shortfall"))
    elif rec is None:
        head += "No cluster meets it: " + result["summary"].split("; ", 1)[-1] + "."
    else:
        head += "Recommendation: " + _largest(result, in_words(rec, training)) + "."
        if rec.get("decode_ms"):
            d = rec["decode_ms"]
            head += (f" Time per output token {num(d['total_ms'])} ms: weights read "
                     f"{num(d['weights_read_ms'])}, KV read {num(d['kv_read_ms'])}, compute "
                     f"{num(d['compute_ms'])}, TP communication {num(d['tp_comm_ms'])}, fixed cost "
                     f"{num(d.get('overhead_ms', 0))} ms.")
        if rec.get("prefill_ms"):
            p = rec["prefill_ms"]
            head += (f" Time to first token {num(p['total_ms'])} ms: compute "
                     f"{num(p['compute_ms'])}, TP communication {num(p['tp_comm_ms'])}, fixed cost "
                     f"{num(p.get('overhead_ms', 0))} ms.")
    tables = []
    if result.get("pareto"):
        if training:
            rows = [[f"{o['gpus']}× {gpu_name(o['gpu'])}", o["nodes"], o["provider"],
                     days(o["training_days"]), usd(o["cost_usd"])] for o in result["pareto"]]
            tables.append(table(["cluster", "nodes", "provider", "time", "cost"], rows))
        else:
            rows = [[f"{o['gpus']}× {gpu_name(o['gpu'])}", o["replicas"],
                     f"tp={o['layout']['tp']}", o["concurrency_per_replica"], o["provider"],
                     o["tokens_per_s"], o["time_per_output_token_ms"], usd(o["cost_usd"]),
                     usd_rate(o["usd_per_million_output_tokens"])] for o in result["pareto"]]
            tables.append(table(["cluster", "replicas", "layout", "batch", "provider",
                                 "tokens/s", "ms/token", "cost a month", "$/M output tokens"],
                                rows))
    others = _other_kinds(result)
    if others and training:
        rows = [[f"{o['gpus']}× {gpu_name(o['gpu'])}", o["nodes"], o["provider"],
                 days(o["training_days"]), usd(o["cost_usd"])] for o in others]
        tables.append(table(["other GPU kinds that meet the goal (each at its cheapest)",
                             "nodes", "provider", "time", "cost"], rows))
    if result.get("affordable"):
        tables.append(affordable_table(result["affordable"]))
    if result.get("failed"):
        tables.append(table(["ruled out because", "candidates"],
                            [[k, num(v)] for k, v in result["failed"].items()]))
    # the cluster recommended is the one a follow-up ("how much KV cache ...?") is about
    resolved = {"gpu": rec["gpu"], "gpus": rec["gpus"]} if rec else {}
    cited = [note_ref(RUN_LENGTHS)] if "deadline" in intent.assumed else []
    return Reply(headline=head, tables=tables, resolved=resolved, citations=cited)
