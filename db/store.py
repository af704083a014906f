"""The SQLite store: built on first use, checked on every open, rebuilt when the catalog changes.

Catalog tables (gpus, links, models, providers, catalog offers) are rebuilt from the seed CSVs
whenever the shipped catalog's fingerprint changes; rows a user imported (offers and models
with origin='user') and the conversation history (sessions, messages) survive every rebuild.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args
from urllib.parse import quote, urlencode

from clusterplan.db.seed_data import CATALOG, catalog_fingerprint, seed_rows

if TYPE_CHECKING:
    from pydantic import BaseModel
    from sqlite_utils import Database

# Opening a store that is up to date reads it with sqlite3 alone. sqlite-utils (with what it
# imports, near 0.1 s of every start) is loaded only to build or change tables, always as
# Database(..., execute_plugins=False): loading its plugins scans every installed package's
# entry points for hooks clusterplan never uses.

APP_ID = "clusterplan"
SCHEMA_VERSION = "5"  # 2: model rows gained shared experts, windows, precision, origin;
#                       3: GPU capacity in driver bytes, nullable peaks; 4: RTX 4090 D, Qwen-1;
#                       5: GPU rows gained pair_link (NVLink bridges of PCIe cards)
BUSY_TIMEOUT_S = 30.0  # how long to wait for another process's lock before saying so
HISTORY_SET = "clusterplan-history"
HISTORY_MIGRATIONS = ("create_sessions_and_messages",)  # db/history_schema.py, in order


class StoreError(Exception):
    """The store cannot be opened or built; the message says why in one sentence."""


class Store:
    """One SQLite database holding the catalog, the user's imported rows and sessions."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None = None,
                 notices: list[str] | None = None):
        self.conn = conn
        self.path = path
        self.notices = notices or []
        self._catalog: Any = None
        self._db: Database | None = None
        self.read_only = False

    @property
    def db(self) -> Database:
        """sqlite-utils over the same connection, for code that creates or fills tables."""
        if self._db is None:
            self._db = _utils(self.conn)
        return self._db

    @classmethod
    def memory(cls) -> Store:
        """A fresh in-memory store (tests, one-off calculations)."""
        store = cls(_connect(":memory:"))
        _initialise(store.db)
        return store

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open the store at `path`, building it or refreshing its catalog as needed."""
        if not path.parent.is_dir():
            raise StoreError(f"the directory for the store does not exist: {path.parent}")
        try:
            return cls._open(path)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot use the store {path}: {_one_line(exc)}; "
                             "nothing in it was changed") from None
        except OSError as exc:
            raise StoreError(f"cannot use the store {path}: {exc.strerror or exc}; "
                             "nothing in it was changed") from None

    @classmethod
    def _open(cls, path: Path) -> Store:
        notices: list[str] = []
        if path.is_symlink() and not path.exists():
            raise StoreError(f"the store {path} is a symbolic link to a missing file")
        if path.exists() and not path.is_file():
            raise StoreError(f"the store {path} is not a regular file")
        if path.exists() and not _is_our_store(path):
            aside = path.with_name(f"{path.name}.unreadable-{_stamp()}")
            os.replace(path, aside)
            notices.append(
                f"{path} was not a clusterplan store; moved it to {aside} and built anew")
        if not path.exists():
            notices += _set_aside_orphaned_logs(path)
            _build_new(path)
        if not _writable(path):
            conn = _connect_read_only(path)
            if not _up_to_date(conn):
                conn.close()
                raise StoreError(f"the store {path} is read-only and needs an upgrade; "
                                 "make it writable once")
            notices.append(f"the store {path} is read-only: answers work, nothing is saved")
            store = cls(conn, path, notices)
            store.read_only = True
            return store
        store = cls(_connect(path), path, notices)
        # Under WAL, NORMAL syncs at checkpoints rather than on every commit: a saved message
        # costs no fsync, and a crash can lose only the last few commits, never corrupt the file.
        store.conn.execute("pragma synchronous = normal")
        if not _up_to_date(store.conn):
            _refresh(store.db)
        _index_offers(store.conn)
        return store

    def rebuild_catalog(self) -> None:
        """Rebuild the catalog tables from the shipped CSVs, keeping user rows and history."""
        with _immediate(self.conn):
            _load_catalog(self.db)
        self._catalog = None

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("select value from meta where key = ?", [key]).fetchone()
        return row[0] if row else None

    def table_names(self) -> set[str]:
        """The tables in the store."""
        rows = self.conn.execute("select name from sqlite_master where type = 'table'")
        return {name for (name,) in rows}

    def rows(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """The rows of a query as dicts, column name to value."""
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _connect(path: Path | str) -> sqlite3.Connection:
    # The app's workers are threads: the connection must be usable from any of them.
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    conn.execute("pragma recursive_triggers = on")  # as sqlite-utils sets it on every connection
    return conn


def _utils(conn: sqlite3.Connection) -> Database:
    # lazy: sqlite-utils (~0.1 s) only for building or migrating a store
    from sqlite_utils import Database

    return Database(conn, execute_plugins=False)


def _history() -> Any:
    # lazy: sqlite-utils costs ~0.1 s to import and only a new or migrating store needs it
    from clusterplan.db.history_schema import history

    return history


def _stamp() -> str:
    return dt.datetime.now().strftime("%Y%m%d-%H%M%S")


SQLITE_HEADER = b"SQLite format 3\x00"
# The SQLite errors that say a file is positively not a store (not a database, or damaged):
# only those move a file aside. Anything else (locked, disk full, I/O, permission) is
# transient: reported, and the file is left as it is.
_NOT_OURS = {"SQLITE_NOTADB", "SQLITE_CORRUPT"}


def _uri(path: Path, **query: str) -> str:
    """A file: URI for `path`; '#', '?' and '%' in the name are escaped, not taken as syntax."""

    return f"file:{quote(str(path.absolute()))}?{urlencode(query)}"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only store: opened read-only, or immutable when its directory forbids the
    write-ahead log's shared-memory file."""
    for query in ({"mode": "ro"}, {"mode": "ro", "immutable": "1"}):
        conn = sqlite3.connect(_uri(path, **query), uri=True, timeout=BUSY_TIMEOUT_S,
                               check_same_thread=False)
        try:
            conn.execute("select count(*) from sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
    raise StoreError(f"the store {path} is read-only and cannot be read")


def _is_our_store(path: Path) -> bool:
    """A readable SQLite file whose meta table says it is ours; False only when the file is
    positively something else. A transient failure raises StoreError and changes nothing."""
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"cannot read the store {path}: {exc.strerror or exc}; "
                         "nothing in it was changed") from None
    if header != SQLITE_HEADER:
        return False
    query = {"mode": "ro"} if _writable(path) else {"mode": "ro", "immutable": "1"}
    try:
        conn = sqlite3.connect(_uri(path, **query), uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            names = {n for (n,) in conn.execute(
                "select name from sqlite_master where type = 'table'")}
            if "meta" not in names:
                return False
            row = conn.execute("select value from meta where key = 'app'").fetchone()
            return row is not None and row[0] == APP_ID
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorname", None) in _NOT_OURS:
            return False
        raise StoreError(f"cannot read the store {path}: {_one_line(exc)}; "
                         "nothing in it was changed") from None


def _set_aside_orphaned_logs(path: Path) -> list[str]:
    """Move aside the -wal and -shm files of a store that was deleted after its process died.

    SQLite replays a write-ahead log into whatever database next takes its name, so a log
    orphaned by deleting the store would rewrite the freshly built one (sqlite.org, How To
    Corrupt An SQLite Database File, 2.4). Kept beside it under a new name, never deleted."""
    notices = []
    for suffix in ("-wal", "-shm"):
        log = path.with_name(path.name + suffix)
        if log.exists():
            aside = log.with_name(f"{log.name}.orphaned-{_stamp()}")
            os.replace(log, aside)
            if suffix == "-wal":
                notices.append(f"{log} was the write-ahead log of a deleted store; moved it to "
                               f"{aside} and built the store anew")
    return notices


def _build_new(path: Path) -> None:
    """Build into a temporary file and link it into place, so a racing builder never clobbers."""
    fd, tmp_name = tempfile.mkstemp(prefix=".clusterplan-", suffix=".db", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        db = _utils(_connect(tmp))
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
    _history().apply(db)
    with _immediate(db.conn):
        _load_catalog(db)


def _up_to_date(conn: sqlite3.Connection) -> bool:
    """The catalog is today's and every history migration is applied (sqlite3 alone)."""
    try:
        done = {name for (name,) in conn.execute(
            "select name from _sqlite_migrations where migration_set = ?", [HISTORY_SET])}
    except sqlite3.OperationalError:  # no migrations table yet
        return False
    return done >= set(HISTORY_MIGRATIONS) and _fingerprint(conn) == _wanted_fingerprint()


def _refresh(db: Database) -> None:
    _history().apply(db)
    if _fingerprint(db.conn) == _wanted_fingerprint():
        return
    with _immediate(db.conn):
        if _fingerprint(db.conn) != _wanted_fingerprint():  # another process may have just done it
            _load_catalog(db)


def _wanted_fingerprint() -> str:
    return f"{SCHEMA_VERSION}:{catalog_fingerprint()}"


def _fingerprint(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("select value from meta where key = 'catalog'").fetchone()
    return row[0] if row else None


class _immediate:
    """A write transaction taken up front, so two processes refreshing do not interleave."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("begin immediate")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.conn.execute("rollback" if exc_type else "commit")


# Catalog tables that also hold rows a user imported (origin = 'user'), kept across rebuilds.
USER_TABLES = ("offers", "models")


def _load_catalog(db: Database) -> None:
    """Replace the catalog tables; user rows are carried over through the current row model."""
    kept = {table: _user_rows(db, table) for table in USER_TABLES}
    for table, (_, model, pk) in CATALOG.items():
        db.execute(f"drop table if exists [{table}]")
        columns = _columns(model)
        if table == "offers":
            db.table(table).create({"id": int, **columns}, pk="id")
        else:
            db.table(table).create(columns, pk=pk)
        rows = seed_rows(table)
        if table == "models":
            rows += _beside(rows, kept["models"])
        elif table in kept:
            rows += kept[table]
        if rows:
            db.table(table).insert_all(rows)
    db.table("meta").upsert({"key": "catalog", "value": _wanted_fingerprint()}, pk="key")
    _index_offers(db.conn)


def effective_price_sql(t: str = "") -> str:
    """SQL for an offer's effective $/GPU-hour before rounding, the dearer of the per-GPU
    price and the node price / GPUs (the arithmetic of the pricing tool's `offer_view`);
    `t` qualifies the columns ("o.")."""
    per_gpu = f"coalesce({t}usd_per_gpu_hour, {t}usd_per_node_hour / {t}gpus_per_node)"
    per_node = (f"(coalesce({t}usd_per_node_hour, {per_gpu} * {t}gpus_per_node) "
                f"/ {t}gpus_per_node)")
    return f"max({per_gpu}, {per_node})"


# Price lookups group offers by these columns and seek by effective price: with 100,000
# imported rows a lookup reads a few hundred index entries, not the table.
OFFERS_INDEXES = (
    "create index if not exists offers_lookup on offers(gpu, provider, kind, gpus_per_node, "
    f"status, region, product, {effective_price_sql()}, verified_on, usd_per_gpu_hour, "
    "usd_per_node_hour)",
    f"create index if not exists offers_price on offers(gpu, {effective_price_sql()})",
)


def _index_offers(conn: sqlite3.Connection) -> None:
    """Add the lookup index to a store made before it existed. Only a speed-up: where it
    cannot be written (a full disk, a damaged table) lookups still answer, scanning."""
    try:
        for statement in OFFERS_INDEXES:
            conn.execute(statement)
    except sqlite3.Error:
        pass


def _user_rows(db: Database, table: str) -> list[dict]:
    """The user's rows of `table` as the current row model reads them; a row the new model
    refuses is dropped rather than blocking the rebuild."""
    if table not in db.table_names():
        return []
    # lazy: sqlite-utils (~0.1 s) only for building or migrating a store
    from pydantic import ValidationError

    _, model, _ = CATALOG[table]
    fields = set(model.model_fields)
    rows = db.execute_returning_dicts(f"select * from [{table}] where origin = 'user'") \
        if "origin" in db[table].columns_dict else []
    kept = []
    for row in rows:
        try:
            kept.append(model.model_validate(
                {k: v for k, v in row.items() if k in fields}).model_dump(mode="json"))
        except ValidationError:
            continue
    return kept


def _beside(catalog_rows: list[dict], user_rows: list[dict]) -> list[dict]:
    """User models whose id a new catalog row took are kept under '<id>-user'."""
    taken = {r["id"] for r in catalog_rows}
    moved = []
    for row in user_rows:
        row_id = row["id"]
        while row_id in taken:
            row_id += "-user"
        taken.add(row_id)
        moved.append({**row, "id": row_id})
    return moved


def _columns(model: type[BaseModel]) -> dict[str, type]:
    """SQLite column types for a row model's fields."""
    columns: dict[str, type] = {}
    for name, field in model.model_fields.items():
        kinds = [a for a in (get_args(field.annotation) or (field.annotation,)) if a is not None]
        kind = kinds[0] if kinds else str
        columns[name] = kind if kind in (int, float) else int if kind is bool else str
    return columns
