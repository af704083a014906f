"""Batch: .txt and .jsonl questions answered in order in one session; failures in place."""

from __future__ import annotations

import io
import json
import sys

from clusterplan.assistant.sessions.batch import read_jsonl, read_questions, read_text, run_batch
from clusterplan.assistant.sessions.history_memory import HistoryInMemory
from clusterplan.assistant.sessions.session import Assistant
from clusterplan.db.store import Store
from tests.conftest import run_cli

TXT = """# notes questions
/notes query=nvlink infiniband limit=2

/notez query=x
   # an indented comment
/notes id=parallelism-strategies
"""


def fresh_assistant() -> Assistant:
    return Assistant(Store.memory(), history=HistoryInMemory())


def test_text_files_skip_blank_lines_and_comments_and_keep_line_numbers():
    found = read_text(TXT)
    assert [(q.id, q.line, q.question) for q in found] == [
        ("2", 2, "/notes query=nvlink infiniband limit=2"),
        ("4", 4, "/notez query=x"),
        ("6", 6, "/notes id=parallelism-strategies"),
    ]


def test_jsonl_keeps_ids_and_reports_bad_lines_in_place():
    text = ('{"id": "a", "question": "/help"}\n'
            "not json\n"
            '{"id": 7, "question": 3}\n'
            "\n"
            '{"question": "/reset"}\n')
    found = read_jsonl(text)
    assert [(q.id, q.line, q.problem is None) for q in found] == [
        ("a", 1, True), ("2", 2, False), ("3", 3, False), ("5", 5, True)]
    assert found[1].problem.startswith("line 2 is not JSON: ")
    assert found[2].problem == 'line 3 needs {"id": ..., "question": "..."}'


def test_the_file_suffix_chooses_the_format(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "x", "question": "/help"}\n', encoding="utf-8")
    assert [q.id for q in read_questions(path)] == ["x"]
    path = tmp_path / "q.txt"
    path.write_text('{"id": "x", "question": "/help"}\n', encoding="utf-8")
    assert [q.question for q in read_questions(path)] == ['{"id": "x", "question": "/help"}']


def test_a_failing_question_is_reported_in_place_and_the_rest_go_on(memory_store):
    items = run_batch(read_text(TXT), fresh_assistant())
    assert [(i.id, i.failed) for i in items] == [("2", False), ("4", True), ("6", False)]
    assert items[1].answer.error.startswith("unknown command /notez; did you mean /notes?")
    assert items[2].answer.data["notes"]["note"]["id"] == "parallelism-strategies"


def test_questions_share_one_session_so_context_carries_on(memory_store):
    assistant = fresh_assistant()
    run_batch(read_text("/notes query=nvlink\n/help\n"), assistant)
    assert assistant.last_intent is not None
    assert assistant.last_intent.slots == {"query": "nvlink"}
    assert [a.question for a in assistant.history()] == ["/notes query=nvlink", "/help"]


def test_progress_is_called_once_per_question(memory_store):
    seen = []
    run_batch(read_text(TXT), fresh_assistant(), progress=lambda item: seen.append(item.id))
    assert seen == ["2", "4", "6"]


def test_cli_exit_status_is_1_when_any_question_failed(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text(TXT, encoding="utf-8")
    result = run_cli("batch", str(path), "--format", "jsonl")
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(x["id"], x["failed"]) for x in lines] == [("2", False), ("4", True), ("6", False)]
    assert result.stderr == "1 of 3 questions failed: line 4\n"  # no progress bar: not a terminal


def test_cli_exit_status_is_0_when_all_answered_and_json_is_a_list(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "one", "question": "/notes query=nvlink"}\n', encoding="utf-8")
    result = run_cli("batch", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    [item] = json.loads(result.stdout)
    assert (item["id"], item["failed"], item["answer"]["intent"]["kind"]) == (
        "one", False, "concept")
    assert result.stderr == ""


def test_cli_writes_the_markdown_report_to_out(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text(TXT, encoding="utf-8")
    out = tmp_path / "report.md"
    result = run_cli("batch", str(path), "--out", str(out))
    assert result.exit_code == 1 and result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Planning report: q.txt\n\nPrepared ")
    assert "3 questions" in text
    assert "## 2. /notez query=x\n\n**Could not answer:** unknown command /notez" in text
    assert "## Sources\n\n1. **" in text


def test_cli_names_a_missing_file():
    result = run_cli("batch", "no-such-file.txt")
    assert result.exit_code == 2
    assert "no-such-file.txt" in result.output and "Traceback" not in result.output


class Terminal(io.StringIO):
    """Standard error as a terminal shows it."""

    def isatty(self) -> bool:
        return True


def test_progress_bar_only_when_stderr_is_a_terminal(memory_store, monkeypatch):
    from clusterplan.commands.batch import _answer_all

    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        items = _answer_all(read_text(TXT), memory_store)
        assert len(items) == 3
        assert ("answering" in stream.getvalue()) is shown
        assert ("100%" in stream.getvalue()) is shown
