"""The corpus of real questions: none crashes, and the pass rate holds at its floor."""

from __future__ import annotations

import corpus_grade as cg


def test_corpus_holds_its_pass_rate(memory_store):
    grades = cg.grade_all(cg.load())
    crashed = [g.row["id"] for g in grades if "crash" in g.failed]
    assert not crashed, f"questions answered with an internal error: {crashed}"
    assert cg.rate(grades) >= cg.floor(), (
        f"corpus pass rate {cg.rate(grades):.1f} % fell below the floor {cg.floor():.0f} %; "
        f"failing checks: {cg.failures(grades)}")


def test_every_corpus_row_is_complete():
    for row in cg.load():
        assert row["question"].strip() and row["url"].startswith("http"), row["id"]
        assert set(row["expect"]) >= {"intent", "ask_back"}, row["id"]
        for fact in row["facts"]:
            assert cg._unit(fact["unit"]) or fact["unit"] in cg.COUNT_UNITS, fact
