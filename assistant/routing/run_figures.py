"""A run's own figures from what the question reports: GPU-hours and time per step.

"42 hours on 4x8 A100s", "43 hours for 750 steps", "20 steps take 20 minutes": before any
model of the run, the figures the asker compares are plain arithmetic on what they wrote,
stated so they can be checked at a glance.
"""

from __future__ import annotations

import re

from clusterplan.assistant.answer import Answer, Intent
from clusterplan.assistant.composing.markdown import num, table, usd, usd_rate
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.quantities import TO_SECONDS
from clusterplan.assistant.routing.cluster import tokens_said
from clusterplan.assistant.routing.dispatch import Calls, Reply
from clusterplan.assistant.routing.progress import extrapolate
from clusterplan.tools.contract import Step, ToolError, q

_I = re.IGNORECASE
# "750 steps", "20个steps", "30,000 iterations", "100 步"
STEPS = lazy(r"(?<![\w.])(\d[\d,]*)\s*(?:个\s*)?(?:steps?|iterations?|iters?|步)\b", _I)
# "43 hours", "20分钟", "17秒", "5h" (the time those steps took)
TIME = lazy(r"(?<![\w.])(\d+(?:\.\d+)?)\s*"
            r"(hours?|hrs?|h|minutes?|mins?|分钟|小时|seconds?|secs?|s|秒)"
            r"(?![a-z/])", _I)
TOTAL_WORDS = lazy(r"\bof\s+(?:the\s+)?total\b|\bout\s+of\b|占(?:了)?(?:总|全部)", _I)
# A run time in hours, never a GPU's name ("256 H100s" is no 256 hours)
HOURS = lazy(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:hours?|hrs?|h|小时)(?![\w/])", _I)
# A compute budget in GPU-hours: "1.3M GPU hours", "6.4M H100 GPU-hours", "2,788K GPU hours"
GPU_HOURS = lazy(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(k|m|million|thousand)?\s*"
                 r"(?:<g\d+>\s*)?gpu[\s-]*hours?\b", _I)
GPU_HOURS_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6}
KINDS = ("training", "diagnose", "pricing", "concept", "checkpoint")
# A dataset and its passes: "230k data samples", "an epoch of 3", "3 epochs"
SAMPLES = lazy(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(k|m)?\s*(?:data\s+|training\s+)?"
               r"(?:samples?|examples?|条(?:数据|样本)?)\b", _I)
# A tqdm progress bar: "3/468 [03:25<8:51:40, 68.60s/it]" or "12/500 [00:10<06:40, 1.22it/s]"
PROGRESS_BAR = lazy(r"(?<![\w.])(\d+)/(\d+)\s*\[[\d:]+<[\d:?]+,\s*(\d+(?:\.\d+)?)\s*"
                    r"(s/it|it/s)\]", _I)
EPOCHS = lazy(r"\b(?:epochs?\s*(?:of|=|:)?\s*(\d+)|(\d+)\s*epochs?)\b", _I)
# What a step takes: "per_device_train_batch_size 4", "gradient_accumulation_steps = 8";
# "Both per_device_train_batch_size and gradient_accumulation_steps are set to 1"
BOTH_ONE = lazy(r"\bboth\s+per_device_train_batch_size\s+and\s+gradient_accumulation_steps"
                r"\s+are\s+(?:set\s+to\s+)?(\d+)", _I)
PER_DEVICE = lazy(r"\bper_device_train_batch_size\s*(?:=|:|is|of|to)?\s*(\d+)", _I)
ACCUMULATION = lazy(r"\bgradient_accumulation_steps\s*(?:=|:|is|of|to)?\s*(\d+)", _I)


