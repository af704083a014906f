"""Small Markdown pieces for answers: numbers as people read them, escaped text, tables."""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.figures import figure, gb, num, pct, plural, usd, usd_rate

__all__ = ["code", "escape", "figure", "gb", "num", "pct", "plural", "table", "usd",
           "usd_rate"]

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


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """A GitHub table; cells formatted with `num` and escaped so none can break the table."""
    def cell(v: Any) -> str:
        # `num` writes digits, commas, dots, signs and words: nothing to escape.
        return num(v) if isinstance(v, int | float | bool) or v is None else escape(v)

    lines = ["| " + " | ".join(escape(h) for h in headers) + " |",
             "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
