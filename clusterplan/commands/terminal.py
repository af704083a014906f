"""Output for people or for programs: rendered text in a terminal, Markdown or JSON in a pipe.

`--format auto` (the default) renders when stdout is a terminal and prints the Markdown when it
is piped or redirected, so scripts keep reading what they read before; `--format text` renders
anyway (no colours when piped), `--format markdown` prints the Markdown anyway.
"""

from __future__ import annotations

import io
import re
import shutil
import sys

import click

FORMAT = click.Choice(["auto", "text", "markdown"])
TEXT_WIDTH = 100  # rendered text when stdout is not a terminal
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_MERMAID = re.compile(r"```mermaid\n.*?```\n?", re.S)  # charts for GitHub and HTML only


def is_terminal() -> bool:
    return sys.stdout.isatty()


def wants_text(fmt: str) -> bool:
    """Whether `fmt` (auto, text, markdown) means rendered text on this stdout."""
    return fmt == "text" or (fmt == "auto" and is_terminal())


def render_markdown(markdown: str) -> str:
    """Markdown as a reader sees it: bold, tables and lists drawn, escapes and `**` gone."""
    # lazy: Rich loads only when the output goes to a terminal
    from rich.console import Console
    from rich.markdown import Markdown

    buffer = io.StringIO()
    tty = is_terminal()
    width = shutil.get_terminal_size((TEXT_WIDTH, 24)).columns if tty else TEXT_WIDTH
    console = Console(file=buffer, width=width, force_terminal=tty,
                      color_system="auto" if tty else None, highlight=False)
    console.print(Markdown(_MERMAID.sub("", markdown), hyperlinks=False))
    lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
    return "\n".join(lines).strip("\n") + "\n"


def print_markdown(markdown: str, fmt: str) -> None:
    """Print an answer: rendered for a person, or the Markdown itself."""
    if wants_text(fmt):
        click.echo(render_markdown(markdown), nl=False)
    else:
        click.echo(markdown)


def emphasis(text: str, fmt: str = "auto") -> str:
    """`**word**` marks as bold in a terminal, as plain words when piped."""
    if fmt == "markdown":
        return text
    if is_terminal():
        return _BOLD.sub(lambda m: click.style(m.group(1), bold=True), text)
    return _BOLD.sub(r"\1", text)
