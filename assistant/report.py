"""The Markdown planning report: a pure function of a list of Answers and a date.

Layout: title and date, the questions, a summary of the direct answers, then per answer its
tables, assumptions, warnings, the trace folded in `<details>`, and finally the numbered
sources with their addresses. Renders on GitHub (tables, Mermaid, <details>).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

from clusterplan.assistant.answer import Answer
from clusterplan.assistant.report_tables import escape, result_sections
from clusterplan.tools.contract import NoteRef, Step

DEFAULT_TITLE = "Cluster planning report"
_URL = re.compile(r"https?://[^\s<>`]+")
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")


def render_report(answers: list[Answer], date: dt.date, title: str | None = None,
                  session: str | None = None) -> str:
    """The whole report; the same answers and date always give the same text."""
    sources = SourceList(answers)
    about = f"Prepared {date.isoformat()} · {_count(len(answers), 'question')}"
    if session:
        about += f" · session {escape(session)}"
    parts = [f"# {escape(title or DEFAULT_TITLE)}", about]
    if not answers:
        parts.append("No questions were asked in this session.")
        return "\n\n".join(parts) + "\n"
    parts += ["## Questions", _numbered(escape(a.question) for a in answers)]
    parts += ["## Summary", _numbered(direct_answer(a) for a in answers)]
    for number, answer in enumerate(answers, 1):
        parts += _answer_section(number, answer, sources)
    parts += ["## Sources", sources.render()]
    return "\n\n".join(p for p in parts if p) + "\n"


def direct_answer(answer: Answer) -> str:
    """The reply in one line: the error, the clarifying question, or the first paragraph."""
    if answer.error:
        return f"**Could not answer:** {escape(answer.error)}"
    if answer.clarification:
        return f"**Needs more:** {escape(answer.clarification.question)}"
    lines = lead(answer.markdown).splitlines()
    prose: list[str] = []
    for line in lines:
        if _LIST_ITEM.match(line):
            # a title over a list (a concept answer): the title and the list's first point
            prose.append(("— " if prose else "") + _LIST_ITEM.sub("", line, count=1).strip())
            break
        prose.append(line.strip())
    return " ".join(prose) or "(no answer text)"


def lead(markdown: str) -> str:
    """The answer's first block (its direct reply, with a list that follows it at once).

    Headings and tables before it are skipped; the block ends at a blank line, a table or a
    code fence, so the tables the report draws itself are not repeated.
    """
    block: list[str] = []
    for line in markdown.splitlines():
        text = line.strip()
        if not text:
            if block:
                break
            continue
        if text.startswith(("#", "|", "<")) and not block:
            continue
        if text.startswith(("|", "```", "<")):
            break
        block.append(line.rstrip())
    return "\n".join(block)


class SourceList:
    """Every note the answers cite, numbered in order of first use across the report."""

    def __init__(self, answers: list[Answer]):
        self.refs: dict[str, NoteRef] = {}
        self.claims: dict[str, list[str]] = {}
        for answer in answers:
            for ref in answer.citations:
                self._add(ref)
            for step in answer.trace:
                for key in step.notes:
                    note_id, _, claim = key.partition("#")
                    self._add(NoteRef(id=note_id, claim=claim or None))
        self.numbers = {note_id: n for n, note_id in enumerate(self.refs, 1)}

    def _add(self, ref: NoteRef) -> None:
        known = self.refs.get(ref.id)
        if known is None or (not known.title and ref.title):
            self.refs[ref.id] = ref.model_copy(update={"claim": None})
        claims = self.claims.setdefault(ref.id, [])
        if ref.claim and ref.claim not in claims:
            claims.append(ref.claim)
        if ref.dispute and not self.refs[ref.id].dispute:
            self.refs[ref.id] = self.refs[ref.id].model_copy(update={"dispute": ref.dispute})

    def marks(self, keys: list[str]) -> str:
        """Source numbers for note keys, as `\\[1\\], \\[3\\]`."""
        numbers = sorted({self.numbers[k.partition("#")[0]] for k in keys
                          if k.partition("#")[0] in self.numbers})
        return ", ".join(f"\\[{n}\\]" for n in numbers)

    def render(self) -> str:
        lines = []
        for note_id, ref in self.refs.items():
            number, title = self.numbers[note_id], escape(ref.title or note_id)
            line = f"{number}. **{title}** (note {escape(note_id)}"
            claims = self.claims[note_id]
            line += f"; claims {escape(', '.join(claims))})" if claims else ")"
            line += f" — {_address(ref.address)}" if ref.address else " — no address recorded"
            if ref.dispute:
                line += f" — **disputed:** {escape(ref.dispute)}"
            lines.append(line)
        return "\n".join(lines) or "No sources were cited."


def _answer_section(number: int, answer: Answer, sources: SourceList) -> list[str]:
    reply = direct_answer(answer) if answer.error or answer.clarification else None
    parts = [f"## {number}. {escape(answer.question) or '(empty question)'}",
             reply or lead(answer.markdown) or "(no answer text)"]
    if answer.clarification and answer.clarification.choices:
        parts.append("Choices: " + ", ".join(escape(c) for c in answer.clarification.choices))
    parts += result_sections(answer.data)
    if answer.assumptions:
        parts += ["**Assumptions**", _bullets(answer.assumptions)]
    if answer.warnings:
        parts += ["**Warnings**", _bullets(answer.warnings)]
    if answer.trace:
        parts.append(_trace(answer.trace, sources))
    keys = [ref.key for ref in answer.citations] + [k for s in answer.trace for k in s.notes]
    if keys:
        parts.append(f"Sources: {sources.marks(keys)}")
    return parts


def _trace(steps: list[Step], sources: SourceList) -> str:
    lines = [f"{n}. {_step(step, sources)}" for n, step in enumerate(steps, 1)]
    return ("<details>\n<summary>Trace: " + _count(len(steps), "step") + "</summary>\n\n"
            + "\n".join(lines) + "\n\n</details>")


def _step(step: Step, sources: SourceList) -> str:
    text = f"**{escape(step.label)}**"
    if step.formula:
        text += f" — {escape(step.formula)}"
    if step.inputs:
        text += " · " + ", ".join(f"{escape(k)} = {escape(v)}" for k, v in step.inputs.items())
    if step.result is not None:
        text += f" → **{escape(step.result)}**"
    if step.notes:
        text += f" {sources.marks(step.notes)}"
    return text


def _address(address: str) -> str:
    return f"<{address}>" if _URL.fullmatch(address) else escape(address)


def _numbered(items: Iterable[str]) -> str:
    return "\n".join(f"{n}. {text}" for n, text in enumerate(items, 1))


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {escape(item)}" for item in items)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
