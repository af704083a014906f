"""Where the time of a training step goes, for the best layouts: one stacked bar a layout,
compute, each kind of communication and the pipeline bubble side by side on one scale."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from clusterplan.figures import num
from clusterplan.tui.memory_chart import COLOURS

# (plan field, legend name): the parts a step is the sum of (tools/parallelism/step_time.py)
PARTS = (("compute_s", "compute"), ("tp_comm_s", "TP"), ("pp_comm_s", "PP"),
         ("dp_comm_s", "DP"), ("ep_comm_s", "EP"), ("cp_comm_s", "CP"), ("bubble_s", "bubble"),
         ("update_s", "update"))
LABEL_WIDTH = 18  # "tp8 cp16 pp16 dp8"
VALUE_WIDTH = 9
BEST = 3  # layouts drawn


def layout_label(plan: dict[str, Any]) -> str:
    """A layout in a few characters: 'tp8 pp16 dp64', with cp, ep and an HSDP shard group
    ('dp64/8': ZeRO-3 within groups of 8) when used."""
    parts = [f"tp{plan.get('tp', 1)}"]
    parts += [f"cp{plan['cp']}"] if (plan.get("cp") or 1) > 1 else []
    group = f"/{plan['shard_group']}" if plan.get("shard_group") else ""
    parts += [f"pp{plan.get('pp', 1)}", f"dp{plan.get('dp', 1)}{group}"]
    parts += [f"ep{plan['ep']}"] if (plan.get("ep") or 1) > 1 else []
    return " ".join(parts)


def training_plans(plans: list[Any]) -> list[dict[str, Any]]:
    """The plans that carry a step's parts (training layouts), best first, at most BEST."""
    timed = [p for p in plans if isinstance(p, dict) and
             isinstance(p.get("step_time_s"), int | float) and p["step_time_s"] > 0]
    return timed[:BEST]


def part_cells(plan: dict[str, Any], scale_s: float, width: int) -> list[tuple[int, int]]:
    """(part index, cells) for each part of the step that takes at least one cell.

    Cells are whole, rounded so the parts add up to the rounded whole step (largest
    remainders first): a layout's bar is as long as its step, whatever its parts."""
    values = [max(0.0, float(plan.get(key) or 0.0)) for key, _ in PARTS]
    total = sum(values)
    if total <= 0 or scale_s <= 0:
        return []
    cells = round(min(1.0, total / scale_s) * width)
    exact = [v / total * cells for v in values]
    whole = [int(e) for e in exact]
    left = cells - sum(whole)
    for i in sorted(range(len(exact)), key=lambda i: exact[i] - whole[i], reverse=True)[:left]:
        whole[i] += 1
    return [(i, n) for i, n in enumerate(whole) if n > 0]


def bar_width(width: int) -> int:
    return max(8, width - LABEL_WIDTH - VALUE_WIDTH - 2)


class StepChart(Static):
    """The best layouts' step times, part by part, redrawn to the width it is given."""

    def __init__(self, plans: list[dict[str, Any]]) -> None:
        super().__init__(classes="step-chart")
        self.plans = plans
        self.border_title = "Step time by part, best layouts"
        self.border_subtitle = "one scale: the slowest step shown"

    def on_resize(self) -> None:
        self.update(self.render_chart(self.content_size.width))

    def render_chart(self, width: int) -> Content:
        """The chart as styled text, `width` cells wide: a legend, then one bar a layout."""
        used = {i for p in self.plans for i, _ in part_cells(p, 1.0, 1000)}
        legend = [Content.assemble(("█", COLOURS[i % len(COLOURS)]), f" {name}  ")
                  for i, (_, name) in enumerate(PARTS) if i in used]
        lines = [Content.assemble(*legend)]
        scale = max(p["step_time_s"] for p in self.plans)
        for plan in self.plans:
            cells = part_cells(plan, scale, bar_width(width))
            drawn = sum(n for _, n in cells)
            segments = [("█" * n, COLOURS[i % len(COLOURS)]) for i, n in cells]
            value = num(plan["step_time_s"]) + " s"
            lines.append(Content.assemble(
                f"{layout_label(plan)[:LABEL_WIDTH]:<{LABEL_WIDTH}} ", *segments,
                " " * (bar_width(width) - drawn),
                f" {value:>{VALUE_WIDTH}}"))
        return Content("\n").join(lines)