def add_run_figures(text: str, intent: Intent, reply: Reply,
                    calls: Calls | None = None) -> Reply:
    """The reply with GPU-hours and seconds per step, when the question gives what they need."""
    if intent.kind not in KINDS:
        return reply
    rows: list[list[str]] = []
    gpus = intent.slots.get("gpus")
    for hours in _run_hours(text, intent.slots.get("hours")) if gpus and int(gpus) > 1 else []:
        gpu_hours = float(hours) * int(gpus)
        rows.append(["GPU-hours of the run", f"{num(hours)} h × {gpus} GPUs",
                     f"{num(gpu_hours)} GPU-hours"])
        reply.steps.append(Step(label="GPU-hours of the run", formula="hours × GPUs",
                                inputs={"hours": q(hours, "h"), "gpus": q(gpus)},
                                result=q(gpu_hours, "GPU-hours"), notes=[]))
        rows += _priced(intent, gpu_hours, reply, calls)
    for steps_m in STEPS.finditer(text):
        steps = int(steps_m[1].replace(",", ""))
        time_m = _nearest_time(text, steps_m.start(), steps_m.end())
        if steps <= 0 or time_m is None:
            continue
        seconds = float(time_m[1]) * _unit(time_m[2])
        per_step = seconds / steps
        rows.append(["time per step", f"{time_m[0].strip()} ÷ {steps:,} steps",
                     f"{num(per_step)} s"])
        reply.steps.append(Step(label="time per step", formula="time ÷ steps",
                                inputs={"time": q(seconds, "s"), "steps": q(steps)},
                                result=q(round(per_step, 4), "s"), notes=[]))
    rows += _wall_clock(text, gpus, reply, calls)
    rows += _progress_bar(text, intent, reply)
    rows += _dataset_steps(text, intent, reply)
    rows += _share_of_total(text, reply)
    pace = extrapolate(intent)
    if pace:
        rows += pace.rows
        reply.steps += pace.steps
    if rows:
        reply.tables.append(table(["from the question", "arithmetic", "result"], rows))
    return reply


def _priced(intent: Intent, gpu_hours: float, reply: Reply,
            calls: Calls | None) -> list[list[str]]:
    """"Trying to gauge how much this will cost": the run's GPU-hours at the cheapest on-demand
    offer on record for its GPU (the provider named, when it lists one)."""
    gpu = intent.slots.get("gpu")
    if not intent.slots.get("cost") or not gpu or calls is None:
        return []
    payload = {"gpu": gpu, "kind": "on_demand"}
    named = intent.slots.get("provider")
    try:
        price = calls.run("pricing", payload | ({"provider": named} if named else {}),
                          "the run's GPU-hours priced", aside=True)
        if not price.get("cheapest") and named:
            price = calls.run("pricing", payload, "the run's GPU-hours priced", aside=True)
    except (ToolError, ValueError, LookupError):
        return []
    cheapest = price.get("cheapest")
    if not cheapest:
        return []
    rate = float(cheapest["effective_usd_per_gpu_hour"])
    cost = gpu_hours * rate
    reply.steps.append(Step(label="cost of the run's GPU-hours", formula="GPU-hours × $/GPU-hour",
                            inputs={"GPU-hours": q(gpu_hours, "GPU-hours"),
                                    "rate": q(rate, "USD per GPU-hour")},
                            result=q(round(cost, 2), "USD"), notes=[cheapest["source_note"]]))
    stale = f" (price of {cheapest['verified_on']}: may be out of date)" if cheapest.get("stale") \
        else ""
    return [[f"cost at {cheapest['provider']}'s on-demand rate{stale}",
             f"{num(gpu_hours)} GPU-hours × {usd_rate(rate)}", usd(cost)]]


def _wall_clock(text: str, gpus: int | None, reply: Reply,
                calls: Calls | None) -> list[list[str]]:
    """"1.3M GPU hours ... 24,576 GPUs": the days those GPU-hours take when every GPU named
    runs at once, the figure such a question checks."""
    if not gpus or int(gpus) < 2:
        return []
    rows = []
    for m in GPU_HOURS.finditer(text):
        gpu_hours = float(m[1].replace(",", "")) * GPU_HOURS_SCALE.get((m[2] or "").lower(), 1)
        if gpu_hours <= 0:
            continue
        hours = gpu_hours / int(gpus)
        rows.append(["wall-clock time on all the GPUs", f"{num(gpu_hours)} GPU-hours ÷ "
                     f"{int(gpus):,} GPUs", f"{num(hours)} h ({num(hours / 24)} days)"])
        reply.steps.append(Step(label="wall-clock time on all the GPUs", formula="GPU-hours ÷ "
                                "GPUs", inputs={"gpu_hours": q(gpu_hours, "GPU-hours"),
                                                "gpus": q(gpus)},
                                result=q(round(hours, 2), "h"), notes=[]))
        rows += _tokens_of_gpu_hours(gpu_hours, int(gpus), hours, reply, calls)
    return rows


