"""Several models named in one question, each sized the same way and shown side by side.

"Suitable VRAM for 7, 13, 70b models", "Llama 3.1 70B and 405B at 120K context": the first
model gets the full answer; every model named gets one row of the same figures (the same
workload, precision, context and GPUs), so none of them is dropped.
"""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, pct, table, usd
from clusterplan.assistant.parsing.jobs import gpu_name, memory_payload
from clusterplan.assistant.routing.cluster import parallel_payload, price_run, tokens_said
from clusterplan.assistant.routing.dispatch import Calls, Reply, model_fields
from clusterplan.assistant.routing.memory import in_nodes
from clusterplan.db.active import catalog
from clusterplan.figures import days
from clusterplan.tools.contract import ToolError

KINDS = ("memory", "fit", "cluster_size", "serving", "checkpoint", "layout", "plan")


def add_side_by_side(intent: Intent, calls: Calls, reply: Reply) -> Reply:
    """The reply with a row per model named, when the question names several, and a row per
    end of a range of GPU counts ("4-8 A10G")."""
    reply = _count_range(intent, calls, _gpu_kinds(intent, calls, reply))
    reply = _zero_stages(intent, calls, reply)
    reply = _methods(intent, calls, reply)
    reply = _setups(intent, calls, reply)
    listed = intent.slots.get("model_list") or []
    if len(listed) >= 2 and intent.kind == "training":
        return _models_trained(intent, calls, reply, listed)
    if len(listed) < 2 or intent.kind not in KINDS:
        return reply
    rows, said = [], []
    base = memory_payload(intent, least=intent.kind != "memory")
    base = {k: v for k, v in base.items() if k not in ("model", "params_b", "config")}
    if intent.kind in ("serving", "layout", "plan", "cluster_size"):
        base.pop("gpus", None)  # each model's own fewest GPUs, not the first model's count
    for entry in listed:
        try:
            result = calls.run("memory", {**base, **entry}, f"the same job for {_name(entry)}")
        except (ToolError, ValueError, LookupError) as exc:
            said.append(f"{_name(entry)} could not be sized: {exc}")
            continue
        rows.append(_row(result))
        said.append(_said(entry, result, intent.slots.get("gpus_per_node")))
    if not rows:
        return reply
    gpu = rows[0][-1]
    head = ["model", "params (B)", "weights (GB)", "model states, whole (GB)",
            "KV cache per token (bytes)", "per GPU (GB)", f"fewest {gpu}"]
    reply.tables.insert(0, table(head, [r[:-1] for r in rows]))
    reply.headline += (f" Side by side, the {len(rows)} models named (same job, one GPU "
                       f"unless sharded): " + "; ".join(said) + ".")
    return reply


def _row(result: dict[str, Any]) -> list[Any]:
    gpu = result.get("gpu") or "h100-sxm"
    fewest = (result.get("min_gpus") or {}).get(gpu)
    whole = result.get("whole_model_gb") or {}
    return [_name({"model": result["model"]}) if result["model"] in catalog().models.rows
            else f"{result['params_b']:g}B", result["params_b"],
            whole.get("weights", result["breakdown_gb"]["weights"]),
            whole.get("model_states") if result["workload"] != "inference" else "-",
            result["kv_cache_bytes_per_token"],
            result["per_gpu_gb"], fewest if fewest is not None else "none fits",
            gpu_name(gpu)]


def _said(entry: dict[str, Any], result: dict[str, Any], per_node: int | None) -> str:
    """'Llama 3.1 405B 924 GB, fewest 16 (2 nodes of 8)': the size and the count asked for."""
    said = f"{_name(entry)} {num(result['per_gpu_gb'])} GB"
    fewest = (result.get("min_gpus") or {}).get(result.get("gpu") or "h100-sxm")
    if fewest:
        said += f", fewest {fewest}" + in_nodes(fewest, per_node)
    return said


def _name(entry: dict[str, Any]) -> str:
    rows = catalog().models.rows
    if "model" in entry:
        return rows[entry["model"]].name if entry["model"] in rows else str(entry["model"])
    active = f" ({entry['active_params_b']:g}B active)" if entry.get("active_params_b") else ""
    size = f"{entry['params_b']:g}"
    article = "an" if re.match(r"8|11(?!\d)|18(?!\d)", size) else "a"  # "an 80B", "an 11B"
    return f"{article} {size}B model{active}"


def _zero_stages(intent: Intent, calls: Calls, reply: Reply) -> Reply:
    """"ZeRO-2 vs ZeRO-3 for a 13B model on 8 A100": the same job at each stage named."""
    stages = intent.slots.get("zero_stages") or []
    if len(stages) < 2 or intent.kind not in KINDS or not any(
            k in intent.slots for k in ("model", "params_b", "config")):
        return reply
    return _fits_on(intent, calls, reply, [(f"ZeRO-{z}", {"zero_stage": z}) for z in stages],
                    "ZeRO stage", "Stage by stage")


