"""A run's remaining time from its own pace: "30mins for 0.01 epochs, how long will it take?".

The asker has measured the one figure no model can predict better: how long a known share of
their run took on their hardware. The whole epoch (or run) is that time over that share, plain
arithmetic shown step by step; the hours they have (a day rented) are set against it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from clusterplan.assistant.answer import Intent
from clusterplan.tools.contract import Step, q


@dataclass
class Extrapolation:
    """What the run's pace says: one sentence, the table's rows and the steps behind them."""

    headline: str
    rows: list[list[str]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)


def extrapolate(intent: Intent) -> Extrapolation | None:
    """The whole epoch (or run) at the pace the question reports, or None when it reports none."""
    slots = intent.slots
    done, elapsed_s = slots.get("progress_done"), slots.get("progress_s")
    if not done or not elapsed_s:
        return None
    done, elapsed_h = float(done), float(elapsed_s) / 3600
    whole = "one epoch" if slots.get("progress_of") == "epoch" else "the whole run"
    share = f"{done:g} epoch" if whole == "one epoch" else f"{100 * done:g}% of the run"
    whole_h = elapsed_h / done
    out = Extrapolation(headline=f"At {_span(elapsed_h)} for {share}, {whole} takes about "
                                 f"**{_span(whole_h)}**")
    out.rows.append([f"{whole} at this pace", f"{_span(elapsed_h)} ÷ {share}", _span(whole_h)])
    out.steps.append(Step(label=f"{whole} at the run's pace", formula="elapsed time ÷ share done",
                          inputs={"elapsed": q(round(elapsed_h, 4), "h"), "share done": q(done)},
                          result=q(round(whole_h, 3), "h")))
    total_h = whole_h
    epochs = int(slots.get("epochs") or 1)
    if whole == "one epoch" and epochs > 1:
        total_h = whole_h * epochs
        out.headline += f"; {epochs} epochs take **{_span(total_h)}**"
        out.rows.append([f"{epochs} epochs", f"{_span(whole_h)} × {epochs}", _span(total_h)])
        out.steps.append(Step(label=f"{epochs} epochs at the run's pace",
                              formula="one epoch × epochs",
                              inputs={"one epoch": q(round(whole_h, 3), "h"), "epochs": q(epochs)},
                              result=q(round(total_h, 3), "h")))
    left_h = max(total_h - elapsed_h, 0.0)
    if left_h > 0:
        out.rows.append(["still to go", f"{_span(total_h)} − {_span(elapsed_h)}",
                         _span(left_h)])
        out.headline += f", {_span(left_h)} still to go."
    else:
        out.headline += "."
    _against_hours(intent, total_h, whole if epochs == 1 else f"{epochs} epochs", out)
    return out


def _against_hours(intent: Intent, total_h: float, whole: str, out: Extrapolation) -> None:
    """The hours the asker has ("renting a 4090 for 1 day") set against the time needed."""
    have_h = intent.slots.get("hours")
    if not have_h or float(have_h) <= 0:
        return
    have_h = float(have_h)
    covered = have_h / total_h
    out.rows.append([f"share of {whole} the {_span(have_h)} cover", f"{_span(have_h)} ÷ "
                     f"{_span(total_h)}", f"{100 * covered:.0f}%"])
    out.steps.append(Step(label=f"share of {whole} the time you have covers",
                          formula="time you have ÷ time needed",
                          inputs={"have": q(have_h, "h"), "needed": q(round(total_h, 3), "h")},
                          result=q(round(100 * covered, 1), "%")))
    if covered >= 1:
        out.headline += f" The {_span(have_h)} you have are enough ({100 * covered:.0f}% of it)."
    else:
        days = math.ceil(total_h / 24)
        out.headline += (f" The {_span(have_h)} you have cover {100 * covered:.0f}% of it, so "
                         f"plan for {days} day{'s' if days != 1 else ''} at this pace.")


def _span(hours: float) -> str:
    """A duration in the unit a person would say it: minutes, hours, or hours and days."""
    if hours < 1:
        return f"{hours * 60:.3g} min"
    if hours < 48:
        return f"{hours:.3g} h"
    return f"{hours:.3g} h ({hours / 24:.3g} days)"
