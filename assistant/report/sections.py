"""Tool results as a reader wants them: human headings, labelled units, charts.

Pure functions of an Answer's `data`: memory (the breakdown per GPU and a pie), parallelism
(the cluster, the best layouts with their step-time parts, why layouts were rejected), pricing
(the few offer columns people read, the cost and its growth over months), and any other result
as a two-column table whose field names are turned into words with their units. Every number
is the tool's own value, only rounded for reading; MFU and other fractions show as %.
"""

from __future__ import annotations

import math
import re
from typing import Any

from clusterplan.assistant.composing.markdown import escape, num, pct, plural, table, usd, usd_rate
from clusterplan.assistant.report.charts import Chart, Series, mermaid
from clusterplan.assistant.report.plan_section import plan_blocks

TOP_LAYOUTS = 5
TOP_OFFERS = 5
COMMON_GPUS = ("h100-sxm", "h200-sxm", "b200-sxm", "a100-sxm-80gb", "mi300x", "l40s",
               "rtx-4090")
_SKIP = frozenset({"steps", "citations", "assumptions", "warnings"})
# Field names the tools use, as words with their unit.
WORDS = {
    "params_b": "parameters (billions)", "per_gpu_gb": "memory (GB per GPU)",
    "total_gb": "memory of all GPUs together (GB in all)",
    "model_states_gb": "model states (GB per GPU)",
    "kv_cache_bytes_per_token": "KV cache (bytes per token)",
    "checkpoint_gb": "checkpoint (GB)", "gpu_memory_gb": "GPU memory (GB per GPU)",
    "headroom_gb": "free memory (GB per GPU)",
    "short_gb": "memory lacking (GB per GPU)", "step_time_s": "step time (s)",
    "mfu": "MFU (%)", "tokens_per_s": "throughput (tokens/s)",
    "training_days": "training time (days)", "gpu_hours": "GPU-hours",
    "usd_per_gpu_hour": "USD per GPU-hour", "usd_per_node_hour": "USD per node-hour",
    "monthly_usd": "cost (USD/month)", "hourly_usd": "cost (USD/hour)",
    "run_usd": "cost of the run (USD)", "total_usd": "cost of the period (USD)",
    "egress_usd": "egress (USD)", "egress_gb": "egress (GB)",
    "break_even_utilization": "break-even utilisation (%)",
    "hours_per_month": "hours in a month", "billed_gpus": "GPUs billed",
    "gpus_per_node": "GPUs per node", "zero_stage": "ZeRO stage",
    "micro_batch": "micro-batch (sequences)", "seq_len": "sequence length (tokens)",
    "global_batch": "global batch (sequences)", "training_steps": "training steps",
    "evaluated": "layouts evaluated", "tp": "TP", "pp": "PP", "dp": "DP", "ep": "EP",
    "gpus": "GPUs", "gpu": "GPU", "fits": "fits",
}
_UNITS = (("_gbps", "Gb/s"), ("_gb", "GB"), ("_gib", "GiB"), ("_usd", "USD"), ("_ms", "ms"),
          ("_s", "s"), ("_days", "days"), ("_hours", "hours"), ("_bytes", "bytes"))
PERCENT = frozenset({"mfu", "bubble_fraction", "utilization", "break_even_utilization"})


def words(field: str) -> str:
    """A field name as words with its unit: `dp_comm_s` -> `dp comm (s)`."""
    if field in WORDS:
        return WORDS[field]
    for suffix, unit in _UNITS:
        if field.endswith(suffix):
            return f"{field[: -len(suffix)].replace('_', ' ')} ({unit})"
    return field.replace("_", " ")


_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def in_words(text: str) -> str:
    """Field names inside a tool's sentence as words: 'master_weights: on' -> 'master
    weights: on', 'gpus_per_node: 8' -> 'GPUs per node: 8', 'on_demand' -> 'on demand'."""
    return _IDENTIFIER.sub(lambda m: words(m.group(0)), text)


def value(field: str, raw: Any) -> Any:
    """A value as shown: fractions as %, money in dollars, the rest left to the table."""
    if isinstance(raw, bool) or raw is None:
        return raw
    if isinstance(raw, int | float) and (field in PERCENT or field.endswith("_fraction")):
        return pct(raw)
    if isinstance(raw, int | float) and field.startswith("usd_per_"):
        return usd_rate(raw)  # a price per unit keeps its tenth of a cent
    if isinstance(raw, int | float) and (field.endswith("_usd") or field.startswith("usd_")):
        return usd(raw)
    if isinstance(raw, str) and field in ("workload", "kind", "recompute", "status"):
        return raw.replace("_", " ")
    if field == "break_even_utilization" and isinstance(raw, dict):
        return (f"{pct(raw['utilization'])} (reserved {pct(raw['discount'])} cheaper: "
                f"{raw['discount_from'].replace('_', ' ')})")
    if isinstance(raw, dict | list):
        return ", ".join(f"{k} {v}" for k, v in raw.items()) if isinstance(raw, dict) \
            else ", ".join(map(str, raw))
    return raw