METHOD_NAMES = {"full_finetune": "full fine-tuning", "lora": "LoRA", "qlora": "QLoRA"}
FOUR_BIT = ("int4", "nf4", "gptq", "awq")


def _methods(intent: Intent, calls: Calls, reply: Reply) -> Reply:
    """"Full fine-tune or LoRA, what hardware?": each tuning method named, sized with the
    answer's own settings, a row each: its memory and the fewest GPUs that hold it."""
    methods = intent.slots.get("workload_list") or []
    if len(methods) >= 2 and intent.kind == "training" and any(
            k in intent.slots for k in ("model", "params_b", "config")):
        return _methods_trained(intent, calls, reply, methods)
    if len(methods) < 2 or intent.kind not in ("memory", "fit", "cluster_size") or not any(
            k in intent.slots for k in ("model", "params_b", "config")):
        return reply
    sharded = bool(intent.slots.get("gpus"))
    rows, said = [], []
    for workload in methods:
        payload = memory_payload(intent, least=intent.kind != "memory") | {
            "workload": workload, "precision": _base(intent, workload)}
        name = METHOD_NAMES[workload]
        try:
            result = calls.run("memory", payload, f"the same model by {name}")
        except (ToolError, ValueError, LookupError) as exc:
            said.append(f"{name} could not be sized: {exc}")
            continue
        gpu = result.get("gpu") or "h100-sxm"
        fewest = (result.get("min_gpus") or {}).get(gpu)
        fits = result.get("fits")
        rows.append([name, result["per_gpu_gb"], fewest or "none fits"]
                    + (["yes" if fits else "no"] if sharded else []))
        said.append(f"{name} {num(result['per_gpu_gb'])} GB" + (" per GPU" if sharded else "")
                    + (f", fewest {fewest} {gpu_name(gpu)}" if fewest else ", none fits"))
    if len(rows) >= 2:
        head = ["method", "per GPU (GB)" if sharded else "on one GPU, unsharded (GB)",
                "fewest GPUs that hold it"] + (["fits"] if sharded else [])
        reply.tables.insert(0, table(head, rows))
        reply.headline += " Each method named, same settings: " + "; ".join(said) + "."
    return reply


def _methods_trained(intent: Intent, calls: Calls, reply: Reply, methods: list[str]) -> Reply:
    """"Full fine-tune or LoRA?" of a timed run: each method on the same tokens and GPUs, its
    best layout, time, GPU-hours and, when a cost was asked, its price."""
    rows, said = [], []
    for workload in methods:
        payload = parallel_payload(intent) | {"workload": workload}
        if base := _base(intent, workload):
            payload["precision"] = base
        name = METHOD_NAMES.get(workload, workload)
        try:
            run = calls.run("parallelism", payload, f"the same run by {name}")
        except (ToolError, ValueError, LookupError) as exc:
            said.append(f"{name} could not be timed: {exc}")
            continue
        if not run.get("plans") or not run.get("training_days"):
            rows.append([name, "no layout fits", "-", "-", "-"])
            said.append(f"{name}: no layout fits {run['gpus']} GPUs")
            continue
        best = run["plans"][0]
        price = price_run(intent, calls, run) if intent.slots.get("cost") else {}
        cost = usd(price["run_usd"]) if price.get("run_usd") else "-"
        rows.append([name, f"tp {best['tp']} pp {best['pp']} dp {best['dp']}",
                     days(run["training_days"]), num(run["gpu_hours"]), cost])
        said.append(f"{name} {days(run['training_days'])}" + (f", {cost}" if cost != "-" else ""))
    if len(rows) >= 2:
        reply.tables.insert(0, table(["method", "best layout", "time", "GPU-hours", "cost"],
                                     rows))
        reply.headline = ("Each method named, same tokens and GPUs: " + "; ".join(said) + ". "
                          + reply.headline)
    return reply


def _base(intent: Intent, workload: str) -> str | None:
    """The base weights' precision for a method: QLoRA's 4-bit base (NF4 unless a 4-bit format
    was named), the 16-bit one otherwise."""
    precision = intent.slots.get("precision")
    if workload == "qlora":
        return precision if precision in FOUR_BIT else "nf4"
    return None if precision in FOUR_BIT else precision


