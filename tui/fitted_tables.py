"""Markdown tables that fit the width they are drawn at.

Rich shrinks a table that is too wide by cutting cells ("prov…", "$/GP…", a price to "2.…").
Here no word is ever cut, so no number is: each column is at least as wide as its longest word
and text wraps between words. When even that does not fit, whole columns drop, the least
important first (details such as the verification date or status, then text, then figures),
and the table says which it left out; the answer's wide view (F2) shows every column.
"""

from __future__ import annotations

import re
from typing import ClassVar

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown, MarkdownElement, TableElement
from rich.table import Table
from rich.text import Text

# headers of columns a person reads last: they drop first when the width is short
DETAIL_WORDS = ("verified", "status", "stale", "region", "kind", "source", "note", "gpus/node",
                "per node", "layout")
SEPARATOR = 2  # cells apart: one padding and one (blank) rule, as Rich's SIMPLE box draws
EDGES = 2  # the box's blank left and right edges
ALL_COLUMNS_KEY = "F2"


def longest_word(text: str) -> int:
    """Cells a column needs so that no word of `text` is cut."""
    return max((cell_len(word) for word in text.split()), default=0)


def table_width(widths: list[int]) -> int:
    """Cells a table of columns this wide takes, borders and padding included."""
    return sum(widths) + SEPARATOR * max(len(widths) - 1, 0) + EDGES


FIGURE = re.compile(r"[~≈<>+\-−]?[$€£]?\d\S*")


def is_number(cell: str) -> bool:
    """A figure such as '6.30', '$188,388', '26.0', '8' or '70%': one word led by a digit
    (not 'h200-sxm', a name)."""
    return FIGURE.fullmatch(cell.strip()) is not None


def drop_order(headers: list[str], rows: list[list[str]]) -> list[int]:
    """Columns in the order they drop: details, then text, then figures, each from the right;
    the first column (what the row is) never drops."""
    def rank(i: int) -> int:
        if any(word in headers[i].lower() for word in DETAIL_WORDS):
            return 0
        cells = [row[i] for row in rows if i < len(row) and row[i].strip()]
        return 2 if cells and all(is_number(c) for c in cells) else 1

    rest = list(range(len(headers) - 1, 0, -1))
    return sorted(rest, key=rank)  # stable: right to left within a rank


def fit_columns(headers: list[str], rows: list[list[str]], width: int) -> tuple[list[int],
                                                                                 list[int]]:
    """Which columns to show within `width` cells, and how wide each is.

    Each kept column is at least its longest word wide (nothing cut); the room left over goes
    to the columns whose text would otherwise wrap, most to those that need most.
    """
    columns = list(zip(headers, *rows, strict=False)) if rows else [(h,) for h in headers]
    natural = [max(cell_len(c) for c in col) for col in columns]
    minimum = [max(longest_word(c) for c in col) for col in columns]
    keep = list(range(len(headers)))
    for i in drop_order(headers, rows):
        if table_width([minimum[k] for k in keep]) <= width:
            break
        keep.remove(i)
    widths = {k: minimum[k] for k in keep}
    room = width - table_width(list(widths.values()))
    wanting = sorted(keep, key=lambda k: natural[k] - minimum[k])
    for n, k in enumerate(wanting):  # the least wanting first: each takes its fair share
        share = room // (len(wanting) - n)
        extra = max(0, min(natural[k] - minimum[k], share))
        widths[k] += extra
        room -= extra
    return keep, [widths[k] for k in keep]


def markdown_cells(line: str) -> list[str]:
    """The cells of one Markdown table row (pipes escaped as \\| stay in their cell)."""
    inner = line.strip().strip("|")
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def widest_table(markdown: str) -> int:
    """Cells the widest table of `markdown` takes with every column whole (the wide view)."""
    widest, rows = 0, []
    for line in [*markdown.splitlines(), ""]:
        if line.lstrip().startswith("|"):
            cells = markdown_cells(line)
            if not all(set(c) <= set(":- ") for c in cells):  # not the |---| rule
                rows.append(cells)
            continue
        if rows:
            natural = [max(cell_len(r[i]) if i < len(r) else 0 for r in rows)
                       for i in range(len(rows[0]))]
            widest = max(widest, table_width(natural))
            rows = []
    return widest


class FittedTableElement(TableElement):
    """A Markdown table drawn to fit: columns chosen and sized by `fit_columns`."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        header = [c.content for c in self.header.row.cells] if self.header and \
            self.header.row else []
        body = [[c.content for c in row.cells] for row in self.body.rows] if self.body else []
        if not header:
            yield from super().__rich_console__(console, options)
            return
        keep, widths = fit_columns([h.plain for h in header],
                                   [[c.plain for c in row] for row in body], options.max_width)
        table = Table(box=box.SIMPLE, pad_edge=False, style="markdown.table.border",
                      show_edge=True, collapse_padding=True)
        for k, width in zip(keep, widths, strict=True):
            heading = header[k].copy()
            heading.stylize("markdown.table.header")
            table.add_column(heading, width=width, overflow="fold")
        for row in body:
            table.add_row(*(row[k] if k < len(row) else Text("") for k in keep))
        yield table
        left_out = [header[i].plain for i in range(len(header)) if i not in keep]
        if left_out:
            yield Text(f"Not shown at this width: {', '.join(left_out)} "
                       f"({ALL_COLUMNS_KEY}: every column)", style="dim italic")


class FittedMarkdown(Markdown):
    """Rich's Markdown, with its tables fitted to the width (see `FittedTableElement`)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements, "table_open": FittedTableElement}
