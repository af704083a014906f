"""Where clusterplan keeps its files; resolved when asked, never created at import."""

from __future__ import annotations

import os
from pathlib import Path

DB_ENV = "CLUSTERPLAN_DB"
HOME_ENV = "CLUSTERPLAN_HOME"


def data_dir() -> Path:
    """The user's data directory (CLUSTERPLAN_HOME overrides the platform default)."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    # lazy: platformdirs is needed only without CLUSTERPLAN_HOME
    from platformdirs import user_data_path

    return user_data_path("clusterplan", appauthor=False)


def store_path(explicit: str | Path | None = None) -> Path:
    """The SQLite store: --db PATH, else CLUSTERPLAN_DB, else the data directory."""
    if explicit:
        return Path(explicit).expanduser()
    override = os.environ.get(DB_ENV)
    if override:
        return Path(override).expanduser()
    return data_dir() / "clusterplan.db"


def reports_dir() -> Path:
    """Where exported reports go by default: the current directory, as a user expects."""
    return Path.cwd()