def _count_range(intent: Intent, calls: Calls, reply: Reply) -> Reply:
    """The same job at each end of a range of GPU counts: the answer is at the fewest."""
    span = intent.slots.get("gpus_range") or []
    if len(span) != 2 or intent.kind not in KINDS or not any(
            k in intent.slots for k in ("model", "params_b", "config")):
        return reply
    return _fits_on(intent, calls, reply, [(gpus, {"gpus": gpus}) for gpus in span], "GPUs",
                    f"Across the range {span[0]}-{span[1]} GPUs asked")


def _fits_on(intent: Intent, calls: Calls, reply: Reply, clusters: list[tuple[Any, dict]],
             column: str, lead: str) -> Reply:
    """The job's memory on each cluster named (a count, or a GPU kind with its count), a row
    each: per GPU, the GPU's memory and whether it fits."""
    rows, said = [], []
    for label, given in clusters:
        payload = memory_payload(intent, least=intent.kind != "memory") | given
        named = (f"{label} GPU" + ("s" if label != 1 else "")) if isinstance(label, int) \
            else str(label)
        try:
            result = calls.run("memory", payload, f"the same job on {named}")
        except (ToolError, ValueError, LookupError) as exc:
            said.append(f"{named} could not be sized: {exc}")
            continue
        fits = result.get("fits")
        rows.append([label, result["per_gpu_gb"], result.get("gpu_memory_gb"),
                     "yes" if fits else "no" if fits is False else "-"])
        said.append(f"{named}: {num(result['per_gpu_gb'])} GB per GPU"
                    + ("" if fits is None else ", fits" if fits else ", does not fit"))
    if rows:
        reply.tables.insert(0, table([column, "per GPU (GB)", "GPU memory (GB)", "fits"], rows))
        reply.headline += f" {lead}: " + "; ".join(said) + "."
    return reply


def _gpu_kinds(intent: Intent, calls: Calls, reply: Reply) -> Reply:
    """A training time asked on "32 A100/H100 GPUs": the same run on each GPU kind named, so
    the second kind is not dropped."""
    kinds = list(dict.fromkeys(intent.slots.get("gpu_list") or []))
    if len(kinds) < 2 or intent.kind != "training":
        return reply
    rows, said = [], []
    for gpu in kinds:
        payload = parallel_payload(intent) | {"gpu": gpu}
        try:
            result = calls.run("parallelism", payload, f"the same run on {gpu_name(gpu)}")
        except (ToolError, ValueError, LookupError) as exc:
            said.append(f"{gpu_name(gpu)} could not be sized: {exc}")
            continue
        days = result.get("training_days")
        best = (result.get("plans") or [{}])[0]
        cost = _run_cost(calls, intent, result) if days else None
        rows.append([gpu_name(gpu), result["gpus"], days if days else "no layout",
                     result.get("gpu_hours") or "-", pct(best["mfu"]) if "mfu" in best else "-",
                     usd(cost[0]) if cost else "-", cost[1] if cost else "-"])
        said.append(f"{gpu_name(gpu)} {num(days)} days" + (f", {usd(cost[0])}" if cost else "")
                    if days else f"{gpu_name(gpu)}: no layout fits")
    if len(rows) >= 2:
        reply.tables.insert(0, table(["GPU", "GPUs", "days", "GPU-hours", "MFU",
                                      "cost of the run", "cheapest offer"], rows))
        reply.headline += " Each GPU kind named, same run: " + "; ".join(said) + "."
    return reply


def _run_cost(calls: Calls, intent: Intent, result: dict[str, Any]) -> tuple[float, str] | None:
    """The run's price and provider, or None when no offer prices it."""
    try:
        price = price_run(intent, calls, result)
    except (ToolError, ValueError, LookupError):
        return None
    cheapest = price.get("cheapest")
    if not cheapest or not price.get("run_usd"):
        return None
    return float(price["run_usd"]), str(cheapest["provider"])


def _setups(intent: Intent, calls: Calls, reply: Reply) -> Reply:
    """The job on each setup named with its own count ("8*A100 ... 4*A6000")."""
    kinds, counts = intent.slots.get("gpu_list") or [], intent.slots.get("gpu_counts") or []
    if intent.kind != "fit" or len(counts) < 2 or len(counts) != len(kinds):
        return reply
    clusters = [(f"{gpus}× {gpu_name(gpu)}", {"gpu": gpu, "gpus": gpus})
                for gpu, gpus in zip(kinds, counts, strict=True)]
    return _fits_on(intent, calls, reply, clusters, "setup", "Each setup named, same job")


