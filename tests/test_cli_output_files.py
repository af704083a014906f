"""Commands that write a file say plainly when they cannot, in one line, never a traceback."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli


@pytest.mark.parametrize("command", [
    ("prices", "export", "--output"),
    ("report", "--out"),
])
def test_an_unwritable_output_file_is_a_one_line_error(tmp_path, command):
    run_cli("ask", "--session", "s", "Convert 400 Gb/s to GB/s")  # a session to export
    target = tmp_path / "missing-dir" / "out.txt"
    result = run_cli(*command, str(target))
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1] == (
        f"Error: cannot write {target}: No such file or directory")


def test_batch_reports_an_unwritable_output_file_in_one_line(tmp_path):
    questions = tmp_path / "q.txt"
    questions.write_text("Convert 400 Gb/s to GB/s\n")
    target = tmp_path / "missing-dir" / "plan.md"
    result = run_cli("batch", str(questions), "--out", str(target))
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert f"Error: cannot write {target}: No such file or directory" in result.output