# Each memory section says which job it sizes: an answer may size the same model two ways.
WORKLOAD_TITLES = {"pretrain": "pre-training", "full_finetune": "full fine-tuning",
                   "lora": "LoRA fine-tuning", "qlora": "QLoRA fine-tuning",
                   "inference": "serving"}


def memory_is_a_glance(data: dict[str, Any]) -> bool:
    """Beside a plan, layouts, prices or links, the memory call is the model at a glance (a
    table in the answer's text), not the memory of the cluster answered: it gets no per-GPU
    pie and its fit is not a risk."""
    kinds = {re.sub(r"[ _]?\d+$", "", str(key)) for key in data}
    return bool(kinds & {"plan", "parallelism", "pricing", "interconnect"})


def sections(data: dict[str, Any], gpu_name: Any = str) -> list[str]:
    """Markdown blocks for every tool result in an Answer's `data`, in order."""
    blocks: list[str] = []
    has_cluster = any(isinstance(v, dict) and "plans" in v for v in data.values())
    glance = memory_is_a_glance(data)
    for key, result in data.items():
        if not isinstance(result, dict):
            continue
        kind = re.sub(r"[ _]?\d+$", "", str(key))
        if kind == "memory" and glance:
            continue
        if kind == "memory" and "breakdown_gb" in result:
            blocks += memory_blocks(result, gpu_name)
        elif kind == "parallelism" and isinstance(result.get("plans"), list):
            blocks += parallelism_blocks(result, gpu_name)
        elif kind == "plan" and ("pareto" in result or "recommendation" in result):
            blocks += plan_blocks(result, gpu_name)
        elif kind == "pricing" and "offers" in result:
            blocks += pricing_blocks(result, gpu_name, for_a_cluster=has_cluster)
        elif result.get("command") is None:
            blocks += generic_blocks(str(key), result)
    return blocks


def memory_blocks(result: dict[str, Any], gpu_name: Any = str) -> list[str]:
    layout = result.get("layout") or {}
    gpus = layout.get("gpus", 1)
    where = f"{num(gpus)}× {gpu_name(result.get('gpu'))}" if result.get("gpu") else \
        f"{num(gpus)} GPU" + ("s" if gpus != 1 else "")
    shape = " · ".join(f"{k.upper()} {layout[k]}" for k in ("tp", "pp", "dp", "ep")
                       if k in layout and (k != "ep" or layout[k] != 1))
    rows: list[list[Any]] = [[term.replace("_", " "), gb]
                             for term, gb in (result.get("breakdown_gb") or {}).items()]
    rows.append(["total per GPU", result.get("per_gpu_gb")])
    workload = WORKLOAD_TITLES.get(str(result.get("workload")), "")
    blocks = [f"### Memory per GPU on {escape(where)}" + (f" ({shape})" if shape else "")
              + (f", {workload}" if workload else ""),
              table(["part", "GB per GPU"], rows)]
    if result.get("fits") is False:
        fewest = (result.get("min_gpus") or {}).get(result.get("gpu"))
        capacity = result.get("gpu_memory_gb")
        blocks.append(f"It does not fit: {num(result.get('per_gpu_gb'))} GB per GPU"
                      + (f" of {num(capacity)} GB" if capacity is not None else "")
                      + (f"; the fewest {escape(gpu_name(result.get('gpu')))} that hold it: "
                         f"{num(fewest)}." if fewest else "."))
    pie = memory_pie(result.get("breakdown_gb") or {}, f"Memory per GPU on {where} (GB)")
    if pie:
        blocks.append(pie)
    figures = ["model", "workload", "params_b", "gpu_memory_gb", "headroom_gb", "total_gb",
               "model_states_gb", "checkpoint_gb", "kv_cache_bytes_per_token"]
    stated = dict(result)
    if _number(stated.get("headroom_gb")) and stated["headroom_gb"] < 0:
        # a job that does not fit has no free memory: it lacks some, said as a positive figure
        stated["short_gb"] = -stated.pop("headroom_gb")
        figures[figures.index("headroom_gb")] = "short_gb"
    blocks += [figure_table(stated, figures)]
    fewest = result.get("min_gpus") or {}
    if fewest:
        shown = [g for g in COMMON_GPUS if g in fewest] or list(fewest)[:6]
        blocks.append("Fewest GPUs that hold it: " + ", ".join(
            f"{num(fewest[g])}× {escape(gpu_name(g))}" for g in shown) + ".")
    return blocks


