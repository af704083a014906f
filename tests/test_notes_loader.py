"""Loading notes: a broken note is reported by file and line and skipped, never fatal."""

from __future__ import annotations

from clusterplan.knowledge.notes import load_notes, shipped_notes
from tests.conftest import run_cli

GOOD = """---
id: {id}
title: A good note
sources:
  - title: A source
    publisher: Someone
    address: https://example.org/source
    reviewed: 2026-12-02
claims:
  - id: first
    text: One fact in our words.
---
Body text.
"""


def _write(tmp_path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")


def test_good_note_loads_with_claims_and_body(tmp_path):
    _write(tmp_path, "good.md", GOOD.format(id="good"))
    loaded = load_notes(tmp_path)
    assert loaded.problems == []
    note = loaded.notes["good"]
    assert note.claims[0].id == "first" and note.body == "Body text."
    assert note.address == "https://example.org/source"


def test_invalid_yaml_is_reported_with_file_and_line_and_skipped(tmp_path):
    _write(tmp_path, "good.md", GOOD.format(id="good"))
    # Line 3 of the file holds a second colon that YAML cannot read as a mapping value.
    _write(tmp_path, "broken.md", "---\nid: broken\ntitle: x: y\nsources: []\n---\nbody\n")
    loaded = load_notes(tmp_path)
    assert list(loaded.notes) == ["good"]
    assert loaded.problems == ["broken.md:3: front matter is not valid YAML"]


def test_missing_front_matter_is_reported_at_line_one(tmp_path):
    _write(tmp_path, "plain.md", "just text\n")
    loaded = load_notes(tmp_path)
    assert loaded.notes == {}
    assert loaded.problems == ["plain.md:1: a note starts with '---' and YAML front matter"]


def test_note_without_source_is_reported_naming_the_field(tmp_path):
    _write(tmp_path, "nosource.md", "---\nid: nosource\ntitle: x\nsources: []\n---\nbody\n")
    problem = load_notes(tmp_path).problems[0]
    assert problem.startswith("nosource.md: field sources")


def test_claim_without_id_is_reported(tmp_path):
    _write(tmp_path, "noid.md",
           GOOD.format(id="noid").replace("  - id: first\n    text:", "  - text:"))
    problems = load_notes(tmp_path).problems
    assert problems == ["noid.md: field claims.0.id: Field required"]


def test_duplicate_note_id_keeps_the_first_and_reports_the_second(tmp_path):
    _write(tmp_path, "a.md", GOOD.format(id="same"))
    _write(tmp_path, "b.md", GOOD.format(id="same"))
    loaded = load_notes(tmp_path)
    assert loaded.notes["same"].file == "a.md"
    assert loaded.problems == ["b.md: duplicate note id 'same'"]


def test_shipped_notes_all_load():
    assert shipped_notes().problems == []


def test_notes_show_prints_sources_with_review_dates_and_claims():
    result = run_cli("notes", "show", "nvlink-vs-infiniband")
    assert result.exit_code == 0
    assert "https://packet.ai/blog/gpu-clusters" in result.output
    assert "reviewed 2026-12-02" in result.output
    assert "July 29, 2026" in result.output
    assert "ratio-18-to-1:" in result.output
