"""Two GPUs side by side for a job: memory, how many hold it, and (training) cost per token."""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table, usd
from clusterplan.assistant.parsing.jobs import gpu_name, memory_payload, subject
from clusterplan.assistant.routing.cluster import _whole_nodes, parallel_payload
from clusterplan.assistant.routing.dispatch import Calls, Reply, slot
from clusterplan.db.active import catalog
from clusterplan.tools.citing import note_ref
from clusterplan.tools.contract import Step, q

# A catalog id's form-factor part: "a100-sxm-80gb", "h100-pcie", "h200-nvl".
FORM_FACTOR = re.compile(r"-(?:sxm\d?|pcie|nvl)\b")


def _spec(gpu_id: str) -> Any:
    return catalog().gpus.rows[gpu_id]


def spec_table(rows: list[Any]) -> str:
    return table(["GPU", "memory (GB)", "memory bandwidth (TB/s)", "BF16 dense TFLOP/s",
                  "FP8 dense TFLOP/s", "TDP (W)", "source note"],
                 [[r.name, r.memory_gb, r.memory_bandwidth_tb_s, r.bf16_tflops, r.fp8_tflops,
                   r.tdp_w, r.source_note] for r in rows])


def gpu_specs(intent: Intent, calls: Calls) -> Reply:
    """One GPU's datasheet figures, from its catalog row and the note behind it."""

    r = _spec(str(slot(intent, "gpu")))
    lead = (f"{r.name} has **{num(r.memory_gb)} GB** of memory at "
            f"**{num(r.memory_bandwidth_tb_s)} TB/s**, "
            + (f"{num(r.bf16_tflops)} dense BF16 TFLOP/s" if r.bf16_tflops else
               f"no BF16 tensor cores ({num(r.fp16_tflops)} dense FP16 TFLOP/s)")
            + (f" and {num(r.fp8_tflops)} dense FP8 TFLOP/s" if r.fp8_tflops else "")
            + f", {num(r.tdp_w)} W; {r.gpus_per_node} to a node.")
    rows = [r]
    if intent.slots.get("variants"):  # "SXM or PCIe?": every form factor of the family
        rows += _variants(str(slot(intent, "gpu")))
        if len(rows) > 1:
            lead += " Its other forms in the catalog: " + "; ".join(
                f"{v.name} {num(v.memory_bandwidth_tb_s)} TB/s, {num(v.tdp_w)} W"
                for v in rows[1:]) + "."
    return Reply(headline=lead, tables=[spec_table(rows)],
                 citations=[note_ref(k) for k in dict.fromkeys(v.source_note for v in rows)])


def _variants(gpu_id: str) -> list[Any]:
    """The catalog's other GPUs of the same family ("a100-pcie-40gb" beside "a100-sxm-80gb")."""
    m = FORM_FACTOR.search(gpu_id)
    if not m:
        return []
    family = gpu_id[:m.start()] + "-"
    return [row for key, row in sorted(catalog().gpus.rows.items())
            if key.startswith(family) and FORM_FACTOR.search(key) and key != gpu_id]


def _prices(intent: Intent, calls: Calls, gpus: list[str], specs: str) -> Reply:
    """Each GPU's cheapest offer for the GPUs asked (one node when no count is given)."""
    rows = []
    for gpu in gpus:
        count = slot(intent, "gpus") or _spec(gpu).gpus_per_node
        price = calls.run("pricing", {"gpu": gpu, "gpus": count, "kind": slot(intent, "kind")},
                          f"the cheapest {gpu} offer")
        offer = price.get("cheapest") or {}
        rows.append([gpu_name(gpu), count, offer.get("provider"), offer.get("kind"),
                     offer.get("effective_usd_per_gpu_hour"), price.get("monthly_usd")])
    priced = sorted((r for r in rows if r[5] is not None), key=lambda r: r[5])
    if len(priced) < 2:
        lead = "I could not price both GPUs; the table shows what is on record."
    else:
        lead = (f"**{priced[0][0]}** costs less: {usd(priced[0][5])} a month for {priced[0][1]} "
                f"GPUs against {usd(priced[1][5])} for {priced[1][1]}× {priced[1][0]} (cheapest "
                f"offers, 730 hours a month).")
    return Reply(headline=lead, tables=[table(["GPU", "GPUs", "provider", "kind", "$/GPU-hour",
                                               "$ a month"], rows), specs])


