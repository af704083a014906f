"""A chart as data, written as Mermaid for GitHub and read back from it for the HTML page.

The report's Markdown carries each chart once, as a Mermaid block; the HTML export reads that
block back into a `Chart` and draws it itself (report.svg), so both show the same figures and
the page needs nothing from the network. Series names ride in a Mermaid comment (`%%`), which
GitHub ignores and the page shows as the legend.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

KINDS = ("bar", "line")
_QUOTED = re.compile(r'"([^"]*)"|([^,\s][^,]*)')
_SERIES = re.compile(r"^(bar|line)\s*\[(.*)\]$")
_Y_AXIS = re.compile(r'^y-axis\s+(?:"([^"]*)"\s*)?([-\d.e+]+)\s*-->\s*([-\d.e+]+)$')
_X_AXIS = re.compile(r'^x-axis\s+(?:"([^"]*)"\s*)?\[(.*)\]$')


@dataclass(frozen=True)
class Series:
    """One row of values over the chart's labels, drawn as bars or a line."""

    kind: str
    values: list[float]
    name: str = ""


@dataclass(frozen=True)
class Chart:
    """A pie (one series, a slice per label) or an x-y chart (labels along x, series up y).

    Bar series are drawn over one another in order, as Mermaid draws them: a series of
    running totals, largest first, shows as stacked parts.
    """

    kind: str  # "pie" or "xy"
    title: str
    labels: list[str]
    series: list[Series]
    x_label: str = ""
    y_label: str = ""
    y_top: float = 0.0
    unit: str = ""
    notes: list[str] = field(default_factory=list)


def label(text: object, limit: int = 60) -> str:
    """Text safe inside a Mermaid string: no quotes, backslashes or line breaks; short."""
    return re.sub(r'["\n\r\\]', "", str(text))[:limit]


def mermaid(chart: Chart) -> str:
    """The chart as a fenced Mermaid block GitHub draws."""
    lines = ["```mermaid"]
    if chart.kind == "pie":
        lines += ["pie showData", f"    title {label(chart.title, 100)}"]
        if chart.unit:
            lines.append(f"    %% unit: {label(chart.unit)}")
        # six figures: the legend the HTML page draws from them rounds as the tables do
        lines += [f'    "{label(k)}" : {v:.6g}'
                  for k, v in zip(chart.labels, chart.series[0].values, strict=True)]
    else:
        axis = f'"{label(chart.x_label)}" ' if chart.x_label else ""
        lines += ["xychart-beta", f'    title "{label(chart.title, 100)}"',
                  f"    x-axis {axis}[{', '.join(_x_label(x) for x in chart.labels)}]",
                  f'    y-axis "{label(chart.y_label)}" 0 --> {_number(chart.y_top)}']
        if any(s.name for s in chart.series):
            lines.append("    %% series: " + " | ".join(label(s.name) for s in chart.series))
        if chart.unit:
            lines.append(f"    %% unit: {label(chart.unit)}")
        lines += [f"    {s.kind} [{', '.join(_number(v) for v in s.values)}]"
                  for s in chart.series]
    return "\n".join([*lines, "```"])


def parse(source: str) -> Chart | None:
    """A Mermaid block this package wrote, back as a Chart; None for anything else."""
    lines = [line.strip() for line in source.strip().splitlines() if line.strip()]
    if not lines:
        return None
    try:
        if lines[0].startswith("pie"):
            return _parse_pie(lines[1:])
        if lines[0] == "xychart-beta":
            return _parse_xy(lines[1:])
    except ValueError:
        return None
    return None


def _parse_pie(lines: list[str]) -> Chart | None:
    title, unit, labels, values = "", "", [], []
    for line in lines:
        if line.startswith("title "):
            title = line[6:].strip()
        elif line.startswith("%% unit:"):
            unit = line[8:].strip()
        elif (found := re.fullmatch(r'"([^"]*)"\s*:\s*([-\d.e+]+)', line)):
            labels.append(found.group(1))
            values.append(_finite(found.group(2)))
    if not labels:
        return None
    return Chart("pie", title, labels, [Series("pie", values)], unit=unit)


def _parse_xy(lines: list[str]) -> Chart | None:
    title, x_label, y_label, top, unit = "", "", "", 0.0, ""
    labels: list[str] = []
    names: list[str] = []
    rows: list[tuple[str, list[float]]] = []
    for line in lines:
        if line.startswith("title "):
            title = line[6:].strip().strip('"')
        elif (x := _X_AXIS.match(line)):
            x_label = x.group(1) or ""
            labels = [a or b.strip() for a, b in _QUOTED.findall(x.group(2))]
        elif (y := _Y_AXIS.match(line)):
            y_label, top = y.group(1) or "", _finite(y.group(3))
        elif line.startswith("%% series:"):
            names = [n.strip() for n in line[10:].split("|")]
        elif line.startswith("%% unit:"):
            unit = line[8:].strip()
        elif (s := _SERIES.match(line)):
            rows.append((s.group(1), [_finite(v) for v in s.group(2).split(",") if v.strip()]))
    if not labels or not rows or any(len(v) != len(labels) for _, v in rows):
        return None
    names += [""] * (len(rows) - len(names))
    series = [Series(kind, values, name) for (kind, values), name in zip(rows, names, strict=True)]
    return Chart("xy", title, labels, series, x_label, y_label, top, unit)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _x_label(text: str) -> str:
    plain = label(text)
    return plain if re.fullmatch(r"[\w.]+", plain) else f'"{plain}"'


def _number(value: float) -> str:
    """Mermaid's data: four significant figures below 10,000, whole numbers above."""
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:.0f}"
