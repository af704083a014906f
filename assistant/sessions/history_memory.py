"""Conversations kept in this process only: a batch's session, which no one resumes later.

The same calls as HistoryStore, without writing each Answer to SQLite as JSON: a batch already
holds its answers, so serialising a thousand of them into a scratch database only to drop it
cost about a sixth of a batch's time. A `/report` line in a batch reads the answers from here.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from clusterplan.assistant.answer import Answer
from clusterplan.assistant.sessions.history_store import SessionInfo


@dataclass
class _Session:
    info: SessionInfo
    answers: list[Answer] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)


class HistoryInMemory:
    """Sessions and their answers held in memory, in the order they were given."""

    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}

    def find_session(self, name_or_id: str) -> SessionInfo | None:
        """The session with this id, else the latest one with this name, else None."""
        if name_or_id in self._sessions:
            return self._info(self._sessions[name_or_id])
        named = [s for s in self._sessions.values() if s.info.name == name_or_id]
        return self._info(named[-1]) if named else None

    def sessions(self) -> list[SessionInfo]:
        """Every session, most recently used first."""
        return [self._info(s) for s in reversed(self._sessions.values())]

    def record(self, session: SessionInfo, question: str, answer: Answer,
               state: dict[str, Any]) -> None:
        """Keep one exchange and the session's state; the session moves to the front."""
        kept = self._sessions.pop(session.id, None) or _Session(session)
        now = dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")
        kept.info = kept.info.model_copy(update={"updated_at": now})
        kept.answers.append(answer)
        kept.state = dict(state)
        self._sessions[session.id] = kept

    def save_state(self, session_id: str, state: dict[str, Any]) -> None:
        """Replace the session's state (its follow-up context)."""
        if session_id in self._sessions:
            self._sessions[session_id].state = dict(state)

    def rename(self, session_id: str, name: str) -> None:
        """Give the session a new name (a session not yet recorded keeps it when it is)."""
        if session_id in self._sessions:
            kept = self._sessions[session_id]
            kept.info = kept.info.model_copy(update={"name": name})

    def state(self, session_id: str) -> dict[str, Any]:
        """The session's state; an unknown session has an empty one."""
        kept = self._sessions.get(session_id)
        return dict(kept.state) if kept else {}

    def answers(self, session_id: str) -> list[Answer]:
        """The session's answers in the order they were given."""
        kept = self._sessions.get(session_id)
        return list(kept.answers) if kept else []

    @staticmethod
    def _info(kept: _Session) -> SessionInfo:
        first = kept.answers[0].question[:200] if kept.answers else ""
        return kept.info.model_copy(update={"questions": len(kept.answers),
                                            "first_question": first})
