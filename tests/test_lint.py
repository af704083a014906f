"""The code stays linted (ruff) and the headless core type-checks (mypy)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ["clusterplan", "tools", "db", "knowledge", "assistant"]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is a test dependency: pip install -e '.[test]'")
    return found


def test_ruff_finds_nothing():
    result = subprocess.run([_tool("ruff"), "check", "--quiet", "."], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_finds_nothing_in_the_core():
    result = subprocess.run([_tool("mypy"), *CORE], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:]