def _models_trained(intent: Intent, calls: Calls, reply: Reply,
                    listed: list[dict[str, Any]]) -> Reply:
    """"Qwen 235B A22 vs Qwen 32B dense, how many more GPU-hours on the same data": each model
    trained on the same tokens at the same sequence length, a row each, and the comparison put
    first since it is what was asked. Per token the cost is the model FLOPs (6·N of the active
    parameters, plus attention, which grows with the sequence), and the GPU-hours follow from
    them and the MFU each model's best layout reaches; a model too big for the GPUs asked is
    timed on the smallest cluster that holds it."""
    base = parallel_payload(intent)
    base = {k: v for k, v in base.items() if k not in model_fields(intent)}
    runs: list[tuple[str, dict[str, Any]]] = []
    failed: list[str] = []
    for entry in listed:
        run = _trained(calls, base, entry)
        if isinstance(run, str):
            failed.append(run)
        else:
            runs.append((_name(entry), run))
    if len({round(run["model_flops_per_token"], -6) for _, run in runs}) < 2:
        return reply  # one architecture under several names (DeepSeek-V3 and -R1): no contrast
    reply.tables.insert(0, table(
        ["model", "active params (B)", "6·N (GFLOP)", "attention (GFLOP)", "per token (GFLOP)",
         "GPUs", "best layout", "MFU", "GPU-hours"], [_trained_row(run) for _, run in runs]))
    seq_len = runs[0][1].get("seq_len")
    tokens = runs[0][1].get("tokens")
    lead = (f"Trained on the same {tokens_said(tokens)} tokens" if tokens else "Trained alike")
    lead += f" at {seq_len:,}-token sequences: " if seq_len else ": "
    lead += "; ".join(_per_token_said(name, run) for name, run in runs) + ". "
    (name, run), others = runs[0], runs[1:]
    lead += " ".join(_ratio_said(name, run, other, theirs) for other, theirs in others)
    reply.headline = " ".join([lead, *failed, reply.headline])
    return reply


def _weights_flops(run: dict[str, Any]) -> float:
    """The 6·N part of a run's model FLOPs per token (4·N when the weights are frozen)."""
    per_param = 4 if run["workload"] in ("lora", "qlora") else 6
    return per_param * float(run["active_params_b"]) * 1e9


def _trained_row(run: dict[str, Any]) -> list[Any]:
    best = (run.get("plans") or [{}])[0]
    flops, weights = run["model_flops_per_token"], _weights_flops(run)
    return [_name({"model": run["model"]}) if run["model"] in catalog().models.rows
            else run["model"], run["active_params_b"], num(weights / 1e9),
            num((flops - weights) / 1e9), num(flops / 1e9), run["gpus"],
            _layout(best) if best else "no layout", pct(best["mfu"]) if best else "-",
            num(run["gpu_hours"]) if run.get("gpu_hours") else "-"]


def _per_token_said(name: str, run: dict[str, Any]) -> str:
    flops, weights = run["model_flops_per_token"], _weights_flops(run)
    return (f"{name} costs {num(flops / 1e9)} GFLOP a token ({num(weights / 1e9)} GFLOP for "
            f"its {run['active_params_b']:g}B active parameters, "
            f"{num((flops - weights) / 1e9)} GFLOP for attention)")


def _ratio_said(name: str, run: dict[str, Any], other: str, theirs: dict[str, Any]) -> str:
    said = (f"{name} needs **{run['model_flops_per_token'] / theirs['model_flops_per_token']:.2f}"
            f"×** the compute a token of {other}")
    if run.get("gpu_hours") and theirs.get("gpu_hours"):
        said += (f", and **{run['gpu_hours'] / theirs['gpu_hours']:.2f}×** its GPU-hours at each "
                 f"one's best layout ({num(run['gpu_hours'])} against "
                 f"{num(theirs['gpu_hours'])}, at {pct(run['plans'][0]['mfu'])} and "
                 f"{pct(theirs['plans'][0]['mfu'])} MFU)")
    return said + "."


def _trained(calls: Calls, base: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any] | str:
    """One model's run on the GPUs asked, or on the smallest cluster that holds it; a line
    saying why when it cannot be timed."""
    name = _name(entry)
    try:
        run = calls.run("parallelism", {**base, **entry}, f"the same run for {name}")
        small = run.get("smallest_cluster")
        if not run["plans"] and small:
            run = calls.run("parallelism", {**base, **entry, "gpus": small["gpus"]},
                            f"the same run for {name} on the smallest cluster that holds it")
    except (ToolError, ValueError, LookupError) as exc:
        return f"{name} could not be timed: {exc}"
    if not run.get("model_flops_per_token"):
        return f"{name} could not be timed"
    return run


def _layout(plan: dict[str, Any]) -> str:
    return f"tp {plan['tp']} pp {plan['pp']} dp {plan['dp']}" + "".join(
        f" {part} {plan[part]}" for part in ("ep", "cp") if plan.get(part, 1) > 1)
