"""`clusterplan report`: a stored session as a planning report (Markdown or HTML)."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

import click

from clusterplan.commands.common import UsageFailure, emit, store

if TYPE_CHECKING:
    from clusterplan.assistant.sessions.history_store import HistoryStore, SessionInfo


@click.command("report")
@click.option("--session", "session", metavar="NAME",
              help="The session to export (its name or id; default: the latest one).")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to this file instead of printing it.")
@click.option("--force", is_flag=True, help="Replace the --out file if it exists.")
@click.option("--format", "fmt", type=click.Choice(["markdown", "html"]), default=None,
              help="markdown (GitHub renders its tables and Mermaid charts) or html (one "
                   "page for a browser); default: from the --out suffix, else markdown.")
@click.option("--title", help="The report's title.")
@click.option("--author", metavar="NAME", help="Who prepared it (shown under the title).")
@click.option("--drop", metavar="N,N,...",
              help="Leave out these questions, numbered as the report numbers them.")
@click.pass_context
def report(ctx: click.Context, session: str | None, out: Path | None, force: bool,
           fmt: str | None, title: str | None, author: str | None, drop: str | None) -> None:
    """Export a session as a planning report: the recommendation, one section per question
    with its tables and charts, assumptions, disputed sources, the trace and the sources.

    A question asked again (the same words, or a typo fixed after no answer) appears once.
    """
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.assistant.sessions.history_store import HistoryStore
    from clusterplan.assistant.sessions.session import Assistant

    dropped = _numbers(drop)
    if out is not None and out.exists() and not force:
        raise UsageFailure(f"{out} exists; give --force to replace it, or another --out")
    opened = store(ctx)
    saved = HistoryStore(opened)
    if session:
        found = saved.find_session(session)
    else:  # the last session of the app (or of `ask --session`), not a one-off `ask`
        kept = Assistant(opened).sessions()
        found = kept[0] if kept else None
    if found is None:
        raise UsageFailure(_no_session(saved, session))
    if dropped and max(dropped) > found.questions:
        raise UsageFailure(f"--drop {max(dropped)}: the session has {found.questions} "
                           "questions")
    if not session:
        click.echo(f"exporting the latest session: {_label(found)} "
                   f"(--session NAME for another)", err=True)
    text = Assistant(opened, session=found.id).report(title=title, drop=dropped, author=author)
    if (fmt or ("html" if out and out.suffix.lower() in (".html", ".htm") else "")) == "html":
        # lazy: loaded when this command runs, so `--help` and the others start fast
        from clusterplan.assistant.report.document import DEFAULT_TITLE
        from clusterplan.assistant.report.html import render_html

        text = render_html(text, title or DEFAULT_TITLE)
    if emit(text, out):
        kept = found.questions - len(dropped)
        count = f"{kept} question" + ("" if kept == 1 else "s")
        click.echo(f"wrote the report of {count} to {out}", err=True)


def _label(found: SessionInfo) -> str:
    return repr(found.name or found.first_question[:60] or found.id[:8])


def _numbers(text: str | None) -> list[int]:
    if not text:
        return []
    try:
        numbers = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise UsageFailure(f"--drop {text}: give question numbers such as 3,5") from None
    if any(n < 1 for n in numbers):
        raise UsageFailure(f"--drop {text}: questions are numbered from 1")
    return numbers


def _no_session(saved: HistoryStore, wanted: str | None) -> str:
    named = [s.name for s in saved.sessions() if s.name]
    if wanted is None or not saved.sessions():
        return ("no sessions yet; ask in the app, or clusterplan ask --session NAME \"...\"")
    near = difflib.get_close_matches(wanted, list(dict.fromkeys(named)), n=5, cutoff=0.6)
    if near:
        return f"no session named {wanted!r}; the nearest: {', '.join(map(repr, near))}"
    recent = list(dict.fromkeys(named))[:5]
    listed = f"; recent ones: {', '.join(map(repr, recent))}" if recent else ""
    return f"no session named {wanted!r}{listed}"
