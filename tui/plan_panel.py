"""The Plan tab: the plan tool's options, ranked layouts and offers as tables, on-demand against
committed prices and the models a budget affords when an answer has them, the memory per GPU
as a text bar chart, and the best training layouts' step time part by part."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Label, Static

from clusterplan.tui.memory_chart import MemoryChart, chart_title, limit_gb
from clusterplan.tui.step_chart import StepChart, training_plans
from clusterplan.tui.tool_tables import ToolTable, cell, table_columns

__all__ = ["PlanPanel", "PlanView", "cell", "plan_view", "table_columns"]

# most important first: the tables scroll sideways, so what is read last is on the right
OFFER_COLUMNS = ("provider", "gpu", "usd_per_gpu_hour", "usd_per_node_hour", "gpus_per_node",
                 "kind", "region", "verified_on", "stale")
OPTION_COLUMNS = ("cluster", "training_days", "tokens_per_s", "cost_usd", "option",
                  "usd_per_million_output_tokens", "provider", "nodes", "replicas",
                  "usd_per_gpu_hour", "layout", "offer")
# the billed and idle hours say why a longer term loses a short job: kept before the rest
COMMITMENT_COLUMNS = ("option", "cost_usd", "billed_hours", "unused_hours", "usd_per_gpu_hour",
                      "provider", "stale", "billed_gpus", "offer")
BUDGET_COLUMNS = ("method", "data_tokens", "model", "cost_usd", "cluster", "training_days",
                  "provider")


@dataclass
class PlanView:
    """What the Plan tab shows of an answer's tool results."""

    # (title and verdict, GB per term, the GPU's memory)
    charts: list[tuple[tuple[str, str], dict[str, float], float | None]] = field(
        default_factory=list)
    layouts: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    offers: list[dict[str, Any]] = field(default_factory=list)
    options: list[dict[str, Any]] = field(default_factory=list)  # the plan tool's, as rows
    steps: list[dict[str, Any]] = field(default_factory=list)  # best training plans, timed
    commitments: list[dict[str, Any]] = field(default_factory=list)  # on-demand, then terms
    budget: list[dict[str, Any]] = field(default_factory=list)  # largest model by method, size

    @property
    def empty(self) -> bool:
        return not (self.charts or self.layouts or self.rejected or self.offers or self.options
                    or self.commitments or self.budget)


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
            view.steps = view.steps or training_plans(result["plans"])
        if isinstance(result.get("rejected"), dict):
            view.rejected += [{"rejected because": reason, "layouts": count}
                              for reason, count in result["rejected"].items()]
        if isinstance(result.get("offers"), list):
            view.offers += [o for o in result["offers"] if isinstance(o, dict)]
        if isinstance(result.get("pareto"), list):
            view.options += plan_options(result)
        if isinstance(result.get("commitments"), dict):
            view.commitments += commitment_rows(result["commitments"])
        if isinstance(result.get("affordable"), list):
            view.budget += [budget_row(r) for r in result["affordable"] if isinstance(r, dict)]
        if isinstance(result.get("failed"), dict):
            view.rejected += [{"ruled out because": reason, "candidates": count}
                              for reason, count in result["failed"].items()]
    return view


