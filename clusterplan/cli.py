"""How you start clusterplan: the command group; each command lives in clusterplan.commands."""

from __future__ import annotations

import sqlite3

import click
from click_default_group import DefaultGroup

from clusterplan import __version__
from clusterplan.commands.ask import ask
from clusterplan.commands.batch import batch
from clusterplan.commands.db import db_group
from clusterplan.commands.mcp import mcp_command
from clusterplan.commands.models import models_group
from clusterplan.commands.notes import notes_group
from clusterplan.commands.prices import prices_group
from clusterplan.commands.report import report
from clusterplan.commands.tool import tool


class _Group(DefaultGroup):
    """The command group; a store that fails under a command (disk full, locked, read-only,
    a table gone) is one line on stderr, never a traceback. SQLite rolls back the unfinished
    write, so what was saved before stays as it was."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except sqlite3.Error as exc:
            message = " ".join(str(exc).split()) or type(exc).__name__
            raise click.ClickException(
                f"the store failed: {message}; nothing more was saved") from None
        except RecursionError:
            raise click.ClickException("the input is nested too deeply") from None


@click.group(cls=_Group, default="ui", default_if_no_args=True)
@click.version_option(__version__, prog_name="clusterplan")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), envvar="CLUSTERPLAN_DB",
              help="The SQLite store to use (default: in the user data directory).")
@click.pass_context
def cli(ctx: click.Context, db_path: str | None) -> None:
    """clusterplan: plan GPU clusters with traced, cited arithmetic.

    Run it bare for the terminal app, or use a command below.
    """
    ctx.ensure_object(dict)
    ctx.obj["db_path"] = db_path


@cli.command("ui")
@click.option("--session", default=None, help="Resume this saved session (name or id).")
@click.pass_context
def ui(ctx: click.Context, session: str | None) -> None:
    """Start the terminal app (the default when no command is given)."""
    # lazy: the app's modules load only when the app starts
    from clusterplan.db.store import StoreError
    from clusterplan.launch import run_app

    try:
        run_app(ctx.find_root().obj.get("db_path"), session)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


cli.add_command(tool)
cli.add_command(db_group)
cli.add_command(notes_group)
cli.add_command(prices_group)
cli.add_command(models_group)
cli.add_command(mcp_command)
cli.add_command(ask)
cli.add_command(batch)
cli.add_command(report)

