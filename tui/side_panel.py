"""The side panel: the last answer's steps, sources and plan, a tab each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import TabbedContent, TabPane

from clusterplan.tui.plan_panel import PlanPanel
from clusterplan.tui.sources_panel import SourcesPanel
from clusterplan.tui.trace_panel import TracePanel

if TYPE_CHECKING:  # the core loads behind the first screen, not before it
    from clusterplan.assistant.answer import Answer


class SidePanel(Vertical):
    """Trace, Sources and Plan tabs; mounted lazily, so it may arrive after an answer."""

    class Mounted(Message):
        """The panel is in place and can show an answer."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.ready = False

    def compose(self) -> ComposeResult:
        with TabbedContent():
            with TabPane("Trace", id="trace-tab"):
                yield TracePanel(id="trace")
            with TabPane("Sources", id="sources-tab"):
                yield SourcesPanel(id="sources")
            with TabPane("Plan", id="plan-tab"):
                yield PlanPanel(id="plan")

    def on_mount(self) -> None:
        self.ready = True
        self.post_message(self.Mounted())

    async def show(self, answer: Answer | None) -> None:
        """Show `answer`'s steps, sources and plan (None: no answer yet)."""
        self.query_one(TracePanel).show_steps(answer.trace if answer else None)
        self.query_one(SourcesPanel).show_sources(answer.citations if answer else [])
        await self.query_one(PlanPanel).show_plan(answer.data if answer else {})
