"""Notes kept parsed between runs read back exactly, and an edited note is parsed again."""

from __future__ import annotations

import datetime as dt
import json

from clusterplan import locations
from clusterplan.knowledge import notes as notes_module
from clusterplan.knowledge.notes import load_notes, notes_dir

NOTE = """---
id: kept
title: {title}
sources:
  - title: A source
    publisher: Someone
    address: https://example.org/source
    reviewed: 2026-12-02
claims:
  - id: first
    text: One fact in our words.
    check: {{tool: memory, input: {{model: llama-3-8b, batch: 2}}, output: per_gpu_gb, value: 16.5}}
---
Body text.
"""


def test_a_kept_note_reads_back_equal_to_a_fresh_parse(tmp_path):
    (tmp_path / "kept.md").write_text(NOTE.format(title="First title"), encoding="utf-8")
    parsed: dict = {}
    first = load_notes(tmp_path, parsed)
    again = load_notes(tmp_path, parsed)
    assert "kept.md" in parsed
    assert again.notes == first.notes == load_notes(tmp_path).notes
    assert again.notes["kept"].sources[0].reviewed == dt.date(2026, 12, 2)
    assert again.notes["kept"].claims[0].check.input == {"model": "llama-3-8b", "batch": 2}


def test_an_edited_note_is_parsed_again(tmp_path):
    path = tmp_path / "kept.md"
    path.write_text(NOTE.format(title="First title"), encoding="utf-8")
    parsed: dict = {}
    load_notes(tmp_path, parsed)
    path.write_text(NOTE.format(title="Second title"), encoding="utf-8")
    assert load_notes(tmp_path, parsed).notes["kept"].title == "Second title"


def test_a_damaged_entry_is_parsed_again(tmp_path):
    (tmp_path / "kept.md").write_text(NOTE.format(title="First title"), encoding="utf-8")
    parsed: dict = {}
    load_notes(tmp_path, parsed)
    parsed["kept.md"]["note"] = {"id": "kept"}  # fields missing
    assert load_notes(tmp_path, parsed).notes["kept"].title == "First title"


def test_shipped_notes_with_a_garbled_cache_file_equal_a_fresh_load():
    (locations.data_dir()).mkdir(parents=True, exist_ok=True)
    (locations.data_dir() / notes_module.CACHE_FILE).write_text("{not json", encoding="utf-8")
    notes_module.shipped_notes.cache_clear()
    try:
        loaded = notes_module.shipped_notes()
        assert loaded.notes == load_notes(notes_dir()).notes
        kept = json.loads((locations.data_dir() / notes_module.CACHE_FILE).read_text())
        assert len(kept["files"]) == len(loaded.notes)
    finally:
        notes_module.shipped_notes.cache_clear()
