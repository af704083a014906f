"""Every README example that shows a command's output is checked against the program.

A shown line must appear in the real output (after `...` a line is abridged: its start must
appear). Prices go stale with the calendar, so the word "stale" is not compared.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from clusterplan.commands import terminal
from tests.conftest import run_cli

README = Path(__file__).resolve().parents[1] / "README.md"
# Output not shown (or shown as JSON, abridged by hand), or needing files the README only names.
# Left out: examples whose output the README abridges (JSON cut with "...") or that change
# the store.
NOT_COMPARED = ("models show", "models import", "tool memory --input '{\"model\": \"llama 3 70b\"",
                "\"gpu_layers\": 16",
                "--all-layouts")  # writes a file: tests/test_all_layouts.py runs it in tmp_path


def examples() -> list[tuple[str, list[str]]]:
    """(command, shown output lines) for every `$ clusterplan ...` in a code block."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        current: tuple[str, list[str]] | None = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = None
                command = line[2:].split("  #")[0].strip()
                if command.startswith("clusterplan ") and not any(
                        skip in command for skip in NOT_COMPARED):
                    current = (command, [])
                    found.append(current)
            elif current is not None:
                current[1].append(line)
    return found


def _normal(text: str) -> str:
    return " ".join(text.replace("stale", "").split())


def test_the_readme_shows_examples():
    assert len([e for e in examples() if e[1]]) >= 8


def test_every_example_matches_the_real_output(monkeypatch):
    monkeypatch.setattr(terminal, "is_terminal", lambda: True)  # as typed in a terminal
    monkeypatch.setenv("COLUMNS", "100")
    for command, shown in examples():
        args = shlex.split(command)[1:]
        if args[0] == "ask" and not {"--json", "--markdown"} & set(args):
            args.insert(1, "--format=text")
        output = _normal(run_cli(*args).output)
        for line in shown:
            wanted = _normal(line.split("...")[0].split("…")[0])
            if wanted:
                assert wanted in output, f"{command}: {line!r} is not in the output"
