"""The wheel installs on its own: sub-packages under clusterplan, data files inside it."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                    str(ROOT)], check=True, capture_output=True)
    return next(out.glob("clusterplan-*.whl"))


def test_wheel_ships_only_the_clusterplan_package_with_its_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.startswith("clusterplan-")}
    assert top == {"clusterplan"}  # nothing generic like `tools` or `db` in site-packages
    assert "clusterplan/db/seed/gpus.csv" in names
    assert any(n.startswith("clusterplan/knowledge/notes/") and n.endswith(".md") for n in names)
    assert "clusterplan/tui/app.tcss" in names


@pytest.mark.slow
def test_wheel_runs_in_a_fresh_virtualenv(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    pip = env_dir / "bin" / "pip"
    subprocess.run([str(pip), "install", "-q", str(wheel)], check=True, capture_output=True)
    result = subprocess.run(
        [str(env_dir / "bin" / "clusterplan"), "tool", "list"], capture_output=True, text=True,
        env={"CLUSTERPLAN_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "notes" in {t["name"] for t in json.loads(result.stdout)}
