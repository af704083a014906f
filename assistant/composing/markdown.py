"""Small Markdown pieces for answers: numbers as people read them, escaped text, tables."""

from __future__ import annotations

import math
from typing import Any

from clusterplan.assistant.parsing.lazy_re import lazy

_CONTROL = lazy(r"[\x00-\x08\x0b-\x1f\x7f]")
_NEWLINE = lazy(r"\s*\n\s*")
# One pass of str.translate: control characters dropped, punctuation backslashed.
_ESCAPES = str.maketrans({**{chr(c): None for c in [*range(0x09), *range(0x0b, 0x20), 0x7f]},
                          **{ch: "\\" + ch for ch in "\\`*_[]<>|~#$&"}})
_NEEDS_WORK = lazy(r"[\x00-\x1f\x7f\\`*_\[\]<>|~#$&]")  # most cells have none


def escape(text: Any) -> str:
    """Text shown literally: Markdown and HTML punctuation escaped, one line."""
    text = str(text)
    if not _NEEDS_WORK.search(text):
        return text.strip()
    escaped = text.translate(_ESCAPES)
    return (_NEWLINE.sub(" ", escaped) if "\n" in escaped else escaped).strip()


def code(text: Any) -> str:
    """Text as an inline code span (nothing inside a code span needs escaping but backticks)."""
    return "`" + _CONTROL.sub("", str(text)).replace("`", "'").replace("\n", " ") + "`"


def num(value: Any, digits: int = 3) -> str:
    """1234.5 -> '1,234.5' ; 0.54444 -> '0.544'; about `digits` significant figures."""
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "-"}[value]
    if not isinstance(value, int | float):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if isinstance(value, int) or (abs(value) >= 1000 and float(value).is_integer()):
        return f"{int(value):,}"
    if abs(value) >= 10 ** digits:
        return f"{value:,.0f}"
    if value == 0:
        return "0"
    places = max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))
    return f"{value:,.{places}f}"


def plural(count: int, noun: str) -> str:
    """'1 replica', '3 replicas', '4,096 tokens'."""
    return f"{num(count)} {noun}" + ("" if count == 1 else "s")


def pct(fraction: float) -> str:
    """0.6 -> '60%'; 0.3524 -> '35.2%'."""
    return f"{fraction * 100:.3g}%"


def usd(value: Any) -> str:
    """Dollars with cents below $1,000, whole dollars above."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    return f"${value:,.2f}" if abs(value) < 1000 else f"${value:,.0f}"


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """A GitHub table; cells formatted with `num` and escaped so none can break the table."""
    def cell(v: Any) -> str:
        # `num` writes digits, commas, dots, signs and words: nothing to escape.
        return num(v) if isinstance(v, int | float | bool) or v is None else escape(v)

    lines = ["| " + " | ".join(escape(h) for h in headers) + " |",
             "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