def gpu_compare(intent: Intent, calls: Calls) -> Reply:
    gpus = list(intent.slots.get("gpu_list", []))[:2]
    rows = [_spec(g) for g in gpus]
    specs = spec_table(rows)
    if not ("model" in intent.slots or "params_b" in intent.slots):
        if slot(intent, "cost"):
            return _prices(intent, calls, gpus, specs)
        if intent.slots.get("workload") in TRAINING_WORKLOADS:  # "训练速度差多少" asks compute
            return Reply(headline=_compute_sentence(rows), tables=[specs],
                         steps=[_compute_step(rows)])
        return Reply(headline=_spec_sentence(rows), tables=[specs], steps=[_spec_step(rows)])
    if slot(intent, "workload") != "inference":
        return _cost_per_token(intent, calls, gpus, specs)
    memories = [calls.run("memory", memory_payload(intent, with_gpu=False) | {"gpu": g},
                          f"the job on {g}") for g in gpus]
    fewest = [(m.get("min_gpus") or {}).get(m["gpu"]) for m in memories]
    held = "; ".join(f"**{n or 'no number of'}× {r.name}** hold it"
                     for n, r in zip(fewest, rows, strict=True))
    lead = (f"For {subject(intent, memories[0])} ({_per_gpu(memories[0])}): {held}. "
            + _spec_sentence(rows))
    return Reply(headline=lead, tables=[specs], steps=[_spec_step(rows)])


def _per_gpu(memory: dict[str, Any]) -> str:
    """The job's memory as the tool measured it: on one GPU it is the whole job, on several
    it is each GPU's share, and the words say which."""
    spread = memory["layout"]["gpus"]
    if spread == 1:
        return f"{num(memory['per_gpu_gb'])} GB on one GPU, before any sharding"
    return f"{num(memory['per_gpu_gb'])} GB per GPU when split over {spread} GPUs"


def _spec_sentence(rows: list[Any]) -> str:
    slow, fast = sorted(rows, key=lambda r: r.memory_bandwidth_tb_s)
    return (f"{fast.name} has {num(fast.memory_gb)} GB at {num(fast.memory_bandwidth_tb_s)} TB/s "
            f"against {num(slow.memory_gb)} GB at {num(slow.memory_bandwidth_tb_s)} TB/s for "
            f"{slow.name}: decoding reads the weights once per token, so it runs about "
            f"**{num(fast.memory_bandwidth_tb_s / slow.memory_bandwidth_tb_s)}×** as fast per "
            f"GPU.")


TRAINING_WORKLOADS = ("pretrain", "full_finetune", "lora", "qlora")


def _compute_sentence(rows: list[Any]) -> str:
    """Training runs on dense BF16 matmuls: the peak ratio bounds the speed-up (the
    interconnect and the MFU each GPU reaches decide how much of it a run keeps)."""
    slow, fast = sorted(rows, key=lambda r: r.bf16_tflops)
    return (f"For training, {fast.name} does {num(fast.bf16_tflops)} dense BF16 TFLOP/s against "
            f"{num(slow.bf16_tflops)} for {slow.name}: at the same MFU it trains about "
            f"**{num(fast.bf16_tflops / slow.bf16_tflops)}×** as fast per GPU (the MFU each "
            "reaches, and the links between GPUs, decide how much of that a run keeps).")


def _compute_step(rows: list[Any]) -> Step:
    return _ratio_step(rows, "bf16_tflops", "TFLOP/s", "dense BF16 peak ratio",
                       "faster peak / slower peak")


def _spec_step(rows: list[Any]) -> Step:
    return _ratio_step(rows, "memory_bandwidth_tb_s", "TB/s", "memory bandwidth ratio",
                       "faster bandwidth / slower bandwidth")


