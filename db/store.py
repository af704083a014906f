"""The SQLite store: built on first use, checked on every open, rebuilt when the catalog changes.

Catalog tables (gpus, links, models, providers, catalog offers) are rebuilt from the seed CSVs
whenever the shipped catalog's fingerprint changes; rows a user imported (offers with
origin='user') and the conversation history (sessions, messages) survive every rebuild.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel
from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from clusterplan.db.seed_data import CATALOG, catalog_fingerprint, seed_rows

# Database(..., execute_plugins=False) throughout: loading sqlite-utils plugins scans every
# installed package's entry points (tens of ms at each start) for hooks clusterplan never uses.

APP_ID = "clusterplan"
SCHEMA_VERSION = "1"

history = Migrations("clusterplan-history")


@history()
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


class StoreError(Exception):
    """The store cannot be opened or built; the message says why in one sentence."""


class Store:
    """One SQLite database holding the catalog, the user's imported rows and sessions."""

    def __init__(self, db: Database, path: Path | None = None, notices: list[str] | None = None):
        self.db = db
        self.path = path
        self.notices = notices or []
        self._catalog: Any = None

    @classmethod
    def memory(cls) -> Store:
        """A fresh in-memory store (tests, one-off calculations)."""
        # The app's workers are threads: the connection must be usable from any of them.
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        db = Database(connection, execute_plugins=False)
        _initialise(db)
        return cls(db)

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open the store at `path`, building it or refreshing its catalog as needed."""
        if not path.parent.is_dir():
            raise StoreError(f"the directory for the store does not exist: {path.parent}")
        notices: list[str] = []
        if path.exists() and not _is_our_store(path):
            aside = path.with_name(f"{path.name}.unreadable-{_stamp()}")
            os.replace(path, aside)
            notices.append(
                f"{path} was not a clusterplan store; moved it to {aside} and built anew")
        if not path.exists():
            _build_new(path)
        db = Database(sqlite3.connect(path, timeout=30, check_same_thread=False),
                      execute_plugins=False)
        # Under WAL, NORMAL syncs at checkpoints rather than on every commit: a saved message
        # costs no fsync, and a crash can lose only the last few commits, never corrupt the file.
        db.conn.execute("pragma synchronous = normal")
        _refresh_if_stale(db)
        return cls(db, path, notices)

    def rebuild_catalog(self) -> None:
        """Rebuild the catalog tables from the shipped CSVs, keeping user rows and history."""
        with _immediate(self.db):
            _load_catalog(self.db)
        self._catalog = None

    def meta(self, key: str) -> str | None:
        row = self.db.execute("select value from meta where key = ?", [key]).fetchone()
        return row[0] if row else None


def _stamp() -> str:
    return dt.datetime.now().strftime("%Y%m%d-%H%M%S")


def _is_our_store(path: Path) -> bool:
    """A readable SQLite file whose meta table says it is ours."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            row = conn.execute("select value from meta where key = 'app'").fetchone()
            return row is not None and row[0] == APP_ID
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False


def _build_new(path: Path) -> None:
    """Build into a temporary file and link it into place, so a racing builder never clobbers."""
    fd, tmp_name = tempfile.mkstemp(prefix=".clusterplan-", suffix=".db", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        db = Database(tmp, execute_plugins=False)
        _initialise(db)
        db.conn.execute("pragma journal_mode=wal")
        db.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process finished first; its store is as good as ours
    finally:
        tmp.unlink(missing_ok=True)


def _initialise(db: Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
    db.table("meta").upsert({"key": "app", "value": APP_ID}, pk="key")
    history.apply(db)
    with _immediate(db):
        _load_catalog(db)


def _refresh_if_stale(db: Database) -> None:
    db.conn.execute("pragma busy_timeout = 30000")
    history.apply(db)
    if _fingerprint(db) == _wanted_fingerprint():
        return
    with _immediate(db):
        if _fingerprint(db) != _wanted_fingerprint():  # another process may have just done it
            _load_catalog(db)


def _wanted_fingerprint() -> str:
    return f"{SCHEMA_VERSION}:{catalog_fingerprint()}"


def _fingerprint(db: Database) -> str | None:
    row = db.execute("select value from meta where key = 'catalog'").fetchone()
    return row[0] if row else None


class _immediate:
    """A write transaction taken up front, so two processes refreshing do not interleave."""

    def __init__(self, db: Database):
        self.conn = db.conn

    def __enter__(self) -> None:
        self.conn.execute("begin immediate")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.conn.execute("rollback" if exc_type else "commit")


def _load_catalog(db: Database) -> None:
    """Replace the catalog tables; user offers are carried over through the current row model."""
    user_offers = _user_offers(db)
    for table, (_, model, pk) in CATALOG.items():
        db.execute(f"drop table if exists [{table}]")
        columns = _columns(model)
        if table == "offers":
            db.table(table).create({"id": int, **columns}, pk="id")
        else:
            db.table(table).create(columns, pk=pk)
        rows = seed_rows(table) + (user_offers if table == "offers" else [])
        if rows:
            db.table(table).insert_all(rows)
    db.table("meta").upsert({"key": "catalog", "value": _wanted_fingerprint()}, pk="key")


def _user_offers(db: Database) -> list[dict]:
    if "offers" not in db.table_names():
        return []
    _, model, _ = CATALOG["offers"]
    fields = set(model.model_fields)
    rows = db.execute_returning_dicts("select * from offers where origin = 'user'")
    return [{k: v for k, v in row.items() if k in fields} for row in rows]


def _columns(model: type[BaseModel]) -> dict[str, type]:
    """SQLite column types for a row model's fields."""
    columns: dict[str, type] = {}
    for name, field in model.model_fields.items():
        kinds = [a for a in (get_args(field.annotation) or (field.annotation,)) if a is not None]
        kind = kinds[0] if kinds else str
        columns[name] = kind if kind in (int, float) else int if kind is bool else str
    return columns
