"""Claim verdicts kept in the store, so an answer that cites a checked claim stays fast.

A verdict depends only on the claim, the catalog and the calculators' code, so it is kept
under a basis that hashes all three; any change to them makes every kept verdict stale.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from clusterplan import __version__

if TYPE_CHECKING:
    from clusterplan.assistant.notes.check import CheckOutcome
    from clusterplan.db.store import Store

TABLE = "claim_verdicts"


@cache
def basis() -> str:
    """A fingerprint of what verdicts depend on: version, catalog, notes and tool code."""
    from clusterplan.db.seed_data import catalog_fingerprint

    digest = hashlib.sha256(f"{__version__}:{catalog_fingerprint()}".encode())
    for package, pattern in (("clusterplan.knowledge", "notes/*.md"),
                             ("clusterplan.tools", "*.py")):
        root = resources.files(package)
        folder, _, suffix = pattern.rpartition("/")
        base = root.joinpath(folder) if folder else root
        for entry in sorted(base.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(suffix.lstrip("*")) and entry.is_file():
                digest.update(entry.name.encode() + entry.read_bytes())
    return digest.hexdigest()[:20]


def recall(key: str) -> CheckOutcome | None:
    """The kept verdict for `note#claim`, if it was computed under today's basis."""
    from clusterplan.assistant.notes.check import CheckOutcome

    store = _store()
    if store is None or TABLE not in store.table_names():
        return None
    row = store.conn.execute(f"select outcome_json from {TABLE} where key = ? and basis = ?",
                     [key, basis()]).fetchone()
    return CheckOutcome.model_validate_json(row[0]) if row else None


def keep(outcome: CheckOutcome) -> None:
    """Keep a verdict; a store that cannot be written to just does not remember it."""
    import sqlite3

    store = _store()
    if store is None:
        return
    try:
        with store.conn as conn:
            conn.execute(f"create table if not exists [{TABLE}] "
                         "([key] TEXT PRIMARY KEY, [basis] TEXT, [outcome_json] TEXT)")
            conn.execute(f"insert or replace into [{TABLE}] values (?, ?, ?)",
                         [outcome.key, basis(), outcome.model_dump_json()])
    except sqlite3.Error:
        pass  # read-only or busy store: the verdict is recomputed next time


def _store() -> Store | None:
    from clusterplan.db.active import active_store
    from clusterplan.db.store import StoreError

    try:
        return active_store()
    except StoreError:
        return None
