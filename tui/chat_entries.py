"""What the chat log holds: questions and replies, and a clarification's choices.

Each entry is one widget that draws its Markdown with Rich, not a tree of Markdown widgets,
and only the last few answers are entries at all: older ones are lines of one list
(`EarlierAnswers`), so restyling (ctrl+t) and layout (a resize) do not grow with the log.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from clusterplan.tui.fitted_tables import FittedMarkdown

SUMMARY_CHARS = 100
QUESTION_CHARS = 60
WIDTHS_KEPT = 4  # the chat's widths with and without the panel, and a resize or two


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


class Reply(Widget):
    """The assistant's answer: the direct reply first, then its tables (fitted to the width).

    Drawn through Textual's line API from lines kept per width: showing or hiding the side
    panel flips the chat between two widths, and each is drawn once, not on every flip.
    """

    BORDER_TITLE = "clusterplan"

    def __init__(self, markdown: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.source = markdown
        self._drawn: dict[tuple[int, Style], list[Strip]] = {}  # (width, style) -> lines

    def update(self, markdown: str = "") -> None:
        """Show `markdown` instead (drawn again at each width as it is needed)."""
        self.source = markdown
        self._drawn.clear()
        self.refresh(layout=True)

    def lines(self, width: int) -> list[Strip]:
        """The answer drawn `width` cells wide (Rich parses and lays it out once per width)."""
        key = (width, self.rich_style)  # a theme change restyles: drawn again
        lines = self._drawn.get(key)
        if lines is None:
            console = self.app.console
            options = console.options.update(width=width, height=None, highlight=False)
            drawn = console.render_lines(FittedMarkdown(self.source, hyperlinks=False),
                                         options, style=self.rich_style, pad=True)
            lines = [Strip(segments, width) for segments in drawn]
            while len(self._drawn) >= WIDTHS_KEPT:
                self._drawn.pop(next(iter(self._drawn)))  # the oldest width goes first
            self._drawn[key] = lines
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self.lines(width)
        return lines[y] if y < len(lines) else Strip.blank(width, self.rich_style)


class EarlierAnswers(OptionList):
    """Answers older than the last few, a line each, in one widget: the log stays a few
    widgets however long the session, so a toggle or a resize costs the same at 100 answers
    as at 1. Enter (or a click) opens one whole."""

    @dataclass
    class Opened(Message):
        """A person chose an earlier answer to read whole."""

        question: str
        markdown: str

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.entries: list[tuple[str, str]] = []  # (question, answer's Markdown), oldest first
        self.display = False

    def add_entries(self, entries: list[tuple[str, str]]) -> None:
        """Add (question, Markdown) pairs, oldest first, after those already listed."""
        if not entries:
            return
        self.entries += entries
        self.add_options(Option(earlier_line(q, md)) for q, md in entries)
        self.border_title = f"Earlier answers ({len(self.entries)}) · enter opens one"
        self.display = True

    def clear_entries(self) -> None:
        self.entries.clear()
        self.clear_options()
        self.display = False

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Opened(*self.entries[event.option_index]))


def earlier_line(question: str, markdown: str) -> Content:
    """One earlier answer's line: the question, then the answer's first line."""
    return Content.assemble(("▸ ", "bold"), _short(question, QUESTION_CHARS),
                            (" → ", "dim"), summary(markdown))


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


class Choices(OptionList):
    """The choices offered by a clarifying question; picking one answers it."""

    BINDINGS = [Binding("escape", "back", "Back to the question box", show=False)]

    def on_focus(self) -> None:
        if self.highlighted is None and self.option_count:
            self.highlighted = 0  # so up/down and enter work at once

    def action_back(self) -> None:
        self.screen.query_one("#question").focus()
