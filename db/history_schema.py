"""The history tables (sessions, messages) as sqlite-utils migrations, applied in order once.

Imported only when a store is built or has a migration to apply: a store already up to date is
checked against HISTORY_MIGRATIONS with sqlite3 alone (db/store.py).
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from clusterplan.db.store import HISTORY_MIGRATIONS, HISTORY_SET

history = Migrations(HISTORY_SET)


@history(name=HISTORY_MIGRATIONS[0])
def create_sessions_and_messages(db: Database) -> None:
    db.table("sessions").create(
        {"id": str, "name": str, "created_at": str, "updated_at": str, "state_json": str},
        pk="id",
        if_not_exists=True,
    )
    db.table("messages").create(
        {"id": int, "session_id": str, "role": str, "text": str, "answer_json": str,
         "created_at": str},
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
        if_not_exists=True,
    )
    db.table("messages").create_index(["session_id"], if_not_exists=True)