def _tokens_of_gpu_hours(gpu_hours: float, gpus: int, hours: float, reply: Reply,
                         calls: Calls | None) -> list[list[str]]:
    """The tokens quoted GPU-hours train at the pace of the layout the answer found: "1.3M
    GPU-hours" checks against a token count, which the estimate may have had to assume."""
    timed = [c.data for c in calls.made if c.name == "parallelism" and not c.aside] \
        if calls else []
    if not timed or not timed[0].get("tokens") or not timed[0].get("gpu_hours"):
        return []
    tokens_run, spent = float(timed[0]["tokens"]), float(timed[0]["gpu_hours"])
    tokens = gpu_hours * tokens_run / spent
    reply.steps.append(Step(label="tokens the quoted GPU-hours train at this pace",
                            formula="quoted GPU-hours × tokens ÷ the estimate's GPU-hours",
                            inputs={"gpu_hours": q(gpu_hours, "GPU-hours"),
                                    "tokens": q(tokens_run, "tokens"),
                                    "estimate": q(spent, "GPU-hours")},
                            result=q(tokens, "tokens"), notes=[]))
    reply.headline = (f"The quoted {num(gpu_hours)} GPU-hours on all {gpus:,} GPUs are "
                      f"**{num(hours)} hours** of wall clock; at the pace of the layout below "
                      f"they train about **{tokens_said(tokens)} tokens** (the estimate below "
                      f"is for {tokens_said(tokens_run)}). " + reply.headline)
    return [["tokens they train at the layout's pace", f"{num(gpu_hours)} GPU-hours × "
             f"{tokens_said(tokens_run)} tokens ÷ {num(spent)} GPU-hours",
             f"{tokens_said(tokens)} tokens"]]


def _progress_bar(text: str, intent: Intent, reply: Reply) -> list[list[str]]:
    """"3/468 [03:25<8:51:40, 68.60s/it]": the whole run at the bar's pace, and the time a step
    would take for each run time the question states ("~3 hours" is 23.1 s a step over 468),
    so the gap between them is a ratio the asker can read."""
    m = PROGRESS_BAR.search(text)
    if m is None or int(m[2]) <= 0 or float(m[3]) <= 0:
        return []
    total, rate = int(m[2]), float(m[3])
    per_step = rate if m[4].lower() == "s/it" else 1 / rate
    hours = total * per_step / 3600
    rows = [["whole run at the progress bar's pace", f"{total:,} steps × {num(per_step)} s",
             f"{num(hours)} h"]]
    reply.steps.append(Step(label="whole run at the progress bar's pace", formula="steps × "
                            "seconds per step", inputs={"steps": q(total),
                                                        "per_step": q(per_step, "s")},
                            result=q(round(hours, 3), "h"), notes=[]))
    for stated in _run_hours(text, intent.slots.get("hours")):
        implied = stated * 3600 / total
        ratio = num(per_step / implied)
        rows.append([f"time per step if the run took {num(stated)} h",
                     f"{num(stated)} h × 3600 ÷ {total:,} steps",
                     f"{num(implied)} s (the bar's {num(per_step)} s is {ratio}×)"])
        reply.steps.append(Step(label="time per step a stated run time implies",
                                formula="hours × 3600 ÷ steps",
                                inputs={"hours": q(stated, "h"), "steps": q(total)},
                                result=q(round(implied, 3), "s"), notes=[]))
    return rows


