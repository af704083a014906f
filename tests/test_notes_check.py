"""Claim checks: verdicts come from the tools, disputes carry both numbers and the reason."""

from __future__ import annotations

import json

import pytest

import clusterplan.knowledge.notes as notes_module
from clusterplan.knowledge.checks import check_all, check_claim
from clusterplan.knowledge.notes import load_notes
from tests.conftest import run_cli

NOTE = """---
id: probe
title: Checks of the notes tool
sources:
  - {{title: t, publisher: p, address: 'https://e.org', reviewed: 2026-12-02}}
claims:
{claims}
---
"""


def _claim(claim_id: str, tool: str, inp: dict, output: str, value: float) -> str:
    check = {"tool": tool, "input": inp, "output": output, "value": value, "unit": "notes"}
    return f"  - id: {claim_id}\n    text: a claim\n    check: {json.dumps(check)}\n"


# The notes tool's search step reports how many notes it returned; with limit 1 that is 1.
ONE_HIT = {"query": "pipeline parallelism", "limit": 1}
PROBES = "".join([
    _claim("agrees", "notes", ONE_HIT, "steps.0.result.value", 1),
    _claim("disagrees", "notes", ONE_HIT, "steps.0.result.value", 3),
    _claim("no-tool", "nosuch", ONE_HIT, "x", 1),
    _claim("bad-input", "notes", {"query": "x", "colour": 1}, "x", 1),
    _claim("no-path", "notes", ONE_HIT, "steps.9.result.value", 1),
    _claim("not-number", "notes", ONE_HIT, "notes.0.id", 1),
])


@pytest.fixture
def probe_notes(tmp_path):
    (tmp_path / "probe.md").write_text(NOTE.format(claims=PROBES), encoding="utf-8")
    loaded = load_notes(tmp_path)
    assert loaded.problems == []
    return loaded


def _outcome(notes, claim_id):
    return check_claim(notes.notes["probe"], claim_id)


def test_matching_value_agrees(probe_notes):
    outcome = _outcome(probe_notes, "agrees")
    assert (outcome.verdict, outcome.computed_value, outcome.reason) == ("agrees", 1, "")


def test_different_value_disagrees_with_both_numbers_and_the_step(probe_notes):
    outcome = _outcome(probe_notes, "disagrees")
    assert outcome.verdict == "disagrees"
    assert outcome.source_value == 3 and outcome.computed_value == 1
    assert outcome.reason.startswith("the source says 3 notes, but the notes tool computes 1 notes")
    assert "steps: search the notes" in outcome.reason
    assert outcome.reason.endswith(".") and outcome.reason.count(". ") == 0


@pytest.mark.parametrize(("claim_id", "reason"), [
    ("no-tool", "tool 'nosuch' is not registered"),
    ("bad-input", "the notes tool refused the input: invalid input for tool 'notes': colour"),
    ("no-path", "output path 'steps.9.result.value' is absent from the result (no '9')"),
    ("not-number", "output 'notes.0.id' is 'parallelism-strategies', not a number"),
])
def test_check_that_cannot_run_is_not_checkable_with_the_reason(probe_notes, claim_id, reason):
    outcome = _outcome(probe_notes, claim_id)
    assert outcome.verdict == "not checkable"
    assert outcome.computed_value is None
    assert outcome.reason.startswith(reason)


def test_check_all_covers_every_checked_claim_in_order(probe_notes):
    assert [o.claim for o in check_all(probe_notes)] == [
        "agrees", "disagrees", "no-tool", "bad-input", "no-path", "not-number"]


def test_cli_prints_the_table_and_fails_when_a_check_cannot_run(probe_notes, monkeypatch):
    monkeypatch.setattr(notes_module, "shipped_notes", lambda: probe_notes)
    result = run_cli("notes", "check")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].split() == ["claim", "source", "computed", "verdict", "reason"]
    row = next(line for line in lines if line.startswith("probe#disagrees"))
    assert row.split()[1:6] == ["3", "notes", "1", "notes", "disagrees"]
    assert lines[-1] == "1 agrees, 1 disagrees, 4 not checkable"


def test_cli_disagreement_alone_exits_zero_and_json_has_every_field(probe_notes, monkeypatch):
    only = "".join(_claim(c, "notes", ONE_HIT, "steps.0.result.value", v)
                   for c, v in (("agrees", 1), ("disagrees", 3)))
    probe_notes.notes["probe"] = notes_module.parse_note(NOTE.format(claims=only), "probe.md")
    monkeypatch.setattr(notes_module, "shipped_notes", lambda: probe_notes)
    result = run_cli("notes", "check", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert [r["verdict"] for r in rows] == ["agrees", "disagrees"]
    assert set(rows[1]) >= {"note", "claim", "source_value", "computed_value", "verdict", "reason"}


def test_cli_unknown_note_is_a_one_line_error():
    result = run_cli("notes", "check", "no-such-note")
    assert result.exit_code == 2
    assert result.output.strip() == (
        "Error: unknown note 'no-such-note'; `clusterplan notes list` shows them")
