"""`clusterplan batch`: answer a file of questions in one session; write a report or JSON."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from clusterplan.commands.common import emit, store

if TYPE_CHECKING:
    from clusterplan.assistant.sessions.batch import BatchItem, BatchQuestion
    from clusterplan.db.store import Store


@click.command("batch")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the output to this file instead of standard output.")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json", "jsonl"]),
              default="markdown", show_default=True, help="The planning report, or the Answers.")
@click.option("--title", help="The report's title (markdown format).")
@click.pass_context
def batch(ctx: click.Context, file: Path, out: Path | None, fmt: str, title: str | None) -> None:
    """Answer every question in FILE in order, follow-ups continuing the one before.

    FILE is .txt (one question a line, # comments) or .jsonl ({"id": ..., "question": ...}).
    A question that fails is reported in place and the rest go on; exit status 1 if any failed.
    """
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.assistant.sessions import batch as batching

    opened = store(ctx)  # the catalog the tools read
    try:
        questions = batching.read_questions(file)
    except OSError as exc:
        raise click.ClickException(f"cannot read {file}: {exc.strerror or exc}") from None
    items = _answer_all(questions, opened)
    text = _render(items, fmt, title or f"Planning report: {file.name}")
    emit(text, out)
    failed = [item for item in items if item.failed]
    if failed:
        more = len(failed) - 10
        click.echo(f"{len(failed)} of {len(items)} questions failed: "
                   + ", ".join(f"line {i.line}" for i in failed[:10])
                   + (f" and {more} more (each is reported in place in the output)"
                      if more > 0 else ""), err=True)
        ctx.exit(1)


def _answer_all(questions: list[BatchQuestion], opened: Store) -> list[BatchItem]:
    """Answer in a session kept in memory (the user's saved history is left alone); progress
    bar only when stderr is a terminal."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.assistant.sessions.batch import run_batch
    from clusterplan.assistant.sessions.history_memory import HistoryInMemory
    from clusterplan.assistant.sessions.session import Assistant

    assistant = Assistant(opened, history=HistoryInMemory(), writes_files=False)
    if not sys.stderr.isatty():
        return run_batch(questions, assistant)
    with click.progressbar(length=len(questions), label="answering", file=sys.stderr) as bar:
        return run_batch(questions, assistant, progress=lambda _: bar.update(1))


def _render(items: list[BatchItem], fmt: str, title: str) -> str:
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.assistant.report.document import render_report
    from clusterplan.assistant.sessions.batch import as_json, as_jsonl

    if fmt == "json":
        return as_json(items)
    if fmt == "jsonl":
        return as_jsonl(items)
    return render_report([item.answer for item in items], dt.date.today(), title)
