"""Tool results as Markdown tables (memory breakdown, ranked layouts, offers, figures).

Pure functions of plain data, shared by the planning report and direct tool calls. Every piece
of text that came from a person or a tool is escaped, so it can never open a table, a link,
a heading or an HTML tag.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_ROWS = 10
MAX_COLUMNS = 14
# Parts of a figure shown elsewhere in the row (step time = compute + comm + bubble), left out
# first when a table is too wide to read.
DETAIL_COLUMNS = ("tp_comm_s", "pp_comm_s", "dp_comm_s", "ep_comm_s", "cp_comm_s",
                  "bubble_fraction", "tflops_per_gpu", "num_microbatches", "compute_s",
                  "bubble_s", "comm_s", "headroom_gb", "age_days", "source_note")
_SKIP = frozenset({"steps", "citations", "assumptions", "warnings"})
# Markdown punctuation gets a backslash; control characters (C0 but tab and newline, C1) go.
_CONTROLS = [*range(9), 11, 12, *range(14, 32), *range(127, 160)]
_ESCAPES = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|~#$&"}
                         | {chr(c): None for c in _CONTROLS})
_LINE_BREAK = re.compile(r"[ \t]*\n\s*")


def escape(text: Any, newline: str = " ") -> str:
    """Text shown literally in Markdown: punctuation escaped, control characters dropped."""
    plain = str(text)
    if "\r" in plain:
        plain = plain.replace("\r\n", "\n").replace("\r", "\n")
    escaped = plain.translate(_ESCAPES).strip()
    return _LINE_BREAK.sub(newline, escaped) if "\n" in escaped else escaped


def cell(value: Any) -> str:
    """One table cell: the value formatted, `|` escaped, newlines kept as <br>."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return fmt(value)  # digits, separators and signs need no escaping
    return escape(fmt(value), newline="<br>")


def fmt(value: Any) -> str:
    """A value as a reader wants it: thousands separated, about four significant figures."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.4g}"
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, default=str)
    return str(value)


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """A GitHub table; every header and cell escaped."""
    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "| " + " | ".join("---" for _ in headers) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def result_sections(data: dict[str, Any]) -> list[str]:
    """Markdown blocks for every tool result in an Answer's `data`, in order."""
    blocks: list[str] = []
    for key, value in data.items():
        if isinstance(value, dict):
            blocks += _result(str(key), value)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, item in enumerate(value, 1):
                blocks += _result(f"{key} {i}", item)
        elif value is not None and value != [] and value != {}:
            blocks.append(_figures(str(key), {key: value}))
    return blocks


def memory_pie(breakdown_gb: dict[str, Any]) -> str | None:
    """A Mermaid pie of the memory per GPU, or None when there is nothing positive to draw."""
    slices = [(k, v) for k, v in breakdown_gb.items()
              if isinstance(v, int | float) and not isinstance(v, bool)
              and math.isfinite(v) and v > 0]
    if not slices:
        return None
    lines = ["```mermaid", "pie showData", "    title Memory per GPU (GB)"]
    lines += [f'    "{_label(k)}" : {v:.2f}' for k, v in slices]
    return "\n".join([*lines, "```"])


def _result(label: str, result: dict[str, Any]) -> list[str]:
    blocks: list[str] = []
    scalars: dict[str, Any] = {}
    for key, value in result.items():
        if key in _SKIP or value is None or value in ([], {}, ""):
            continue
        if key == "breakdown_gb" and isinstance(value, dict):
            blocks += _breakdown(label, value, result.get("per_gpu_gb"))
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            blocks.append(_rows(f"{label}: {key}", value))
        elif isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()):
            blocks.append(_rows(f"{label}: {key}", [_keyed(k, v) for k, v in value.items()]))
        elif isinstance(value, dict) and any(isinstance(v, dict | list) for v in value.values()):
            blocks += _result(f"{label}: {key}", value)
        elif isinstance(value, dict):
            blocks.append(_pairs(f"{label}: {key}", value))
        else:
            scalars[key] = value
    if scalars:
        blocks.insert(0, _figures(label, scalars))
    return blocks


def _breakdown(label: str, breakdown: dict[str, Any], per_gpu_gb: Any) -> list[str]:
    rows: list[list[Any]] = [[term, gb] for term, gb in breakdown.items()]
    if per_gpu_gb is not None:
        rows.append(["total per GPU", per_gpu_gb])
    blocks = [f"**{escape(label)}: memory per GPU**\n\n" + table(["term", "GB"], rows)]
    pie = memory_pie(breakdown)
    return blocks + [pie] if pie else blocks


def _rows(title: str, items: list[dict[str, Any]]) -> str:
    shown = items[:MAX_ROWS]
    columns = [c for c in dict.fromkeys(k for item in items for k in item)
               if any(item.get(c) is not None for item in shown)]
    columns, left_out = _narrow(columns)
    ranked = "rank" not in columns and any(
        k in columns for k in ("tp", "step_time_s", "usd_per_gpu_hour"))
    rows = [([i] if ranked else []) + [item.get(c) for c in columns]
            for i, item in enumerate(shown, 1)]
    heading = f"**{escape(title)}**"
    if len(items) > len(shown):
        heading += f" (the first {len(shown)} of {len(items)})"
    if left_out:
        heading += f" (also in the JSON: {escape(', '.join(left_out))})"
    return heading + "\n\n" + table((["rank"] if ranked else []) + columns, rows)


def _narrow(columns: list[str]) -> tuple[list[str], list[str]]:
    """At most MAX_COLUMNS columns, leaving out the detail columns first, so a table stays
    readable on a page; what is left out is named."""
    if len(columns) <= MAX_COLUMNS:
        return columns, []
    spare = [c for c in DETAIL_COLUMNS if c in columns][: len(columns) - MAX_COLUMNS]
    kept = [c for c in columns if c not in spare]
    return kept[:MAX_COLUMNS], spare + kept[MAX_COLUMNS:]


def _pairs(title: str, values: dict[str, Any]) -> str:
    rows = [[k, v] for k, v in values.items()]
    return f"**{escape(title)}**\n\n" + table(["field", "value"], rows)


def _figures(label: str, values: dict[str, Any]) -> str:
    return f"**{escape(label)}: figures**\n\n" + table(
        ["field", "value"], [[k, v] for k, v in values.items()])


def _keyed(key: str, value: Any) -> dict[str, Any]:
    """One row of a table made from a dict of dicts (e.g. rejected layouts by reason)."""
    return {"key": key, **(value if isinstance(value, dict) else {"value": value})}


def _label(key: Any) -> str:
    return re.sub(r'["\n\r\\]', "", str(key))[:60]
