"""Plan questions that carry a goal (a deadline, a throughput, users at a speed, a budget,
cheapest or fastest) go to the plan tool; the rest keep the fixed-cluster plan."""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table, usd
from clusterplan.assistant.parsing.jobs import gpu_name
from clusterplan.assistant.routing.cluster import plan as fixed_cluster_plan
from clusterplan.assistant.routing.dispatch import Calls, Reply, model_fields, slot

HOURS_PER_DAY = 24


def plan_payload(intent: Intent) -> dict[str, Any] | None:
    """The plan tool's input when the question states a goal, else None."""
    s = intent.slots
    workload = slot(intent, "workload", "pretrain")
    payload: dict[str, Any] = {**model_fields(intent), "workload": workload}
    goal = False
    if workload == "inference":
        if "users" in s and ("user_tokens_per_s" in s or "tokens_per_s" in s):
            payload.update(concurrent_users=s["users"], tokens_per_s_per_user=s.get(
                "user_tokens_per_s", s.get("tokens_per_s")))
            goal = True
        elif "tokens_per_s" in s:
            payload["tokens_per_s"], goal = s["tokens_per_s"], True
    elif "tokens" in s:
        payload["tokens"] = s["tokens"]
        if "hours" in s:
            payload["deadline_days"], goal = s["hours"] / HOURS_PER_DAY, True
    if "usd" in s:
        payload["budget_usd"], goal = s["usd"], True
    if "objective" in s:
        payload["objective"], goal = s["objective"], True
    if "gpu" in s:
        payload["gpus"] = [s["gpu"]]
    if workload != "inference" and "tokens" not in payload:
        return None
    return payload if goal else None


def plan(intent: Intent, calls: Calls) -> Reply:
    """The plan tool's recommendation, its Pareto front and why the rest failed."""
    payload = plan_payload(intent)
    if payload is None:
        return fixed_cluster_plan(intent, calls)
    intent.assumed.pop("gpu", None)  # the search chooses the GPU kind; none is assumed
    result = calls.run("plan", payload, "search GPU kinds, node counts and offers for the goal")
    rec = result.get("recommendation")
    training = payload["workload"] != "inference"
    head = f"Goal: {result['goal']}. "
    if rec is None:
        head += "No cluster meets it: " + result["summary"].split("; ", 1)[-1] + "."
    else:
        head += f"Recommendation: **{result['summary']}**."
    tables = []
    if result.get("pareto"):
        if training:
            rows = [[f"{o['gpus']}× {gpu_name(o['gpu'])}", o["nodes"], o["provider"],
                     o["training_days"], usd(o["cost_usd"])] for o in result["pareto"]]
            tables.append(table(["cluster", "nodes", "provider", "days", "cost"], rows))
        else:
            rows = [[f"{o['gpus']}× {gpu_name(o['gpu'])}", o["replicas"], o["provider"],
                     o["tokens_per_s"], usd(o["cost_usd"])] for o in result["pareto"]]
            tables.append(table(["cluster", "replicas", "provider", "tokens/s",
                                 "cost a month"], rows))
    if result.get("failed"):
        tables.append(table(["ruled out because", "candidates"],
                            [[k, num(v)] for k, v in result["failed"].items()]))
    return Reply(headline=head, tables=tables)