def _dataset_steps(text: str, intent: Intent, reply: Reply) -> list[list[str]]:
    """Optimizer steps of the run from its dataset (samples × epochs ÷ samples per step) and,
    with the run's stated hours, the time each step takes. A batch or accumulation the
    question does not give is taken as 1 and said so."""
    samples_m, epochs_m = SAMPLES.search(text), EPOCHS.search(text)
    gpus, hours = intent.slots.get("gpus"), intent.slots.get("hours")
    if not (samples_m and epochs_m and gpus):
        return []
    samples = float(samples_m[1].replace(",", "")) * {"k": 1e3, "m": 1e6}.get(
        (samples_m[2] or "").lower(), 1.0)
    epochs = int(epochs_m[1] or epochs_m[2])
    both = BOTH_ONE.search(text)
    per_device = int(both[1]) if both else _int(PER_DEVICE.search(text))
    accumulation = int(both[1]) if both else _int(ACCUMULATION.search(text))
    if per_device is None or accumulation is None:
        reply.assumptions.append("per-device batch and gradient accumulation: 1 each where the "
                                 "question does not give them")
    per_step = int(gpus) * (per_device or 1) * (accumulation or 1)
    steps = samples * epochs / per_step
    if samples <= 0 or epochs <= 0 or steps <= 0:
        return []
    rows = [["optimizer steps", f"{num(samples)} samples × {epochs} epochs ÷ ({gpus} GPUs × "
             f"batch {per_device or 1} × accumulation {accumulation or 1})", f"{num(steps)}"]]
    reply.steps.append(Step(label="optimizer steps", formula="samples × epochs ÷ (GPUs × "
                            "per-device batch × accumulation)",
                            inputs={"samples": q(samples), "epochs": q(epochs), "gpus": q(gpus)},
                            result=q(round(steps), "steps"), notes=[]))
    if hours:
        seconds = float(hours) * 3600 / steps
        rows.append(["time per step the run implies", f"{num(hours)} h × 3600 ÷ {num(steps)} "
                     "steps", f"{num(seconds)} s"])
        reply.steps.append(Step(label="time per step the run implies", formula="hours × 3600 ÷ "
                                "steps", inputs={"hours": q(hours, "h"), "steps": q(steps)},
                                result=q(round(seconds, 3), "s"), notes=[]))
    return rows


def _share_of_total(text: str, reply: Reply) -> list[list[str]]:
    """"The whole save takes 427 s; one call takes 373 s, 87% of the total": the part's share
    of the whole, worked out from the two times the question gives."""
    if not TOTAL_WORDS.search(text):
        return []
    times = [(m[0].strip(), float(m[1]) * _unit(m[2])) for m in TIME.finditer(text)]
    times = [(said, sec) for said, sec in times if sec > 0]
    if len(times) != 2:
        return []
    (whole_said, whole), (part_said, part) = sorted(times, key=lambda t: -t[1])
    share = part / whole
    reply.steps.append(Step(label="share of the total time", formula="part ÷ whole",
                            inputs={"part": q(part, "s"), "whole": q(whole, "s")},
                            result=q(round(100 * share, 2), "%"), notes=[]))
    return [["share of the total time", f"{part_said} ÷ {whole_said}",
             f"{100 * share:.1f}%"]]


def _int(m: re.Match[str] | None) -> int | None:
    return int(m[1]) if m and int(m[1]) > 0 else None


def _run_hours(text: str, first: float | None) -> list[float]:
    """Every run time given in hours ("vicuna-7b took 12 hours, llama3-8b 42 hours"), each
    once; the hours read for the question first."""
    found = [float(m[1]) for m in HOURS.finditer(text)]
    if first:
        found.insert(0, float(first))
    return list(dict.fromkeys(h for h in found if h > 0))[:4]


def with_run_figures(text: str, intent: Intent, asked: Answer) -> Answer:
    """A question back that still shows the run's own arithmetic: what the model is asked for
    does not undo "43 hours for 750 steps" = 206.4 s per step."""
    found = add_run_figures(text, intent, Reply(headline=""), Calls())
    if not found.tables:
        return asked
    markdown = asked.markdown + "\n\nFrom the question meanwhile:\n\n" + "\n\n".join(found.tables)
    return asked.model_copy(update={"markdown": markdown, "trace": [*asked.trace, *found.steps]})


def _nearest_time(text: str, start: int, end: int) -> re.Match[str] | None:
    """The duration written within a few words of a step count (before or after it)."""
    near = [m for m in TIME.finditer(text) if abs(m.start() - end) <= 25
            or abs(start - m.end()) <= 25]
    return min(near, key=lambda m: min(abs(m.start() - end), abs(start - m.end())),
               default=None)


def _unit(word: str) -> float:
    word = word.lower()
    if word in TO_SECONDS:
        return TO_SECONDS[word]
    return TO_SECONDS.get(word.rstrip("s"), 1.0)
