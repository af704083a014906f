"""Goal-shaped questions (a deadline, a budget, the cheapest) to the plan tool."""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.markdown import table
from clusterplan.assistant.route import Calls, Reply, model_fields

TRAIN_WORKLOADS = ("pretrain", "full_finetune", "lora", "qlora")


def plan(intent: Intent, calls: Calls) -> Reply:
    """Search every GPU kind, count and offer for the goal the question states."""
    s = intent.slots
    workload = s.get("workload", "pretrain")
    if workload not in TRAIN_WORKLOADS or (workload == "pretrain" and not any(
            k in s for k in ("hours", "usd", "tokens"))):
        # Serving (not searched by the plan tool yet), or pretraining with no token budget
        # and no goal: size the floor and lay it out instead.
        from clusterplan.assistant.route_cluster import plan as size_and_lay_out

        return size_and_lay_out(intent, calls)
    payload: dict[str, Any] = model_fields(intent)
    payload["workload"] = workload
    if s.get("tokens"):
        payload["tokens"] = s["tokens"]
    if s.get("hours"):
        payload |= {"goal": "deadline", "deadline_days": s["hours"] / 24}
    elif s.get("usd") or s.get("budget_usd"):
        payload |= {"goal": "budget", "budget_usd": s.get("usd") or s.get("budget_usd")}
    else:
        payload["goal"] = "cheapest"
    if "gpu" in s:
        payload["gpus"] = [s["gpu"]]
    r = calls.run("plan", payload, f"the {payload['goal']} cluster over every GPU kind and offer")
    rows = [[o["gpu"], o["gpus"], o["nodes"], f"{o['provider']} {o['offer_kind']}",
             o["usd_per_gpu_hour"], f"tp {o['layout']['tp']} pp {o['layout']['pp']} "
             f"dp {o['layout']['dp']}", round(o["time_days"], 2), round(o["cost_usd"])]
            for o in r["options"]]
    tables = [table(["GPU", "GPUs", "nodes", "offer", "$/GPU-h", "layout", "days", "cost $"],
                    rows)] if rows else []
    if r["rejected"]:
        tables.append(table(["ruled out because", "candidates"],
                            [[k, v] for k, v in r["rejected"].items()]))
    head = r["recommendation"] + "." if r["best"] else f"No option meets the goal: {r['gap']}."
    if r.get("needed_tokens_per_s"):
        head += f" (The deadline needs {r['needed_tokens_per_s']:,.0f} tokens/s.)"
    return Reply(headline=head, tables=tables)
