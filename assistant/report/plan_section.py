"""A `plan` answer in the report: the goal, the options that meet it, and cost against time.

The plan tool returns its recommendation and the cost/time Pareto front. The report lists them
as one table in words (what to rent, the layout, the time or throughput, the cost), marks the
cheapest and the fastest, and charts the cost of each option in the order of their time, so the
price of finishing sooner (or serving faster) shows at a glance.
"""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.composing.markdown import escape, num, pct, table, usd, usd_rate
from clusterplan.assistant.report.charts import Chart, Series, mermaid
from clusterplan.figures import days


def options(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The recommendation and the Pareto options, each once, the fastest first."""
    found: list[dict[str, Any]] = []
    for option in [result.get("recommendation"), *(result.get("pareto") or [])]:
        if isinstance(option, dict) and option.get("cost_usd") is not None \
                and not any(_same(option, o) for o in found):
            found.append(option)
    return sorted(found, key=_speed)


def plan_blocks(result: dict[str, Any], gpu_name: Any = str) -> list[str]:
    """The plan's figures, its options as a table, and the cost chart."""
    training = _training(result)
    rows: list[list[Any]] = [["goal", result.get("goal")]]
    if result.get("needed_tokens_per_s") is not None:
        rows.append(["throughput needed (tokens/s)", num(result["needed_tokens_per_s"])])
    if result.get("target_tokens_per_s"):
        rows.append(["throughput wanted (tokens/s)", num(result["target_tokens_per_s"])])
    rows.append(["options evaluated", result.get("evaluated")])
    failed = result.get("failed") or {}
    if failed:
        rows.append(["ruled out", ", ".join(f"{n} {why}" for why, n in failed.items())])
    blocks = ["### The plan", table(["figure", "value"], rows)]
    found = options(result)
    if not found:
        return [*blocks, "No cluster meets the goal."]
    blocks += ["### The options that meet the goal", options_table(result, found, gpu_name)]
    chart = cost_chart(found, training, gpu_name)
    if chart:
        blocks.append(chart)
    return blocks


def options_table(result: dict[str, Any], found: list[dict[str, Any]], gpu_name: Any) -> str:
    training = _training(result)
    speed = "training time (days)" if training else "throughput (tokens/s)"
    cost = "cost of the run (USD)" if training else "cost (USD/month)"
    rows = [[_marks(result, found, o), f"{num(o['gpus'])}× {gpu_name(o['gpu'])}",
             f"{num(o['nodes'])} of {num(o['gpus_per_node'])}", _layout(o),
             f"{o['provider']} ({_kind(o.get('offer_kind'))})", usd_rate(o["usd_per_gpu_hour"]),
             num(o["training_days"] if training else o.get("tokens_per_s")),
             usd(o["cost_usd"]), pct(o["mfu"]) if o.get("mfu") is not None else "-"]
            for o in found]
    headers = ["option", "GPUs", "nodes (GPUs each)", "layout", "offer", "USD per GPU-hour",
               speed, cost, "MFU (%)"]
    if all(o.get("mfu") is None for o in found):  # serving: no MFU to show
        headers, rows = headers[:-1], [row[:-1] for row in rows]
    return table(headers, rows)


def cost_chart(found: list[dict[str, Any]], training: bool, gpu_name: Any = str) -> str | None:
    """Cost of each option, in the order of their time (training) or throughput (serving)."""
    if len(found) < 2:
        return None
    labels = [(days(o["training_days"]) if training
               else f"{num(o.get('tokens_per_s'))} tokens/s")
              + f" · {num(o['gpus'])}× {_short(gpu_name(o['gpu']))}" for o in found]
    costs = [float(o["cost_usd"]) for o in found]
    title = ("Cost of the run against training time (USD)" if training
             else "Monthly cost against throughput (USD/month)")
    return mermaid(Chart("xy", title, labels, [Series("line", costs, "cost")],
                         x_label="training time, fastest first" if training
                         else "throughput, fastest first",
                         y_label="USD" if training else "USD/month",
                         y_top=max(costs) * 1.1, unit="USD"))


def _marks(result: dict[str, Any], found: list[dict[str, Any]], option: dict[str, Any]) -> str:
    marks = []
    if _same(option, result.get("recommendation") or {}):
        marks.append("recommended")
    if option is min(found, key=lambda o: o["cost_usd"]):
        marks.append("cheapest")
    if option is found[0]:
        marks.append("fastest")
    return ", ".join(marks) or "on the Pareto front"


def _layout(option: dict[str, Any]) -> str:
    layout = option.get("layout") or {}
    shape = " × ".join(f"{k.upper()} {layout[k]}" for k in ("tp", "pp", "dp", "ep")
                       if k in layout and (k != "ep" or layout[k] != 1))
    if option.get("replicas"):
        shape += f", {num(option['replicas'])} replica" + ("s" if option["replicas"] != 1 else "")
    if layout.get("zero_stage") is not None:
        shape += f", ZeRO stage {layout['zero_stage']}"
    return escape(shape)


def _training(result: dict[str, Any]) -> bool:
    return any(isinstance(o, dict) and o.get("training_days") is not None
               for o in [result.get("recommendation"), *(result.get("pareto") or [])])


def _speed(option: dict[str, Any]) -> float:
    if option.get("training_days") is not None:
        return float(option["training_days"])
    return -float(option.get("tokens_per_s") or 0.0)


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("gpu", "gpus", "offer", "cost_usd", "layout")
    return all(a.get(k) == b.get(k) for k in keys)


def _product(option: dict[str, Any]) -> str:
    """' B200 SXM' from the offer's label 'packet-ai b200-sxm on_demand (B200 SXM)'."""
    found = re.search(r"\(([^()]*)\)$", str(option.get("offer") or ""))
    return f" {escape(found.group(1))}" if found else ""


def _kind(kind: Any) -> str:
    return str(kind or "-").replace("_", "-")


def _short(name: str) -> str:
    """'NVIDIA B200 SXM 180GB' -> 'B200 SXM 180GB', 'NVIDIA GB200 (one Blackwell GPU of a
    Grace Blackwell superchip) 186GB' -> 'GB200 186GB': short enough for a chart's label."""
    name = re.sub(r"\s*\([^()]*\)", "", name)
    return name.split(" ", 1)[1] if name.startswith(("NVIDIA ", "AMD ")) else name


def recommended(result: dict[str, Any], gpu_name: Any, ref: str) -> dict[str, str]:
    """The report's recommendation rows from a plan answer: what, where, how many, the
    layout, the time (or throughput) and the cost, each naming its question."""
    o = result["recommendation"]
    found = {"rent": f"{num(o['gpus'])}× {gpu_name(o['gpu'])}" + ref,
             "where": f"{escape(o['provider'])}{_product(o)} ({_kind(o.get('offer_kind'))}) at "
                      f"{escape(usd_rate(o['usd_per_gpu_hour']))} per GPU-hour" + ref,
             "how many": f"{num(o['nodes'])} node{'s' if o['nodes'] != 1 else ''} of "
                         f"{num(o['gpus_per_node'])} GPUs" + ref,
             "layout": _layout(o) + (f", MFU {pct(o['mfu'])}" if o.get("mfu") is not None
                                     else "") + ref}
    if o.get("training_days") is not None:
        found["time"] = days(o["training_days"]) + ref
        found["cost"] = f"{escape(usd(o['cost_usd']))} for the run" + ref
    else:
        found["time"] = f"{num(o.get('tokens_per_s'))} tokens/s" + ref
        found["cost"] = (f"{escape(usd(o['cost_usd']))} a month for "
                         f"{num(o['billed_gpus'])} GPUs" + ref)
    return found