def plan_options(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan tool's options as rows: its Pareto front between cost and time, each marked
    cheapest, fastest or recommended (a goal not met: the closest cluster found; a GPU kind no
    offer rents: its count, unpriced)."""
    front = [o for o in result.get("pareto", []) if isinstance(o, dict)]
    extra = [result[k] for k in ("recommendation", "closest", "unpriced")
             if isinstance(result.get(k), dict)]
    options = front + [o for o in extra if o not in front]
    if not options:
        return []
    training = any(o.get("training_days") is not None for o in options)
    priced = [o for o in options if o.get("cost_usd") is not None]
    cost = min(priced, key=lambda o: o["cost_usd"]) if priced else None
    fastest = min(options, key=lambda o: (o.get("training_days") or 0.0) if training
                  else -(o.get("tokens_per_s") or 0.0))
    marks = {"recommended": result.get("recommendation"), "closest": result.get("closest"),
             "unpriced (no offer rents it)": result.get("unpriced"), "cheapest": cost,
             "fastest": fastest}
    return [{"option": ", ".join(name for name, o in marks.items() if o == option) or "front",
             "cluster": f"{option.get('gpus')}× {option.get('gpu')}",
             **{k: v for k, v in option.items() if k not in ("gpu", "gpus")},
             "layout": layout_text(option.get("layout"))} for option in options]


TERM_NAMES = {"reserved_1m": "1-month", "reserved_1y": "1-year", "reserved_3y": "3-year",
              "capacity_block": "capacity block"}


def commitment_rows(found: dict[str, Any]) -> list[dict[str, Any]]:
    """The pricing tool's comparison as rows, cheapest first: the cheapest on-demand way for
    the period and the cheapest of each committed kind."""
    priced = [("on-demand", found.get("on_demand"))] + [
        (TERM_NAMES.get(kind := str((p.get("offer") or {}).get("kind")), kind), p)
        for p in found.get("terms") or [] if isinstance(p, dict)]
    rows = []
    for name, p in priced:
        if not isinstance(p, dict):
            continue
        offer = p.get("offer") or {}
        rows.append({"option": name, "cost_usd": p.get("total_usd"),
                     "billed_hours": p.get("billed_hours"), "unused_hours": p.get("unused_hours"),
                     "usd_per_gpu_hour": offer.get("effective_usd_per_gpu_hour"),
                     "provider": offer.get("provider"), "stale": offer.get("stale"),
                     "billed_gpus": p.get("billed_gpus"), "offer": offer.get("product")})
    return sorted(rows, key=lambda r: r["cost_usd"] if r["cost_usd"] is not None else 0.0)


def tokens_text(tokens: Any) -> str:
    """A data size as a short cell: 79.9M, 1B, 10B."""
    if not isinstance(tokens, int | float):
        return "" if tokens is None else str(tokens)
    return f"{tokens / 1e9:.3g}B" if tokens >= 1e9 else f"{tokens / 1e6:.3g}M"


def budget_row(row: dict[str, Any]) -> dict[str, Any]:
    """One row of the budget table: the largest model a method affords on a data size (none:
    a dash in the model column)."""
    cluster = f"{row['gpus']}× {row['gpu']}" if row.get("gpu") else None
    return {"method": row.get("workload"), "data_tokens": tokens_text(row.get("tokens")),
            "model": row.get("model"), "cluster": cluster, "cost_usd": row.get("cost_usd"),
            "training_days": row.get("training_days"), "provider": row.get("provider")}


def layout_text(layout: Any) -> str:
    """A layout as one short cell: 'tp=1 pp=1 dp=32 zero_stage=3'."""
    if not isinstance(layout, dict):
        return "" if layout is None else str(layout)
    return " ".join(f"{k}={v}" for k, v in layout.items())


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
        yield _hidden(Label("Step time", classes="plan-heading", id="steps-heading"))
        for name, heading in (("options", "Plan options, cheapest to fastest"),
                              ("budget", "Largest model within the budget, by method and data"),
                              ("commitments", "On-demand against committed, cheapest first"),
                              ("layouts", "Layouts, best first"),
                              ("rejected", "Ruled out, and why"),
                              ("offers", "Offers, cheapest first")):
            yield _hidden(Label(heading, classes="plan-heading", id=f"{name}-heading"))
            yield _hidden(ToolTable(heading, id=name))

    async def show_plan(self, data: dict[str, Any]) -> None:
        """Replace the tab's content with what `data` holds; keep it empty when it holds nothing."""
        view = plan_view(data)
        await self.query(MemoryChart).remove()
        await self.query(StepChart).remove()
        heading = self.query_one("#memory-heading")
        charts = [MemoryChart(*chart) for chart in reversed(view.charts)]
        for chart in charts:
            await self.mount(chart, after=heading)
        if view.steps:
            await self.mount(StepChart(view.steps), after=self.query_one("#steps-heading"))
        self.query_one("#options", ToolTable).show_rows(view.options, OPTION_COLUMNS)
        self.query_one("#budget", ToolTable).show_rows(view.budget, BUDGET_COLUMNS)
        self.query_one("#commitments", ToolTable).show_rows(view.commitments,
                                                            COMMITMENT_COLUMNS)
        self.query_one("#layouts", ToolTable).show_rows(view.layouts)
        self.query_one("#rejected", ToolTable).show_rows(view.rejected)
        self.query_one("#offers", ToolTable).show_rows(view.offers, OFFER_COLUMNS)
        self._show_sections(view)

    def _show_sections(self, view: PlanView) -> None:
        self.query_one("#plan-empty").display = view.empty
        self.query_one("#memory-heading").display = bool(view.charts)
        self.query_one("#steps-heading").display = bool(view.steps)
        shown = (("options", view.options), ("budget", view.budget),
                 ("commitments", view.commitments), ("layouts", view.layouts),
                 ("rejected", view.rejected), ("offers", view.offers))
        for name, rows in shown:
            self.query_one(f"#{name}-heading").display = bool(rows)
            self.query_one(f"#{name}").display = bool(rows)
