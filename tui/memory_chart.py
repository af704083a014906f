"""The memory a job needs on each GPU, term by term, as horizontal bars drawn with text."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from clusterplan.figures import gb as gb_text

EIGHTHS = " ▏▎▍▌▋▊▉"
LABEL_WIDTH = 12
VALUE_WIDTH = 10  # " 1,234.5 GB"
# One theme colour a term, so the chart follows light and dark themes.
COLOURS = ("$primary", "$secondary", "$accent", "$warning", "$success", "$error")


def bar(fraction: float, width: int) -> str:
    """A bar `fraction` of `width` cells long, to an eighth of a cell."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + (EIGHTHS[part] if part else "")


def chart_lines(breakdown: dict[str, float], width: int, capacity_gb: float | None = None
                ) -> list[tuple[str, str, str]]:
    """(label, bar, value) rows: each term, then the total; bars share one scale.

    The scale is the limit the fit was judged against when known, so the room left shows too.
    """
    terms = {k: float(v) for k, v in breakdown.items() if isinstance(v, int | float) and v > 0}
    total = sum(terms.values())
    scale = max(total, capacity_gb or 0.0) or 1.0
    bar_width = max(4, width - LABEL_WIDTH - VALUE_WIDTH - 2)
    rows = [(name.replace("_", " "), bar(gb / scale, bar_width), gb_text(gb))
            for name, gb in terms.items()]
    rows.append(("total", bar(total / scale, bar_width), gb_text(total)))
    if capacity_gb:
        rows.append(("GPU memory", bar(capacity_gb / scale, bar_width), gb_text(capacity_gb)))
    return rows


def chart_title(tool: str, result: dict[str, Any]) -> tuple[str, str]:
    """What the chart is of (the GPU, else the tool, and GB per GPU), and whether it fits."""
    title = f"{result.get('gpu') or tool}: {gb_text(result.get('per_gpu_gb', 0))} per GPU"
    verdict = {True: "fits", False: "does not fit", None: ""}[result.get("fits")]
    headroom = result.get("headroom_gb")
    if isinstance(headroom, int | float):
        room = f"{gb_text(headroom)} free" if headroom >= 0 else f"{gb_text(-headroom)} short"
        verdict = f"{verdict}: {room}" if verdict else room
    return title, verdict


def limit_gb(result: dict[str, Any]) -> float | None:
    """The memory the fit was judged against: the GPU's, else the job's GB plus its headroom."""
    if isinstance(result.get("gpu_memory_gb"), int | float):
        return float(result["gpu_memory_gb"])
    used, headroom = result.get("per_gpu_gb"), result.get("headroom_gb")
    if isinstance(used, int | float) and isinstance(headroom, int | float):
        return float(used) + float(headroom)
    return None


class MemoryChart(Static):
    """One memory breakdown as bars, redrawn to the width it is given."""

    def __init__(self, title: tuple[str, str], breakdown: dict[str, float],
                 capacity_gb: float | None = None) -> None:
        super().__init__(classes="memory-chart")
        self.border_title, self.border_subtitle = title
        self.breakdown = breakdown
        self.capacity_gb = capacity_gb

    def on_resize(self) -> None:
        self.update(self.render_chart(self.content_size.width))

    def render_chart(self, width: int) -> Content:
        """The chart as styled text, `width` cells wide."""
        lines = []
        for index, (label, drawn, value) in enumerate(
                chart_lines(self.breakdown, width, self.capacity_gb)):
            summary = label in ("total", "GPU memory")
            colour = "$foreground" if summary else COLOURS[index % len(COLOURS)]
            lines.append(Content.assemble(
                f"{label[:LABEL_WIDTH]:<{LABEL_WIDTH}} ",
                (f"{drawn:<{max(4, width - LABEL_WIDTH - VALUE_WIDTH - 2)}}", colour),
                f" {value:>{VALUE_WIDTH}}",
            ))
        return Content("\n").join(lines)
