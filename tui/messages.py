"""What the app's workers report back, in the past tense; handlers turn them into widget changes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # the core loads behind the first screen, not before it
    from clusterplan.assistant.answer import Answer


@dataclass
class SessionLoaded(Message):
    """A session was started or reopened: its name and the answers it already holds.

    `replace` is False for the session the app starts in: questions asked while it was
    still loading stay, after its history.
    """

    name: str
    history: list[Answer]
    replace: bool = True


@dataclass
class SessionsListed(Message):
    """The saved sessions were read, newest first, for the open-session dialog."""

    sessions: list[Any]


@dataclass
class ReportWritten(Message):
    """The session report was written to `path`."""

    path: Path


@dataclass
class NoteLoaded(Message):
    """A note was read for the note viewer, as Markdown."""

    title: str
    markdown: str
