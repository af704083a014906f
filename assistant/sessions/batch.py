"""Many questions in one session: read a .txt or .jsonl file, answer each in order.

Follow-up lines continue the previous question's context, because every question goes through
the same Assistant. A line that cannot be read or answered is reported in place; the rest go on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import BaseModel

from clusterplan.assistant.answer import Answer
from clusterplan.assistant.sessions.session import Assistant


class BatchQuestion(BaseModel):
    """One question of a batch file, with the id it is reported under."""

    id: str
    question: str
    line: int
    problem: str | None = None  # the line could not be read as a question


class BatchItem(BaseModel):
    """One question and its answer; `failed` when it had an error."""

    id: str
    question: str
    line: int
    failed: bool
    answer: Answer


def read_questions(path: Path) -> list[BatchQuestion]:
    """The questions of a .jsonl file ({"id", "question"} a line) or a text file (one a line)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() == ".jsonl":
        return read_jsonl(text)
    return read_text(text)


def read_text(text: str) -> list[BatchQuestion]:
    """One question a line; blank lines and lines starting with `#` are skipped."""
    return [BatchQuestion(id=str(n), question=line.strip(), line=n)
            for n, line in enumerate(_lines(text), 1)
            if line.strip() and not line.lstrip().startswith("#")]


def _lines(text: str) -> list[str]:
    """Lines ended by \\n (and \\r\\n) only: str.splitlines also breaks at form feed, \\x1c-\\x1e,
    \\x85 and \\u2028, which would split a question and shift every line number after it."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def read_jsonl(text: str) -> list[BatchQuestion]:
    """One JSON object a line with `question` (and `id`); a bad line is kept as a problem."""
    found = []
    for n, line in enumerate(_lines(text), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            found.append(_bad(n, line, f"line {n} is not JSON: {exc.msg}"))
            continue
        if not isinstance(row, dict) or not isinstance(row.get("question"), str):
            found.append(_bad(n, line, f'line {n} needs {{"id": ..., "question": "..."}}'))
            continue
        ident = row.get("id")
        found.append(BatchQuestion(id=str(n if ident is None else ident),
                                   question=row["question"], line=n))
    return found


def run_batch(questions: Iterable[BatchQuestion], assistant: Assistant,
              progress: Callable[[BatchItem], None] | None = None) -> list[BatchItem]:
    """Answer every question in order in the assistant's session."""
    items = []
    for asked in questions:
        if asked.problem:
            answer = Answer(question=asked.question, markdown=asked.problem, error=asked.problem)
        else:
            answer = assistant.ask(asked.question)
        item = BatchItem(id=asked.id, question=asked.question, line=asked.line,
                         failed=answer.error is not None, answer=answer)
        items.append(item)
        if progress:
            progress(item)
    return items


def as_jsonl(items: list[BatchItem]) -> str:
    """One JSON object a line: id, question, line, failed, answer."""
    return "".join(item.model_dump_json() + "\n" for item in items)


def as_json(items: list[BatchItem]) -> str:
    """A JSON list of the items."""
    return json.dumps([item.model_dump(mode="json") for item in items], indent=2) + "\n"


def _bad(number: int, line: str, problem: str) -> BatchQuestion:
    return BatchQuestion(id=str(number), question=line.strip()[:200], line=number,
                         problem=problem)
