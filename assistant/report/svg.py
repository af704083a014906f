"""A Chart drawn as inline SVG: a pie with its legend, or bars and lines over labelled axes.

The HTML report draws its charts with this instead of loading Mermaid, so the page opens
offline and shows the same figures the Markdown's Mermaid blocks hold. Every mark carries its
figure in `data-value` and a <title>, so a reader can hover it and a test can read it.
"""

from __future__ import annotations

import math
from html import escape

from clusterplan.assistant.report.charts import Chart
from clusterplan.figures import figure, num, pct, usd

COLOURS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#9d755d",
           "#eeca3b")
WIDTH, HEIGHT = 720, 320
PIE_RADIUS = 110
PLOT = (70, 40, 690, 250)  # left, top, right, bottom of the x-y plot area
TICKS = 5  # about five gridlines up the y axis


def render_svg(chart: Chart) -> str:
    """The chart as one <svg> element (no scripts, no external references)."""
    body = _pie(chart) if chart.kind == "pie" else _xy(chart)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
            f'aria-label="{escape(chart.title)}">\n'
            f'<text x="{WIDTH / 2:g}" y="22" class="chart-title" text-anchor="middle" '
            f'font-weight="600">{escape(chart.title)}</text>\n{body}</svg>')


def _pie(chart: Chart) -> str:
    values = chart.series[0].values
    total = sum(v for v in values if v > 0)
    cx, cy = 170, 40 + PIE_RADIUS + 20
    parts: list[str] = []
    legend: list[str] = []
    start = 0.0
    for n, (name, value) in enumerate(zip(chart.labels, values, strict=True)):
        if value <= 0 or total <= 0:
            continue
        colour = COLOURS[n % len(COLOURS)]
        fraction = value / total
        said = f"{name}: {figure(value, chart.unit)} ({pct(fraction)})"
        parts.append(_slice(cx, cy, start, start + fraction, colour, name, value, said))
        start += fraction
        y = 60 + 22 * len(legend)
        legend.append(f'<rect x="330" y="{y - 11}" width="12" height="12" fill="{colour}"/>'
                      f'<text x="350" y="{y}" class="legend">{escape(said)}</text>')
    legend.append(f'<text x="330" y="{60 + 22 * len(legend)}" class="legend" '
                  f'font-weight="600">total: {escape(figure(total, chart.unit))}</text>')
    return "\n".join(parts + legend) + "\n"


def _slice(cx: float, cy: float, start: float, end: float, colour: str, name: str,
           value: float, said: str) -> str:
    """One slice from `start` to `end` (fractions of the turn, clockwise from twelve)."""
    data = f'data-label="{escape(name)}" data-value="{value:g}"'
    tip = f"<title>{escape(said)}</title>"
    if end - start >= 1 - 1e-9:
        return (f'<circle class="slice" cx="{cx}" cy="{cy}" r="{PIE_RADIUS}" fill="{colour}" '
                f"{data}>{tip}</circle>")
    x0, y0 = _point(cx, cy, start)
    x1, y1 = _point(cx, cy, end)
    large = 1 if end - start > 0.5 else 0
    return (f'<path class="slice" d="M{cx},{cy} L{x0:.2f},{y0:.2f} A{PIE_RADIUS},{PIE_RADIUS} '
            f'0 {large} 1 {x1:.2f},{y1:.2f} Z" fill="{colour}" stroke="#fff" {data}>'
            f"{tip}</path>")


def _point(cx: float, cy: float, fraction: float) -> tuple[float, float]:
    angle = 2 * math.pi * fraction
    return cx + PIE_RADIUS * math.sin(angle), cy - PIE_RADIUS * math.cos(angle)


def _xy(chart: Chart) -> str:
    left, top, right, bottom = PLOT
    # the data's own top: Mermaid's y_top carries headroom a round axis gives anyway
    peak, tick = scale(max(v for s in chart.series for v in s.values))
    step = (right - left) / len(chart.labels)
    parts = _axes(chart, peak, tick)
    for n, series in enumerate(chart.series):
        colour = COLOURS[n % len(COLOURS)]
        if series.kind == "bar":
            parts += [_bar(left + step * (i + 0.15), step * 0.7, v, peak, colour, series.name,
                           chart) for i, v in enumerate(series.values)]
        else:
            parts.append(_line([left + step * (i + 0.5) for i in range(len(series.values))],
                               series.values, peak, colour, series.name, chart))
    names = [(COLOURS[n % len(COLOURS)], s.name) for n, s in enumerate(chart.series) if s.name]
    names = names if len(chart.series) > 1 else []  # one series: the title says what it is
    parts += [f'<rect x="{left + 160 * n}" y="{HEIGHT - 22}" width="12" height="12" '
              f'fill="{colour}"/><text x="{left + 160 * n + 18}" y="{HEIGHT - 12}" '
              f'class="legend">{escape(name)}</text>' for n, (colour, name) in enumerate(names)]
    return "\n".join(parts) + "\n"


