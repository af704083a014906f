"""What every command shares: opening the store named by --db, printing JSON, failing cleanly."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from pydantic import BaseModel

    from clusterplan.db.store import Store


def store(ctx: click.Context) -> Store:
    """Open the store once per command (building it if needed) and make it the active one."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.active import open_store, use_store
    from clusterplan.db.store import StoreError

    root = ctx.find_root()
    root.ensure_object(dict)
    if "store" not in root.obj:
        try:
            opened = open_store(root.obj.get("db_path"))
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
        for notice in opened.notices:
            click.echo(f"note: {notice}", err=True)
        use_store(opened)
        root.obj["store"] = opened
    found: Store = root.obj["store"]
    return found


def echo_json(value: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Print a result as indented JSON on stdout."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        click.echo(value.model_dump_json(indent=2))
    else:
        click.echo(json.dumps(value, indent=2, default=str))


class UsageFailure(click.ClickException):
    """A user error: one line on stderr, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"Error: {self.format_message()}", err=True, file=file or sys.stderr)


def emit(text: str, out: Path | None) -> bool:
    """Print `text`, or write it to `out`; a file that cannot be written is a one-line error.

    Returns whether it went to a file, so the caller can say where.
    """
    if out is None:
        click.echo(text, nl=False)
        return False
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageFailure(f"cannot write {out}: {exc.strerror or exc}") from None
    return True
