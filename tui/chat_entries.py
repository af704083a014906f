"""What the chat log holds: questions and replies, and a clarification's choices.

Each entry is one widget that draws its Markdown with Rich, not a tree of Markdown widgets:
a log of many answers stays a few dozen widgets, so restyling (ctrl+t) and layout (a resize)
do not grow with it. Older replies fold to a one-line summary (enter or a click unfolds one),
so only the last few are laid out in full.
"""

from __future__ import annotations

from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList, Static

SUMMARY_CHARS = 100


class Question(Static):
    """The person's question, as they typed it (shown as typed, never read as markup)."""

    def __init__(self, text: str, **kwargs: object) -> None:
        super().__init__(Text(text), **kwargs)  # type: ignore[arg-type]
        self.source = text


def summary(markdown: str) -> str:
    """The first line of an answer that says something, shortened: a folded reply's label."""
    for line in markdown.splitlines():
        words = line.strip().lstrip("#>*-|_ ").replace("**", "").replace("`", "").strip()
        if words:
            return words if len(words) <= SUMMARY_CHARS else words[:SUMMARY_CHARS - 1] + "…"
    return "(empty)"


class Reply(Static, can_focus=False):
    """The assistant's answer: the direct reply first, then its tables; folds to one line."""

    BORDER_TITLE = "clusterplan"
    BINDINGS = [Binding("enter,space", "toggle_fold", "Fold/unfold", show=False)]

    def __init__(self, markdown: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.source = markdown
        self.folded = False
        self._draw()

    def update(self, markdown: str = "") -> None:  # type: ignore[override]
        """Show `markdown` (Rich parses it once here; Textual caches what it draws per width)."""
        self.source = markdown
        self._draw()

    def fold(self, folded: bool = True) -> None:
        """Show only the first line (folded), or the whole answer."""
        if folded != self.folded:
            self.folded = folded
            self.set_class(folded, "-folded")
            self.can_focus = folded
            self._draw()

    def action_toggle_fold(self) -> None:
        self.fold(not self.folded)

    def on_click(self) -> None:
        if self.folded:
            self.fold(False)

    def _draw(self) -> None:
        if self.folded:
            super().update(Text.assemble(("▸ ", "bold"), summary(self.source),
                                         ("  (enter or click: whole answer)", "dim")))
        else:
            super().update(RichMarkdown(self.source, hyperlinks=False))


class Choices(OptionList):
    """The choices offered by a clarifying question; picking one answers it."""

    BINDINGS = [Binding("escape", "back", "Back to the question box", show=False)]

    def on_focus(self) -> None:
        if self.highlighted is None and self.option_count:
            self.highlighted = 0  # so up/down and enter work at once

    def action_back(self) -> None:
        self.screen.query_one("#question").focus()