def memory_pie(breakdown_gb: dict[str, Any], title: str = "Memory per GPU (GB)") -> str | None:
    """A Mermaid pie of the memory per GPU, or None when there is nothing positive to draw."""
    slices = [(k, v) for k, v in breakdown_gb.items() if _positive(v)]
    if not slices:
        return None
    return mermaid(Chart("pie", title, [k.replace("_", " ") for k, _ in slices],
                         [Series("pie", [float(v) for _, v in slices])], unit="GB"))


def parallelism_blocks(result: dict[str, Any], gpu_name: Any = str) -> list[str]:
    rows: list[list[Any]] = []
    if result.get("gpu") and result.get("gpus"):
        cluster = f"{num(result['gpus'])}× {gpu_name(result['gpu'])}"
        if result.get("nodes"):
            cluster += f" ({num(result['nodes'])} nodes of {num(result.get('gpus_per_node'))})"
        rows.append(["cluster", cluster])
    for field in ("model", "workload", "tokens", "global_batch", "seq_len", "training_steps",
                  "training_days", "gpu_hours", "evaluated"):
        if result.get(field) is not None:
            rows.append([words(field), value(field, result[field])])
    blocks = ["### The cluster and the training time", table(["figure", "value"], rows)] \
        if rows else []
    plans = result.get("plans") or []
    if plans:
        blocks += ["### The best layouts", layouts_table(plans[:TOP_LAYOUTS])]
        chart = step_time_chart(plans[:3])
        if chart:
            blocks.append(chart)
    recipe = result.get("recipe")
    if isinstance(recipe, dict) and recipe:
        blocks.append(_recipe(recipe))
    rejected = result.get("rejected") or {}
    if rejected:
        reasons = [[reason, count.get("count") if isinstance(count, dict) else count]
                   for reason, count in rejected.items()]
        blocks += ["### Layouts rejected, by reason", table(["reason", "layouts"], reasons)]
    return blocks


def layouts_table(plans: list[dict[str, Any]]) -> str:
    with_ep = any(p.get("ep", 1) != 1 for p in plans)
    fields = ["tp", "pp", "dp", *(["ep"] if with_ep else []), "zero_stage", "micro_batch",
              "recompute", "per_gpu_gb", "step_time_s", "mfu", "tokens_per_s", "training_days"]
    fields = [f for f in fields if any(p.get(f) is not None for p in plans)]
    rows = [[n, *(value(f, p.get(f)) for f in fields)] for n, p in enumerate(plans, 1)]
    return table(["rank", *(words(f) for f in fields)], rows)


def layout_name(plan: dict[str, Any]) -> str:
    """'TP 2 × PP 1 × DP 64' for training; a serving plan has replicas, not data parallelism."""
    if plan.get("dp") is None and plan.get("replicas") is not None:
        return f"TP {plan.get('tp')} × PP {plan.get('pp')}, {plural(plan['replicas'], 'replica')}"
    parts = [f"TP {plan.get('tp')}", f"PP {plan.get('pp')}", f"DP {plan.get('dp')}"]
    if plan.get("ep", 1) != 1:
        parts.append(f"EP {plan['ep']}")
    return " × ".join(parts)


def step_time_chart(plans: list[dict[str, Any]]) -> str | None:
    """Bars of the step time of each layout, split into compute, communication, bubble and
    the optimizer's update.

    Mermaid draws bar series over each other, so the series are the running totals from the
    whole step down to compute alone: what shows of each bar is one part.
    """
    parts = [p for p in plans if all(_number(p.get(k)) for k in ("compute_s", "comm_s"))]
    if not parts:
        return None
    compute = [p["compute_s"] for p in parts]
    compute_comm = [p["compute_s"] + p["comm_s"] for p in parts]
    with_bubble = [c + (p.get("bubble_s") or 0.0) for c, p in zip(compute_comm, parts,
                                                                    strict=True)]
    whole = [b + (p.get("update_s") or 0.0) for b, p in zip(with_bubble, parts, strict=True)]
    chart = Chart("xy", "Step time of the best layouts (s): compute, communication, bubble, "
                  "update", [f"#{n} {layout_name(p)}" for n, p in enumerate(parts, 1)],
                  [Series("bar", whole, "optimizer update"),
                   Series("bar", with_bubble, "bubble"),
                   Series("bar", compute_comm, "communication"),
                   Series("bar", compute, "compute")],
                  y_label="seconds per step", y_top=max(whole) * 1.1, unit="s")
    note = "; ".join(f"#{n} {layout_name(p)}: compute {num(p['compute_s'])} s, communication "
                     f"{num(p['comm_s'])} s, bubble {num(p.get('bubble_s') or 0)} s, "
                     f"update {num(p.get('update_s') or 0)} s"
                     for n, p in enumerate(parts, 1))
    return mermaid(chart) + "\n\n" + escape(f"Step-time parts: {note}.")


