"""The Plan tab: ranked layouts and offers as tables, and the memory per GPU as a text bar chart."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, Label, Static

from clusterplan.figures import num, pct, usd_rate
from clusterplan.tui.memory_chart import MemoryChart, chart_title, limit_gb

TABLE_ROWS = 10  # the best ten are what a person compares; the rest are in the report
OFFER_COLUMNS = ("provider", "gpu", "kind", "usd_per_gpu_hour", "usd_per_node_hour",
                 "gpus_per_node", "region", "verified_on", "stale")


@dataclass
class PlanView:
    """What the Plan tab shows of an answer's tool results."""

    # (title and verdict, GB per term, the GPU's memory)
    charts: list[tuple[tuple[str, str], dict[str, float], float | None]] = field(
        default_factory=list)
    layouts: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    offers: list[dict[str, Any]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.charts or self.layouts or self.rejected or self.offers)


def plan_view(data: dict[str, Any]) -> PlanView:
    """Find memory breakdowns, layouts and offers in an answer's tool results, in order."""
    view = PlanView()
    for name, result in data.items():
        if not isinstance(result, dict):
            continue
        breakdown = result.get("breakdown_gb")
        if isinstance(breakdown, dict) and breakdown:
            view.charts.append((chart_title(name, result), breakdown, limit_gb(result)))
        if isinstance(result.get("plans"), list):
            view.layouts += [p for p in result["plans"] if isinstance(p, dict)]
        if isinstance(result.get("rejected"), dict):
            view.rejected += [{"rejected because": reason, "layouts": count}
                              for reason, count in result["rejected"].items()]
        if isinstance(result.get("offers"), list):
            view.offers += [o for o in result["offers"] if isinstance(o, dict)]
    return view


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


def fill_table(table: DataTable, rows: list[dict[str, Any]],
               preferred: tuple[str, ...] = ()) -> None:
    """Show `rows` (best first) in `table`, numbered, with the JSON field names as headers."""
    table.clear(columns=True)
    columns = table_columns(rows, preferred)
    table.add_column("#")
    for column in columns:
        table.add_column(column.replace("_", " "), key=column)
    for rank, row in enumerate(rows[:TABLE_ROWS], start=1):
        table.add_row(Text(str(rank)), *(cell(row.get(c), c) for c in columns))


def _hidden(widget: Widget) -> Widget:
    widget.display = False
    return widget


class PlanPanel(VerticalScroll):
    """Memory chart, layouts table and offers table of the last answer that had them."""

    def compose(self) -> ComposeResult:
        yield Static("Layouts, offers and memory charts appear here when an answer has them.",
                     id="plan-empty")
        # hidden until an answer has them (set here, not on mount: an answer may come first)
        yield _hidden(Label("Memory per GPU", classes="plan-heading", id="memory-heading"))
        for name, heading in (("layouts", "Layouts, best first"),
                              ("rejected", "Layouts rejected, and why"),
                              ("offers", "Offers, cheapest first")):
            yield _hidden(Label(heading, classes="plan-heading", id=f"{name}-heading"))
            yield _hidden(DataTable(id=name, zebra_stripes=True, cursor_type="row"))

    async def show_plan(self, data: dict[str, Any]) -> None:
        """Replace the tab's content with what `data` holds; keep it empty when it holds nothing."""
        view = plan_view(data)
        await self.query(MemoryChart).remove()
        heading = self.query_one("#memory-heading")
        charts = [MemoryChart(*chart) for chart in reversed(view.charts)]
        for chart in charts:
            await self.mount(chart, after=heading)
        fill_table(self.query_one("#layouts", DataTable), view.layouts)
        fill_table(self.query_one("#rejected", DataTable), view.rejected)
        fill_table(self.query_one("#offers", DataTable), view.offers, OFFER_COLUMNS)
        self._show_sections(view)

    def _show_sections(self, view: PlanView) -> None:
        self.query_one("#plan-empty").display = view.empty
        self.query_one("#memory-heading").display = bool(view.charts)
        shown = (("layouts", view.layouts), ("rejected", view.rejected), ("offers", view.offers))
        for name, rows in shown:
            self.query_one(f"#{name}-heading").display = bool(rows)
            self.query_one(f"#{name}").display = bool(rows)
