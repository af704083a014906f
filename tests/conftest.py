"""Shared fixtures: every test gets its own data directory, never the user's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner, Result

from clusterplan.cli import cli
from clusterplan.db.active import use_store
from clusterplan.db.store import Store
from clusterplan.tui.chat import QuestionInput


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path, monkeypatch) -> Iterator[None]:
    """Point the data directory at tmp_path and forget any store opened by an earlier test."""
    monkeypatch.setenv("CLUSTERPLAN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLUSTERPLAN_DB", raising=False)
    (tmp_path / "home").mkdir()
    use_store(None)
    yield
    use_store(None)


@pytest.fixture
def memory_store() -> Iterator[Store]:
    """An in-memory store, made the active one."""
    store = Store.memory()
    use_store(store)
    yield store


def run_cli(*args: str, stdin: str | None = None) -> Result:
    """Run the command line in-process, as a user would type it."""
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


def run_tool(name: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Run `clusterplan tool NAME --input JSON` and return the parsed result (must succeed)."""
    result = run_cli("tool", name, "--input", json.dumps(payload))
    assert result.exit_code == 0, result.output
    parsed: dict[str, Any] = json.loads(result.output)
    return parsed


async def settle(app: Any, pilot: Any) -> None:
    """In the app under Textual's pilot, let posted messages run and every worker they start
    finish (no sleeping)."""
    for _ in range(4):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.wait_for_scheduled_animations()


async def ask(app: Any, pilot: Any, text: str, typed: bool = False) -> None:
    """In the app under the pilot, put `text` in the question box (key by key when `typed`),
    press enter and settle."""
    box = app.query_one(QuestionInput)
    box.focus()
    if typed:
        await pilot.press(*text)
    else:
        box.value = text
    await pilot.press("enter")
    await settle(app, pilot)
