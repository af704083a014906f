"""The tool contract through the command line: list, run, and every kind of bad input."""

from __future__ import annotations

import json

from tests.conftest import run_cli, run_tool


def test_tool_list_prints_each_tool_with_input_and_output_schemas():
    result = run_cli("tool", "list")
    assert result.exit_code == 0
    listed = {t["name"]: t for t in json.loads(result.output)}
    assert "notes" in listed
    schema = listed["notes"]["input_schema"]
    assert schema["additionalProperties"] is False
    assert "query" in schema["properties"]
    assert "citations" in listed["notes"]["output_schema"]["properties"]


def test_notes_tool_finds_nvlink_notes_with_citations():
    result = run_tool("notes", {"query": "nvlink", "limit": 50})
    ids = [n["id"] for n in result["notes"]]
    assert "nvidia-h100-datasheet" in ids
    assert {c["id"] for c in result["citations"]} == set(ids)
    assert all(c["address"].startswith("https://") for c in result["citations"])


def test_input_may_come_from_a_file(tmp_path):
    path = tmp_path / "in.json"
    path.write_text('{"id": "nvidia-h200-datasheet"}')
    result = run_tool("notes", {"id": "nvidia-h200-datasheet"})
    from_file = json.loads(run_cli("tool", "notes", "--input", f"@{path}").output)
    assert from_file["note"]["title"] == result["note"]["title"]


def _fails_in_one_line(*args: str) -> str:
    result = run_cli(*args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_unknown_tool_names_the_registered_ones():
    line = _fails_in_one_line("tool", "nots", "--input", "{}")
    assert "unknown tool 'nots'" in line and "notes" in line


def test_malformed_json_is_one_line():
    line = _fails_in_one_line("tool", "notes", "--input", '{"query": ')
    assert "not valid JSON" in line


def test_unknown_field_is_refused_not_ignored():
    line = _fails_in_one_line("tool", "notes", "--input", '{"query": "x", "colour": 1}')
    assert "colour" in line and "Extra inputs are not permitted" in line


def test_input_that_is_not_an_object_is_refused():
    line = _fails_in_one_line("tool", "notes", "--input", "[1, 2]")
    assert "must be a JSON object" in line


def test_missing_input_file_is_one_line(tmp_path):
    line = _fails_in_one_line("tool", "notes", "--input", f"@{tmp_path}/absent.json")
    assert "cannot read the input file" in line


def test_unknown_note_suggests_nearest():
    line = _fails_in_one_line("tool", "notes", "--input", '{"id": "nvidia-h100-datashet"}')
    assert "nvidia-h100-datasheet" in line
