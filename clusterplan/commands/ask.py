"""`clusterplan ask`: one question, one answer (rendered text, Markdown, or the Answer as JSON)."""

from __future__ import annotations

import re

import click

from clusterplan.commands.common import store
from clusterplan.commands.terminal import FORMAT, print_markdown


@click.command("ask")
@click.argument("words", nargs=-1, required=True, metavar="QUESTION")
@click.option("--json", "as_json", is_flag=True, help="Print the whole Answer object as JSON.")
@click.option("--format", "fmt", type=FORMAT, default="auto", show_default=True,
              help="text: rendered (the default in a terminal); markdown: the Markdown "
                   "(the default when piped).")
@click.option("--markdown", "as_markdown", is_flag=True, help="Same as --format markdown.")
@click.option("--session", "session", metavar="NAME",
              help="Continue the session NAME (made if new), so follow-ups work across runs.")
@click.pass_context
def ask(ctx: click.Context, words: tuple[str, ...], as_json: bool, fmt: str, as_markdown: bool,
        session: str | None) -> None:
    """Answer one planning question, e.g. clusterplan ask "can I serve llama 3 70b on 2 H100s?".

    A slash command works too: clusterplan ask "/memory model=llama-3-8b workload=lora".
    Exit status 1 when the question could not be answered.
    """
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.assistant.sessions.session import Assistant

    # without --session a question stands alone: saved, but not listed among the app's sessions
    answer = Assistant(store(ctx), session=session, one_off=session is None).ask(" ".join(words))
    if as_json:
        click.echo(answer.model_dump_json(indent=2))
    elif answer.error:
        click.echo(f"Error: {_printable(answer.error)}", err=True)
    else:
        print_markdown(_printable(answer.markdown), "markdown" if as_markdown else fmt)
    if answer.error:
        ctx.exit(1)


# Control characters (but tab and newline) that a question may carry into an answer would
# drive the terminal (clear it, move the cursor), so they are not printed.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _printable(text: str) -> str:
    return _CONTROL.sub("", text)
