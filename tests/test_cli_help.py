"""Every command explains itself: --help works and says something for each one."""

from __future__ import annotations

import click

from clusterplan import __version__
from clusterplan.cli import cli
from tests.conftest import run_cli


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from _commands(command, prefix + (name,))


def test_every_command_has_help_text():
    missing = [" ".join(path) for path, cmd in _commands(cli) if not (cmd.help or "").strip()]
    assert missing == []
    for path, _ in _commands(cli):
        result = run_cli(*path, "--help")
        assert result.exit_code == 0, (path, result.output)
        assert "Usage:" in result.output


def test_version():
    assert run_cli("--version").output.strip() == f"clusterplan, version {__version__}"
