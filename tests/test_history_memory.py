"""A batch's session is held in memory: the same session behaviour, nothing written to disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from clusterplan.assistant.sessions.history_memory import HistoryInMemory
from clusterplan.assistant.sessions.session import Assistant
from tests.conftest import run_cli

NOTES_CALL = "/notes query=nvlink infiniband limit=2"


def in_memory(store) -> Assistant:  # type: ignore[no-untyped-def]
    return Assistant(store, history=HistoryInMemory())


def test_answers_come_back_in_order_and_sessions_most_recent_first(memory_store):
    assistant = in_memory(memory_store)
    first = assistant.ask(NOTES_CALL)
    second = assistant.ask("/help")
    assert assistant.history() == [first, second]
    assistant.new_session("two")
    assert assistant.history() == []
    assistant.ask("/help")
    listed = assistant.sessions()
    first_question = "/notes query=nvlink infiniband limit=2"  # an unnamed session takes it
    assert [(s.name, s.questions) for s in listed] == [("two", 1), (first_question, 2)]
    assert listed[1].first_question == NOTES_CALL


def test_a_named_session_can_be_reopened_with_its_context(memory_store):
    assistant = in_memory(memory_store)
    assistant.open_session("one")
    assistant.ask(NOTES_CALL)
    assistant.new_session("two")
    assert assistant.last_intent is None
    info = assistant.open_session("one")
    assert (info.name, info.questions) == ("one", 1)
    assert assistant.last_intent is not None and assistant.last_intent.kind == "concept"
    assistant.ask("/reset")
    assistant.new_session()
    assistant.open_session("one")
    assert assistant.last_intent is None  # the reset was kept with the session


def test_the_report_reads_the_answers_held_in_memory(memory_store):
    assistant = in_memory(memory_store)
    assistant.ask(NOTES_CALL)
    assistant.ask("/help")
    report = assistant.report(title="Notes")
    assert report.startswith("# Notes\n\nPrepared ")
    assert "1 question" in report and "/help" not in report.split("## Sources")[0]


def test_a_batch_leaves_the_saved_history_alone(tmp_path):
    questions = tmp_path / "q.txt"
    # the report goes through --out: a /report line in the file is refused (issue 23, item 7)
    questions.write_text(f"{NOTES_CALL}\n", encoding="utf-8")
    db = tmp_path / "store.db"
    result = run_cli("--db", str(db), "batch", str(questions), "--out", str(tmp_path / "r.md"))
    assert result.exit_code == 0, result.output
    assert "nvlink" in Path(tmp_path / "r.md").read_text(encoding="utf-8").lower()
    conn = sqlite3.connect(db)
    assert conn.execute("select count(*) from messages").fetchone() == (0,)
