"""Tool results as tables that fit their width: the Plan tab's offers, layouts and plan options.

Every shown column is as wide as its widest cell, so no number is cut. The columns come in
order of importance and those that do not fit drop, named under the table; enter on a row
shows the whole row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from clusterplan.figures import num, pct, usd_rate

TABLE_ROWS = 10  # the best ten are what a person compares; the rest are in the report
CELL_PADDING = 2  # DataTable pads each cell by one on either side
HEADERS = {  # short headers: a column is as wide as its widest cell or header
    "usd_per_gpu_hour": "$/GPU-h", "usd_per_node_hour": "$/node-h", "gpus_per_node": "GPUs/node",
    "verified_on": "verified", "training_days": "days", "tokens_per_s": "tokens/s",
    "cost_usd": "cost $", "usd_per_million_output_tokens": "$/M tokens", "per_gpu_gb": "GB/GPU",
    "hourly_usd": "$/h", "billed_hours": "billed h", "unused_hours": "idle h",
    "data_tokens": "data",
}


def header(column: str) -> str:
    return HEADERS.get(column, column.replace("_", " "))


def cell(value: Any, column: str = "") -> Text:
    """A table cell written as the answer and the report write it (prices to the tenth of a
    cent, fractions as %, else about three figures); text never read as markup."""
    if isinstance(value, bool) or value is None:
        return Text({True: "yes", False: "no", None: "–"}[value])
    if isinstance(value, int | float) and column.startswith("usd_per_"):
        return Text(usd_rate(value), justify="right")
    if isinstance(value, int | float) and (column == "mfu" or column.endswith("_fraction")):
        return Text(pct(value), justify="right")
    if isinstance(value, int | float):
        return Text(num(value), justify="right")
    return Text(str(value))


def table_columns(rows: list[dict[str, Any]], preferred: tuple[str, ...] = ()) -> list[str]:
    """Columns for rows of tool JSON: the preferred ones present, then any other scalar fields."""
    present = list(dict.fromkeys(k for row in rows for k, v in row.items()
                                 if not isinstance(v, dict | list)))
    return [c for c in preferred if c in present] + [c for c in present if c not in preferred]


def fitting_columns(rows: list[dict[str, Any]], columns: list[str], width: int) -> list[str]:
    """The columns, in order, that fit `width` cells whole beside the row number; always the
    first (what a row is), even when it alone is wider."""
    used = len(str(len(rows))) + CELL_PADDING
    kept = []
    for n, column in enumerate(columns):
        wide = max([len(header(column))] + [cell(r.get(column), column).cell_len for r in rows])
        if n and used + wide + CELL_PADDING > width:
            continue  # too wide: it drops (named under the table); a narrower one may fit
        kept.append(column)
        used += wide + CELL_PADDING
    return kept


class ToolTable(DataTable):
    """Rows of a tool's JSON, best first, numbered; the columns that fit the width are shown
    and drawn again when the width changes; enter on a row shows all of it."""

    @dataclass
    class RowOpened(Message):
        """A person asked to see one row whole."""

        title: str
        fields: list[tuple[str, str]]

    def __init__(self, title: str, **kwargs: Any) -> None:
        super().__init__(zebra_stripes=True, cursor_type="row", **kwargs)
        self.title = title
        self.rows_shown: list[dict[str, Any]] = []
        self.columns_all: list[str] = []
        self.columns_shown: list[str] = []
        self._width = 0

    def show_rows(self, rows: list[dict[str, Any]], preferred: tuple[str, ...] = ()) -> None:
        """Show `rows` (best first; the first ten) with the preferred columns first."""
        self.rows_shown = rows[:TABLE_ROWS]
        self.columns_all = table_columns(self.rows_shown, preferred)
        self._fill()

    def on_resize(self) -> None:
        if self.size.width and self.size.width != self._width:
            self._fill()

    def _fill(self) -> None:
        self._width = self.size.width
        room = self.content_size.width
        shown = self.columns_all
        if room:  # not yet laid out: every column, fitted once it is
            shown = fitting_columns(self.rows_shown, self.columns_all, room)
        self.columns_shown = shown
        self.clear(columns=True)
        self.add_column("#", width=len(str(len(self.rows_shown))))
        for column in shown:
            self.add_column(header(column), key=column)
        for rank, row in enumerate(self.rows_shown, start=1):
            self.add_row(Text(str(rank), justify="right"), *(cell(row.get(c), c) for c in shown))
        self.border_subtitle = self.left_out_note()

    def left_out_note(self) -> str:
        """What the width left out, and how to see it."""
        left_out = len(self.columns_all) - len(self.columns_shown)
        if not left_out:
            return ""
        return f"+{left_out} column{'s' if left_out > 1 else ''}: enter on a row shows it whole"

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        index = event.cursor_row
        if 0 <= index < len(self.rows_shown):
            row = self.rows_shown[index]
            fields = [(header(c), cell(row.get(c), c).plain) for c in self.columns_all]
            self.post_message(self.RowOpened(f"{self.title}: row {index + 1}", fields))