def _recipe(recipe: dict[str, Any]) -> str:
    name = layout_name(recipe)
    if recipe.get("found"):
        return (f"The layout you named, {name}, ranks {num(recipe.get('rank'))}: "
                f"{num(recipe.get('step_time_s'))} s per step.")
    why = recipe.get("rejected_because") or "it is not among the layouts that fit"
    return f"The layout you named, {name}, was not found: {escape(why)}."


def pricing_blocks(result: dict[str, Any], gpu_name: Any = str,
                   for_a_cluster: bool = False) -> list[str]:
    blocks: list[str] = []
    offers = result.get("offers") or []
    if offers:
        blocks += [f"### Offers (the cheapest {min(len(offers), TOP_OFFERS)} of {len(offers)})",
                   offers_table(offers[:TOP_OFFERS], gpu_name)]
    cheapest = result.get("cheapest") or {}
    rows: list[list[Any]] = []
    if cheapest:
        rows.append(["cheapest offer", f"{cheapest.get('provider')} "
                     f"{cheapest.get('product') or ''} ({_kind(cheapest.get('kind'))})".strip()])
        rows.append([words("usd_per_gpu_hour"),
                     usd_rate(cheapest.get("effective_usd_per_gpu_hour",
                                           cheapest.get("usd_per_gpu_hour")))])
    # In a training answer the cost that matters is the run's; the monthly figure there is
    # for one node of the offer, which would read as the cluster's.
    fields = ["run_usd"] if for_a_cluster and result.get("run_usd") is not None else [
        "billed_gpus", "hourly_usd", "hours_per_month", "monthly_usd", "period_hours",
        "total_usd", "break_even_utilization", "egress_gb", "egress_usd", "run_usd"]
    rows += [[words(f), value(f, result[f])] for f in fields if result.get(f) is not None]
    if rows:
        blocks += ["### Cost", table(["figure", "value"], rows)]
    chart = None if for_a_cluster else cost_chart(result)
    if chart:
        blocks.append(chart)
    return blocks


def offers_table(offers: list[dict[str, Any]], gpu_name: Any = str) -> str:
    rows = []
    for n, offer in enumerate(offers, 1):
        flags = [w for w, on in (("stale", offer.get("stale")),
                                 ("announced", offer.get("status") == "announced")) if on]
        rows.append([n, offer.get("provider"), offer.get("product") or gpu_name(offer.get("gpu")),
                     _kind(offer.get("kind")),
                     usd_rate(offer.get("effective_usd_per_gpu_hour",
                                        offer.get("usd_per_gpu_hour"))),
                     usd(offer.get("usd_per_node_hour")), offer.get("gpus_per_node"),
                     str(offer.get("verified_on") or "-") + (f" ({', '.join(flags)})"
                                                            if flags else "")])
    return table(["rank", "provider", "product", "kind", "USD per GPU-hour",
                  "USD per node-hour", "GPUs per node", "price verified"], rows)


def cost_chart(result: dict[str, Any], months: int = 12) -> str | None:
    """The monthly cost the pricing tool computed, added up month by month for a year."""
    if not _positive(result.get("monthly_usd")):
        return None
    monthly = float(result["monthly_usd"])
    points = [monthly * m for m in range(1, months + 1)]
    return mermaid(Chart("xy", "Cost against time (USD, the monthly cost month by month)",
                         [str(m) for m in range(1, months + 1)], [Series("line", points, "cost")],
                         x_label="months", y_label="USD", y_top=points[-1] * 1.05, unit="USD"))


def generic_blocks(key: str, result: dict[str, Any]) -> list[str]:
    """Any other result: its figures in words, and its lists of rows as narrow tables."""
    scalars = {k: v for k, v in result.items()
               if k not in _SKIP and not isinstance(v, dict | list) and v not in (None, "")}
    blocks = [f"### {escape(key.replace('_', ' ').capitalize())}"]
    if scalars:
        blocks.append(figure_table(scalars, list(scalars)))
    for field, rows in result.items():
        if field in _SKIP or not isinstance(rows, list) or not rows \
                or not all(isinstance(r, dict) for r in rows):
            continue
        columns = [c for c in dict.fromkeys(k for r in rows for k in r)
                   if not isinstance(rows[0].get(c), dict | list)][:8]
        blocks += [f"**{escape(words(field).capitalize())}**",
                   table([words(c) for c in columns],
                         [[value(c, r.get(c)) for c in columns] for r in rows[:10]])]
    return blocks if len(blocks) > 1 else []


def figure_table(result: dict[str, Any], fields: list[str]) -> str:
    rows = [[words(f), value(f, result[f])] for f in fields if result.get(f) is not None]
    return table(["figure", "value"], rows)


def _kind(kind: Any) -> str:
    return str(kind or "-").replace("_", "-")


def _positive(v: Any) -> bool:
    return _number(v) and v > 0


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
