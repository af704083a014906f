"""`clusterplan report`: a stored session as a Markdown planning report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from clusterplan.commands.common import UsageFailure, emit, store

if TYPE_CHECKING:
    from clusterplan.assistant.history_store import HistoryStore, SessionInfo


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
    if session:
        found = saved.find_session(session)
    else:  # the last session of the app (or of `ask --session`), not a one-off `ask`
        kept = Assistant(opened).sessions()
        found = kept[0] if kept else None
    if found is None:
        raise UsageFailure(_no_session(saved, session))
    if not session:
        click.echo(f"exporting the latest session: {_label(found)} "
                   f"(--session NAME for another)", err=True)
    text = Assistant(opened, session=found.id).report(title=title)
    if emit(text, out):
        count = f"{found.questions} question" + ("" if found.questions == 1 else "s")
        click.echo(f"wrote the report of {count} to {out}", err=True)


def _label(found: SessionInfo) -> str:
    return repr(found.name or found.first_question[:60] or found.id[:8])


def _no_session(saved: HistoryStore, wanted: str | None) -> str:
    import difflib

    named = [s.name for s in saved.sessions() if s.name]
    if wanted is None or not saved.sessions():
        return ("no sessions yet; ask in the app, or clusterplan ask --session NAME \"...\"")
    near = difflib.get_close_matches(wanted, list(dict.fromkeys(named)), n=5, cutoff=0.6)
    if near:
        return f"no session named {wanted!r}; the nearest: {', '.join(map(repr, near))}"
    recent = list(dict.fromkeys(named))[:5]
    listed = f"; recent ones: {', '.join(map(repr, recent))}" if recent else ""
    return f"no session named {wanted!r}{listed}"