def _ratio_step(rows: list[Any], field: str, unit: str, label: str, formula: str) -> Step:
    """The two GPUs' datasheet figure `field` and its ratio, citing both datasheets."""
    slow, fast = sorted(rows, key=lambda r: getattr(r, field))
    low, high = float(getattr(slow, field)), float(getattr(fast, field))
    return Step(label=label, formula=formula,
                inputs={fast.id: q(high, unit), slow.id: q(low, unit)},
                result=q(round(high / low, 4)), notes=[slow.source_note, fast.source_note])


def _cost_per_token(intent: Intent, calls: Calls, gpus: list[str], specs: str) -> Reply:
    """Each GPU on the fewest whole nodes that hold the job: tokens/s against $/GPU-hour."""
    rows, steps = [], []
    for gpu in gpus:
        memory = calls.run("memory", memory_payload(intent, with_gpu=False, least=True)
                           | {"gpu": gpu},
                           f"the fewest {gpu} that hold the job")
        fewest = (memory.get("min_gpus") or {}).get(gpu)
        if not fewest:
            rows.append([gpu_name(gpu), "does not fit", None, None, None])
            continue
        count = _whole_nodes(fewest, gpu)
        layout = calls.run("parallelism", parallel_payload(intent, gpus=count)
                           | {"gpu": gpu}, f"the best layout on {count} {gpu}")
        price = calls.run("pricing", {"gpu": gpu, "gpus": count, "kind": "on_demand"},
                          f"the cheapest on-demand {gpu}")
        if not layout["plans"]:
            rows.append([gpu_name(gpu), count, None, None, None])
            continue
        tokens_per_s = layout["plans"][0]["tokens_per_s"]
        if not price.get("cheapest"):  # its speed is known; only its price is not
            rows.append([gpu_name(gpu), count, tokens_per_s, None, None])
            continue
        per_gpu_hour = price["cheapest"]["effective_usd_per_gpu_hour"]
        per_million = per_gpu_hour * count / (tokens_per_s * 3600) * 1e6
        steps.append(Step(label=f"cost per million tokens on {gpu}",
                          formula="$/GPU-hour × GPUs / (tokens/s × 3600 s/h) × 1e6",
                          inputs={"usd_per_gpu_hour": q(per_gpu_hour, "USD"),
                                  "gpus": q(count), "tokens_per_s": q(tokens_per_s, "tokens/s")},
                          result=q(round(per_million, 4), "USD per 1M tokens"),
                          notes=[price["cheapest"]["source_note"]]))
        rows.append([gpu_name(gpu), count, tokens_per_s, per_gpu_hour, per_million])
    priced = [r for r in rows if r[4] is not None]
    timed = [r for r in rows if r[2] is not None]
    if len(priced) < 2 and len(timed) == 2:
        fast, slow = sorted(timed, key=lambda r: -r[2])
        lead = (f"On the fewest whole nodes that hold the job, **{fast[1]}× {fast[0]}** runs "
                f"{num(fast[2])} tokens/s against {num(slow[2])} on {slow[1]}× {slow[0]} "
                f"({num(fast[2] / slow[2])}× faster; per GPU {num(fast[2] / fast[1])} against "
                f"{num(slow[2] / slow[1])} tokens/s). "
                + ", ".join(f"{r[0]} has no on-demand offer on record"
                            for r in timed if r[4] is None)
                + ", so the cost per token is not compared.")
    elif len(priced) < 2:
        lead = "I could not price both GPUs for this job; the table shows what is known."
    else:
        best, other = sorted(priced, key=lambda r: r[4])
        fast, slow = sorted(priced, key=lambda r: -r[2] / r[1])
        each, theirs = fast[2] / fast[1], slow[2] / slow[1]
        lead = (f"Per GPU, **{fast[0]}** runs {num(each)} tokens/s against {num(theirs)} on "
                f"{slow[0]} (**{num(each / theirs)}× faster**). **{best[0]}** is cheaper per "
                f"token: {usd(best[4])} per million tokens against {usd(other[4])} on "
                f"{other[0]} ({num(other[4] / best[4])}× dearer), each on the fewest whole "
                f"nodes that hold the job, at the cheapest on-demand price.")
    return Reply(headline=lead, steps=steps, tables=[
        table(["GPU", "GPUs", "tokens/s", "$/GPU-hour", "$ per 1M tokens"], rows), specs])
