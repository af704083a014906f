"""Claim verdicts kept in the store, so an answer that cites a checked claim stays fast.

A verdict depends only on the claim, the catalog and the calculators' code, so it is kept
under a basis that hashes all three; any change to them makes every kept verdict stale.
"""

from __future__ import annotations

import hashlib
import sqlite3
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING

from clusterplan import __version__
from clusterplan.db.active import active_store
from clusterplan.db.seed_data import catalog_fingerprint
from clusterplan.db.store import StoreError

if TYPE_CHECKING:
        from clusterplan.db.store import Store

TABLE = "claim_verdicts"


@cache
def basis() -> str:
    """A fingerprint of what verdicts depend on: version, catalog, notes and tool code."""

    digest = hashlib.sha256(f"{__version__}:{catalog_fingerprint()}".encode())
    for name, data in _files(resources.files("clusterplan.knowledge").joinpath("notes"), ".md"):
        digest.update(name.encode() + data)
    for name, data in _files(resources.files("clusterplan.tools"), ".py"):
        digest.update(name.encode() + data)
    return digest.hexdigest()[:20]


def _files(folder: Traversable, suffix: str, prefix: str = "") -> list[tuple[str, bytes]]:
    """Every file ending in `suffix` under `folder`, sub-folders included, in a stable order:
    the calculators live in sub-packages, and a change there must make verdicts stale."""
    found: list[tuple[str, bytes]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and entry.name != "__pycache__":
            found += _files(entry, suffix, f"{prefix}{entry.name}/")
        elif entry.is_file() and entry.name.endswith(suffix):
            found.append((prefix + entry.name, entry.read_bytes()))
    return found


def recall(key: str) -> str | None:
    """The kept verdict (as JSON) for `note#claim`, if it was computed under today's basis."""

    store = _store()
    if store is None or TABLE not in store.table_names():
        return None
    row = store.conn.execute(f"select outcome_json from {TABLE} where key = ? and basis = ?",
                     [key, basis()]).fetchone()
    return str(row[0]) if row else None


def keep(key: str, outcome_json: str) -> None:
    """Keep a verdict; a store that cannot be written to just does not remember it."""

    store = _store()
    if store is None:
        return
    try:
        with store.conn as conn:
            conn.execute(f"create table if not exists [{TABLE}] "
                         "([key] TEXT PRIMARY KEY, [basis] TEXT, [outcome_json] TEXT)")
            conn.execute(f"insert or replace into [{TABLE}] values (?, ?, ?)",
                         [key, basis(), outcome_json])
    except sqlite3.Error:
        pass  # read-only or busy store: the verdict is recomputed next time


def _store() -> Store | None:
    try:
        return active_store()
    except StoreError:
        return None
