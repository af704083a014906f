"""`clusterplan db`: where the store is, and rebuilding its catalog."""

from __future__ import annotations

import click

from clusterplan import locations
from clusterplan.commands.common import store


@click.group("db")
def db_group() -> None:
    """The SQLite store: its path, and rebuilding the catalog from the shipped data."""


@db_group.command("path")
@click.pass_context
def path(ctx: click.Context) -> None:
    """Print the path of the store (--db, CLUSTERPLAN_DB, or the data directory)."""
    click.echo(str(locations.store_path(ctx.find_root().obj.get("db_path"))))


@db_group.command("rebuild")
@click.pass_context
def rebuild(ctx: click.Context) -> None:
    """Rebuild the catalog tables; imported prices and conversations are kept."""
    opened = store(ctx)
    opened.rebuild_catalog()
    counts = {t: opened.db[t].count for t in ("gpus", "links", "models", "providers", "offers")}
    summary = ", ".join(f"{n} {t}" for t, n in counts.items())
    click.echo(f"rebuilt the catalog at {opened.path or ':memory:'}: {summary}")
