"""What the chat log holds: questions and replies as Markdown, and a clarification's choices.

Apart from the chat itself because Markdown takes a while to import: the question box is on
screen first, and these load behind it.
"""

from __future__ import annotations

from textual.widgets import Markdown, OptionList


class Question(Markdown):
    """The person's question, as they typed it."""


class Reply(Markdown):
    """The assistant's answer: the direct reply first, then its tables."""

    BORDER_TITLE = "clusterplan"


class Choices(OptionList):
    """The choices offered by a clarifying question; picking one answers it."""
