"""A run's own figures from what the question reports: GPU-hours and time per step.

"42 hours on 4x8 A100s", "43 hours for 750 steps", "20 steps take 20 minutes": before any
model of the run, the figures the asker compares are plain arithmetic on what they wrote,
stated so they can be checked at a glance.
"""

from __future__ import annotations

import re

from clusterplan.assistant.answer import Answer, Intent
from clusterplan.assistant.composing.markdown import num, table
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.routing.dispatch import Reply
from clusterplan.tools.contract import Step, q

_I = re.IGNORECASE
# "750 steps", "20个steps", "30,000 iterations", "100 步"
STEPS = lazy(r"(?<![\w.])(\d[\d,]*)\s*(?:个\s*)?(?:steps?|iterations?|iters?|步)\b", _I)
# "43 hours", "20分钟", "17秒", "5h" (the time those steps took)
TIME = lazy(r"(?<![\w.])(\d+(?:\.\d+)?)\s*"
            r"(hours?|hrs?|h|minutes?|mins?|分钟|小时|seconds?|secs?|s|秒)"
            r"(?![a-z/])", _I)
TO_SECONDS = {"h": 3600.0, "hour": 3600.0, "hr": 3600.0, "小时": 3600.0, "minute": 60.0,
              "min": 60.0, "分钟": 60.0, "second": 1.0, "sec": 1.0, "s": 1.0, "秒": 1.0}
KINDS = ("training", "diagnose", "pricing", "concept")


def add_run_figures(text: str, intent: Intent, reply: Reply) -> Reply:
    """The reply with GPU-hours and seconds per step, when the question gives what they need."""
    if intent.kind not in KINDS:
        return reply
    rows: list[list[str]] = []
    gpus = intent.slots.get("gpus")
    hours = intent.slots.get("hours")
    if gpus and hours and int(gpus) > 1:
        gpu_hours = float(hours) * int(gpus)
        rows.append(["GPU-hours of the run", f"{num(hours)} h × {gpus} GPUs",
                     f"{num(gpu_hours)} GPU-hours"])
        reply.steps.append(Step(label="GPU-hours of the run", formula="hours × GPUs",
                                inputs={"hours": q(hours, "h"), "gpus": q(gpus)},
                                result=q(gpu_hours, "GPU-hours"), notes=[]))
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
    if rows:
        reply.tables.append(table(["from the question", "arithmetic", "result"], rows))
    return reply


def with_run_figures(text: str, intent: Intent, asked: Answer) -> Answer:
    """A question back that still shows the run's own arithmetic: what the model is asked for
    does not undo "43 hours for 750 steps" = 206.4 s per step."""
    found = add_run_figures(text, intent, Reply(headline=""))
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
