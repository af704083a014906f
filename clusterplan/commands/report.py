"""`clusterplan report`: a stored session as a Markdown planning report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from clusterplan.commands.common import UsageFailure, emit, store

if TYPE_CHECKING:
    from clusterplan.assistant.history_store import HistoryStore


@click.command("report")
@click.option("--session", "session", metavar="NAME",
              help="The session to export (its name or id; default: the latest one).")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to this file instead of printing it.")
@click.option("--title", help="The report's title.")
@click.pass_context
def report(ctx: click.Context, session: str | None, out: Path | None, title: str | None) -> None:
    """Export a session (questions, answers, tables, trace and sources) as Markdown."""
    from clusterplan.assistant.history_store import HistoryStore
    from clusterplan.assistant.session import Assistant

    opened = store(ctx)
    saved = HistoryStore(opened)
    found = saved.find_session(session) if session else saved.latest_session()
    if found is None:
        raise UsageFailure(_no_session(saved, session))
    text = Assistant(opened, session=found.id).report(title=title)
    if emit(text, out):
        click.echo(f"wrote the report of {found.questions} questions to {out}", err=True)


def _no_session(saved: HistoryStore, wanted: str | None) -> str:
    names = [s.name or s.id for s in saved.sessions()][:10]
    if not names:
        return "no sessions yet; ask a question first (clusterplan ask \"...\")"
    return f"no session named {wanted!r}; sessions: {', '.join(names)}"