def _y(value: float, peak: float) -> float:
    _, top, _, bottom = PLOT
    return bottom - (bottom - top) * max(0.0, value) / peak


def scale(highest: float) -> tuple[float, float]:
    """The top of the y axis and its tick step: a round step (1, 2, 2.5 or 5 times a power of
    ten) and the first multiple of it at or above the highest value, in about TICKS steps."""
    if not highest > 0:
        return 1.0, 1.0 / TICKS
    raw = highest / TICKS
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw * (1 - 1e-9))
    return step * math.ceil(highest / step - 1e-9), step


def _axes(chart: Chart, peak: float, tick: float) -> list[str]:
    left, top, right, bottom = PLOT
    parts = [f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#57606a"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#57606a"/>',
             f'<text x="14" y="{(top + bottom) / 2:g}" class="axis" text-anchor="middle" '
             f'transform="rotate(-90 14 {(top + bottom) / 2:g})">{escape(chart.y_label)}</text>']
    for i in range(round(peak / tick) + 1):
        value = tick * i
        y = _y(value, peak)
        parts.append(f'<line x1="{left - 4}" y1="{y:.2f}" x2="{right}" y2="{y:.2f}" '
                     f'stroke="#d0d7de" stroke-width="0.5"/><text x="{left - 6}" y="{y + 4:.2f}" '
                     f'class="tick" text-anchor="end">{escape(_tick(value, chart.unit))}</text>')
    step = (right - left) / len(chart.labels)
    for i, name in enumerate(chart.labels):
        x = left + step * (i + 0.5)
        lines = "".join(f'<tspan x="{x:.2f}" dy="{0 if k == 0 else 13}">{escape(part)}</tspan>'
                        for k, part in enumerate(name.split(" · ")))
        parts.append(f'<text x="{x:.2f}" y="{bottom + 16}" class="tick" '
                     f'text-anchor="middle">{lines}</text>')
    if chart.x_label:
        parts.append(f'<text x="{(left + right) / 2:g}" y="{bottom + 44}" class="axis" '
                     f'text-anchor="middle">{escape(chart.x_label)}</text>')
    return parts


def _tick(value: float, unit: str) -> str:
    if value == 0:
        return "0"  # not "$0.00": the axis starts at nothing, in any unit
    return usd(value) if unit == "USD" else num(value)


def _bar(x: float, width: float, value: float, peak: float, colour: str, name: str,
         chart: Chart) -> str:
    y = _y(value, peak)
    said = f"{name + ': ' if name else ''}{figure(value, chart.unit)}"
    return (f'<rect class="bar" x="{x:.2f}" y="{y:.2f}" width="{width:.2f}" '
            f'height="{PLOT[3] - y:.2f}" fill="{colour}" data-value="{value:g}">'
            f"<title>{escape(said)}</title></rect>")


def _line(xs: list[float], values: list[float], peak: float, colour: str, name: str,
          chart: Chart) -> str:
    points = [(x, _y(v, peak)) for x, v in zip(xs, values, strict=True)]
    parts = [f'<polyline class="line" fill="none" stroke="{colour}" stroke-width="2" '
             f'points="{" ".join(f"{x:.2f},{y:.2f}" for x, y in points)}"/>']
    for (x, y), value in zip(points, values, strict=True):
        said = figure(value, chart.unit)
        parts.append(f'<circle class="point" cx="{x:.2f}" cy="{y:.2f}" r="3.5" fill="{colour}" '
                     f'data-value="{value:g}"><title>{escape(name + ": " if name else "")}'
                     f'{escape(said)}</title></circle>')
        if len(values) <= 8:
            parts.append(f'<text x="{x:.2f}" y="{y - 8:.2f}" class="value" '
                         f'text-anchor="middle">{escape(said)}</text>')
    return "\n".join(parts)
