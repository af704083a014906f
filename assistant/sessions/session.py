"""A conversation with the assistant: follow-ups, slash commands, stored and resumable.

The one object every front end holds (the terminal app, `clusterplan ask`, batch, MCP). A
session is written to SQLite with its first exchange, so opening the app without asking
anything leaves no empty session behind.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from clusterplan.assistant.answer import Answer, Intent
from clusterplan.assistant.parsing.calibration import learnt
from clusterplan.assistant.report.document import render_report, select
from clusterplan.assistant.respond import respond
from clusterplan.assistant.sessions.history_store import HistoryStore, SessionInfo
from clusterplan.assistant.sessions.slash import is_session_command, run_command, with_slash
from clusterplan.db.store import Store
from clusterplan.text import without_surrogates

if TYPE_CHECKING:
    from clusterplan.assistant.sessions.history_memory import HistoryInMemory



class Assistant:
    """Answers questions in one session at a time, keeping the last intent for follow-ups."""

    def __init__(self, store: Store, session: str | None = None,
                 history: HistoryStore | HistoryInMemory | None = None,
                 writes_files: bool = True, one_off: bool = False):
        self.store = store
        # False where questions are data (a batch file): slash commands that write are refused
        self.writes_files = writes_files
        self.one_off = one_off  # a CLI question on its own: kept, but out of the app's list
        self.saved = history if history is not None else HistoryStore(store)
        self.last_intent: Intent | None = None
        # A measurement the user gave to calibrate on, kept for the session's later questions.
        self.calibration: dict[str, Any] | None = None
        self._session = _unsaved(None)
        if session:
            self.open_session(session)

    @property
    def session_id(self) -> str:
        return self._session.id

    @property
    def session_name(self) -> str | None:
        return self._session.name

    def ask(self, text: str) -> Answer:
        """Answer a question or a slash command, store the exchange; never raises."""
        question = with_slash(_readable(text))
        try:
            answer = self._answer(question)
        except Exception as exc:  # the promise to every front end: an Answer, never a crash
            message = f"{type(exc).__name__}: {exc}"[:500]
            answer = Answer(question=question, markdown=f"Could not answer: {message}",
                            error=message)
        if answer.intent is not None:
            self.last_intent = answer.intent
        self.calibration = learnt(answer) or self.calibration
        if self._session.name is None and self._session.questions == 0 and not self.one_off:
            self._session = self._session.model_copy(update={"name": auto_name(question)})
        self._save(question, answer)
        return answer

    def new_session(self, name: str | None = None) -> SessionInfo:
        """Start a fresh session (written with its first question)."""
        self._session = _unsaved(name)
        self.last_intent = self.calibration = None
        return self._session

    def open_session(self, name_or_id: str) -> SessionInfo:
        """Resume the session with this id or name; a name not seen before starts a new one."""
        found = self.saved.find_session(name_or_id)
        if found is None:
            return self.new_session(name_or_id)
        self._session = found
        state = self.saved.state(found.id)
        self.last_intent = _intent(state.get("last_intent"))
        kept = state.get("calibration")
        self.calibration = kept if isinstance(kept, dict) else None
        return found

    def rename_session(self, name: str) -> None:
        """Name (or rename) the current session."""
        self._session = self._session.model_copy(update={"name": name})
        self.saved.rename(self._session.id, name)

    def sessions(self) -> list[SessionInfo]:
        """Every saved session but one-off CLI questions, most recently used first."""
        return [s for s in self.saved.sessions() if not self.saved.state(s.id).get("one_off")]

    def history(self) -> list[Answer]:
        """The answers given in this session, oldest first."""
        return self.saved.answers(self.session_id)

    def reset(self) -> None:
        """Forget the follow-up context and any calibration (the history stays)."""
        self.last_intent = self.calibration = None
        self.saved.save_state(self.session_id, self._state())

    def report(self, title: str | None = None, date: dt.date | None = None,
               drop: Iterable[int] = (), author: str | None = None) -> str:
        """The session's planning report as Markdown: session commands left out, and the
        questions numbered `drop` (as the report numbers them) and repeated ones."""

        answers = [a for a in self.history() if not is_session_command(a.question)]
        kept, numbers = select(answers, drop)
        return render_report(kept, date or dt.date.today(), title, self.session_name,
                             author=author, numbers=numbers)

    def _answer(self, question: str) -> Answer:
        if question.lstrip().startswith("/"):
            return run_command(self, question)

        return respond(question, previous=self.last_intent, carried=self.calibration)

    def _save(self, question: str, answer: Answer) -> None:
        try:
            self.saved.record(self._session, question, answer, self._state())
        except Exception as exc:  # a locked or read-only store must not cost the answer
            answer.warnings.append(f"this answer was not saved to the history: {exc}")
        else:
            self._session = self._session.model_copy(
                update={"questions": self._session.questions + 1})

    def _state(self) -> dict[str, object]:
        intent = self.last_intent.model_dump(mode="json") if self.last_intent else None
        state: dict[str, object] = {"last_intent": intent}
        if self.calibration:
            state["calibration"] = self.calibration
        if self.one_off:
            state["one_off"] = True
        return state


AUTO_NAME_CHARS = 48


def auto_name(question: str) -> str:
    """A session's name from its first question: its first words, shortened at a word."""
    words = " ".join(question.split()).rstrip("?.! ")
    if len(words) <= AUTO_NAME_CHARS:
        return words or "session"
    cut = words[:AUTO_NAME_CHARS].rsplit(" ", 1)[0]
    return cut + " …"  # apart: 'Llama 3 …' is a whole 3, 'Llama 3…' reads as a cut 30 or 3.1


def _unsaved(name: str | None) -> SessionInfo:
    now = dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")
    return SessionInfo(id=uuid.uuid4().hex, name=name, updated_at=now)


def _intent(value: object) -> Intent | None:
    if not isinstance(value, dict):
        return None
    try:
        return Intent.model_validate(value)
    except ValidationError:
        return None


def _readable(text: object) -> str:
    """The question as storable text: lone surrogates (undecodable bytes) become U+FFFD."""
    return str(without_surrogates(str(text)))
