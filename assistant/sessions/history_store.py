"""Conversations kept in SQLite: sessions, and every question with its Answer as JSON.

Each exchange is written as one transaction (session row if new, question row, answer row,
session state), so a reader never sees a question without its answer, and a crash never leaves
half an exchange.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from pydantic import BaseModel, ValidationError

from clusterplan.assistant.answer import Answer
from clusterplan.db.store import Store

_NEW_SESSION = ("insert or ignore into sessions (id, name, created_at, updated_at, state_json) "
                "values (?, ?, ?, ?, '{}')")
_NEW_MESSAGE = ("insert into messages (session_id, role, text, answer_json, created_at) "
                "values (?, ?, ?, ?, ?)")
_TOUCH_SESSION = "update sessions set updated_at = ?, state_json = ? where id = ?"


class SessionInfo(BaseModel):
    """A stored conversation as a list of sessions shows it."""

    id: str
    name: str | None = None
    updated_at: str
    questions: int = 0
    first_question: str = ""


class HistoryStore:
    """Reads and writes sessions and messages (the store has applied the history migrations)."""

    def __init__(self, store: Store):
        self.conn = store.conn

    def find_session(self, name_or_id: str) -> SessionInfo | None:
        """The session with this id, else the latest one with this name, else None."""
        found = self._infos("where s.id = ?", [name_or_id])
        if not found:
            found = self._infos("where s.name = ? order by s.updated_at desc limit 1",
                                [name_or_id])
        return found[0] if found else None

    def sessions(self) -> list[SessionInfo]:
        """Every session, most recently used first."""
        return self._infos("order by s.updated_at desc, s.rowid desc", [])

    def latest_session(self) -> SessionInfo | None:
        """The session used most recently, if any."""
        found = self._infos("order by s.updated_at desc, s.rowid desc limit 1", [])
        return found[0] if found else None

    def record(self, session: SessionInfo, question: str, answer: Answer,
               state: dict[str, Any]) -> None:
        """Store one exchange, the session (if new) and its state in one transaction."""
        now, session_id = _now(), session.id
        answer_json, state_json = answer.model_dump_json(), _dump(state)  # outside the lock
        with self.conn as conn:  # one transaction: committed, or rolled back on an error
            conn.execute(_NEW_SESSION, [session_id, session.name, now, now])
            conn.executemany(_NEW_MESSAGE, [
                (session_id, "user", question, None, now),
                (session_id, "assistant", answer.markdown, answer_json, now),
            ])
            conn.execute(_TOUCH_SESSION, [now, state_json, session_id])

    def save_state(self, session_id: str, state: dict[str, Any]) -> None:
        """Replace the session's state (its follow-up context)."""
        with self.conn as conn:
            conn.execute("update sessions set state_json = ? where id = ?",
                         [_dump(state), session_id])

    def rename(self, session_id: str, name: str) -> None:
        """Give the session a new name (a session not yet written gets it with its first row)."""
        with self.conn as conn:
            conn.execute("update sessions set name = ? where id = ?", [name, session_id])

    def state(self, session_id: str) -> dict[str, Any]:
        """The session's saved state; an unreadable state is an empty one."""
        row = self.conn.execute("select state_json from sessions where id = ?",
                              [session_id]).fetchone()
        try:
            loaded = json.loads(row[0]) if row and row[0] else {}
        except json.JSONDecodeError:
            return {}
        return loaded if isinstance(loaded, dict) else {}

    def answers(self, session_id: str) -> list[Answer]:
        """The session's answers in the order they were given (unreadable rows skipped)."""
        rows = self.conn.execute(
            "select answer_json from messages where session_id = ? and role = 'assistant' "
            "order by id", [session_id]).fetchall()
        found = []
        for (text,) in rows:
            try:
                found.append(Answer.model_validate_json(text))
            except (ValidationError, TypeError):
                continue  # written by an older Answer shape; the rest still load
        return found

    def _infos(self, where: str, params: list[Any]) -> list[SessionInfo]:
        sql = (
            "select s.id, s.name, s.updated_at, "
            "(select count(*) from messages m where m.session_id = s.id and m.role = 'user'), "
            "(select m.text from messages m where m.session_id = s.id and m.role = 'user' "
            " order by m.id limit 1) "
            f"from sessions s {where}"
        )
        return [
            SessionInfo(id=r[0], name=r[1], updated_at=r[2], questions=r[3],
                        first_question=(r[4] or "")[:200])
            for r in self.conn.execute(sql, params).fetchall()
        ]


def _dump(state: dict[str, Any]) -> str:
    return json.dumps(state, default=str)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")
