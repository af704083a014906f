"""The store this process works with: opened on first use at the resolved path."""

from __future__ import annotations

from pathlib import Path

from clusterplan import locations
from clusterplan.db.catalog import Catalog, load_catalog
from clusterplan.db.store import Store

_active: Store | None = None


def use_store(store: Store | None) -> None:
    """Make `store` the one every tool reads (None: reopen from the resolved path)."""
    global _active
    _active = store


def open_store(path: str | Path | None = None) -> Store:
    """Open (building if needed) the store at --db, CLUSTERPLAN_DB or the data directory."""
    resolved = locations.store_path(path)
    if path is None and resolved.parent == locations.data_dir():
        resolved.parent.mkdir(parents=True, exist_ok=True)
    return Store.open(resolved)


def active_store() -> Store:
    """The store in use, opening the default one the first time."""
    global _active
    if _active is None:
        _active = open_store()
    return _active


def catalog() -> Catalog:
    """The catalog of the store in use."""
    return load_catalog(active_store())
