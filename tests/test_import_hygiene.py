"""The headless core never imports Textual: only clusterplan.tui does (and only when run)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import pytest

import clusterplan.assistant
import clusterplan.db
import clusterplan.knowledge
import clusterplan.tools

CORE_PACKAGES = (clusterplan.tools, clusterplan.db, clusterplan.knowledge, clusterplan.assistant)

# Imports each module in turn in a fresh interpreter; reports the first that brought Textual.
PROBE = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
    if "textual" in sys.modules:
        print(json.dumps(name)); break
else:
    print(json.dumps(None))
"""


def modules_of(package) -> list[str]:
    """A package and every module in it and its sub-packages, found on disk so a new module is
    checked too."""
    found = [m.name for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")]
    return [package.__name__, *sorted(found)]


def first_to_load_textual(modules: list[str]) -> str | None:
    done = subprocess.run([sys.executable, "-c", PROBE, *modules], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    culprit: str | None = json.loads(done.stdout.strip().splitlines()[-1])
    return culprit


def test_every_core_package_has_modules_to_check():
    assert "clusterplan.tools.registry" in modules_of(clusterplan.tools)
    assert "clusterplan.tools.memory.tool" in modules_of(clusterplan.tools)
    assert "clusterplan.db.store" in modules_of(clusterplan.db)
    assert "clusterplan.assistant.sessions.session" in modules_of(clusterplan.assistant)


@pytest.mark.slow
@pytest.mark.parametrize("package", CORE_PACKAGES, ids=lambda p: p.__name__)
def test_no_core_module_imports_textual(package):
    assert first_to_load_textual(modules_of(package)) is None


@pytest.mark.slow
def test_the_command_line_does_not_import_textual_until_the_app_starts():
    import clusterplan.commands

    assert first_to_load_textual(["clusterplan.cli", *modules_of(clusterplan.commands)]) is None


@pytest.mark.slow
def test_the_probe_would_name_a_module_that_imports_textual():
    assert first_to_load_textual(["clusterplan.tools.contract", "clusterplan.tui.app"]) == \
        "clusterplan.tui.app"


def test_the_app_s_first_screen_needs_neither_pydantic_nor_the_command_line():
    # A bare `clusterplan` draws the question box first; the assistant (pydantic and the
    # rest) loads behind it, and click is for the commands only. The probe stands in for the
    # app at the moment the launcher starts it, and lists what was imported by then.
    probe = ("import sys, clusterplan.launch as launch, clusterplan.tui.app\n"
             "def started(db_path, session):\n"
             "    print(sorted(m for m in ('pydantic', 'click', 'sqlite_utils') "
             "if m in sys.modules))\n"
             "launch.run_app = started\n"
             "sys.argv = ['clusterplan']\n"
             "launch.main()\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
