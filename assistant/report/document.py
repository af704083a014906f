"""The planning report: a pure function of a list of Answers, a date and who prepared it.

Layout: title, who and when; the recommendation drawn from the answers (what to rent, where,
how many, the layout, the time, the cost, the risks); one section per question with its reply
and human tables and charts (report.sections); the assumptions; the disputed
sources; the trace of every answer folded in `<details>`; the numbered sources. Renders on
GitHub (tables, Mermaid, <details>); report.html turns the same text into a web page.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterable
from typing import Any

from clusterplan.assistant.answer import Answer
from clusterplan.assistant.composing.markdown import num, pct, usd, usd_rate
from clusterplan.assistant.parsing.jobs import gpu_name
from clusterplan.assistant.report.plan_section import recommended
from clusterplan.assistant.report.sections import (
    in_words,
    layout_name,
    memory_is_a_glance,
    sections,
)
from clusterplan.assistant.report.tables import escape
from clusterplan.tools.contract import NoteRef, Step
from clusterplan.tools.pricing.offers import STALE_AFTER_DAYS

DEFAULT_TITLE = "Cluster planning report"
_URL = re.compile(r"https?://[^\s<>`]+")
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")
_ESCAPED = re.compile(r"\\(.)")
MAX_RISKS = 8
# The pricing tool's warning for an old price; many such lines read as one risk.
STALE = "it may no longer be the price"


def render_report(answers: list[Answer], date: dt.date, title: str | None = None,
                  session: str | None = None, author: str | None = None,
                  numbers: list[int] | None = None) -> str:
    """The whole report; the same answers and date always give the same text.

    `numbers` are the questions' numbers in the session (kept when some are dropped, so a
    reader can still say "question 4").
    """
    numbers = numbers or list(range(1, len(answers) + 1))
    sources = SourceList(answers)
    about = f"Prepared {date.isoformat()}"
    if author:
        about += f" by {escape(author)}"
    about += f" · {_count(len(answers), 'question')}"
    if session:
        about += f" · session {escape(session)}"
    parts = [f"# {escape(title or DEFAULT_TITLE)}", about]
    if not answers:
        parts.append("No questions were asked in this session.")
        return "\n\n".join(parts) + "\n"
    parts += ["## Recommendation", recommendation(answers, numbers)]
    parts += ["## Questions", _numbered((escape(a.question) for a in answers), numbers)]
    for number, answer in zip(numbers, answers, strict=True):
        parts += _answer_section(number, answer, sources)
    parts += ["## Assumptions", _assumptions(answers, numbers)]
    disputed = _disputed(sources)
    if disputed:
        parts += ["## Disputed sources", disputed]
    parts += ["## Trace", "\n\n".join(_trace(n, a.trace, sources)
                                       for n, a in zip(numbers, answers, strict=True)
                                       if a.trace) or "No steps were recorded."]
    parts += ["## Sources", sources.render()]
    return "\n\n".join(p for p in parts if p) + "\n"


def select(answers: list[Answer], drop: Iterable[int] = ()) -> tuple[list[Answer], list[int]]:
    """The answers a report keeps, with their numbers in the session.

    Left out: the numbers in `drop`; a question asked again later (the same words, or a
    failed or unclear one that the next question repeats with its typo fixed), whose later
    answer stands for it.
    """
    dropped = set(drop)
    kept: list[tuple[int, Answer]] = []
    for number, answer in enumerate(answers, 1):
        if number in dropped:
            continue
        if kept and _repeats(kept[-1][1], answer):
            kept.pop()
        kept.append((number, answer))
    # the same words asked again anywhere later: keep the latest answer only
    seen: dict[str, int] = {}
    for i, (_, answer) in enumerate(kept):
        seen[_words(answer.question)] = i
    final = [(n, a) for i, (n, a) in enumerate(kept) if seen[_words(a.question)] == i]
    return [a for _, a in final], [n for n, _ in final]


def _repeats(earlier: Answer, later: Answer) -> bool:
    """Whether `later` asks `earlier` again: the same words, or a fixed typo of a question
    that got no answer."""
    a, b = _words(earlier.question), _words(later.question)
    if a == b:
        return True
    unanswered = bool(earlier.error or earlier.clarification)
    return unanswered and difflib.SequenceMatcher(None, a, b).ratio() >= 0.85


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w.]+", " ", text.lower()).split())


def recommendation(answers: list[Answer], numbers: list[int]) -> str:
    """What to rent, where, how many, the layout, the time, the cost and the risks.

    Drawn from one answer, the plan: the latest of the plans searched for a goal and the
    training layouts, else the latest job that fits; where and the cost come from its own
    pricing, else from the latest price answer for the same GPU.
    Each figure is the answer's own and names its question.
    """

    pairs = list(zip(numbers, answers, strict=True))
    layout = _latest(pairs, "parallelism", lambda r: bool(r.get("plans")))
    searched = _latest(pairs, "plan", lambda r: isinstance(r.get("recommendation"), dict))
    plan = layout or (None if searched else
                      _latest(pairs, "memory", lambda r: r.get("fits") is True))
    found: dict[str, str] = {}
    gpu = None
    if searched and (plan is None or searched[0] > plan[0]):
        # a plan searched for a goal, asked after any layout: it names the whole answer
        plan = searched
        found = recommended(searched[1], gpu_name, f" (question {searched[0]})")
    elif plan:
        number, result, answer = plan
        ref = f" (question {number})"
        gpu = result.get("gpu")
        if "plans" in result:
            best = result["plans"][0]
            if gpu and result.get("gpus"):
                found["rent"] = f"{num(result['gpus'])}× {gpu_name(gpu)}" + ref
            if result.get("nodes"):
                found["how many"] = (f"{num(result['nodes'])} nodes of "
                                     f"{num(result.get('gpus_per_node'))} GPUs" + ref)
            settings = [f"{label} {best[key]}" for key, label in (
                ("zero_stage", "ZeRO stage"), ("micro_batch", "micro-batch"),
                ("recompute", "recompute")) if best.get(key) is not None]
            speed = [f"{num(best['step_time_s'])} s per step"] if best.get("step_time_s") else []
            speed += [f"MFU {pct(best['mfu'])}"] if best.get("mfu") is not None else []
            speed += [f"{num(best['decode_tokens_per_s'])} output tokens/s"] \
                if best.get("decode_tokens_per_s") is not None else []
            found["layout"] = ", ".join([layout_name(best), *settings]) + (
                ": " + ", ".join(speed) if speed else "") + ref
            if result.get("training_days") is not None:
                found["time"] = (f"{num(result['training_days'])} days, "
                                 f"{num(result.get('gpu_hours'))} GPU-hours" + ref)
        else:
            gpus = (result.get("layout") or {}).get("gpus", 1)
            if gpu:
                found["rent"] = f"{num(gpus)}× {gpu_name(gpu)}" + ref
            found["memory"] = (f"{num(result.get('per_gpu_gb'))} GB per GPU of "
                               f"{num(result.get('gpu_memory_gb'))} GB" + ref)
        priced = _find(answer, "pricing", lambda r: bool(r.get("cheapest")))
        if priced is not None:
            found.update(_where_and_cost(priced, ref))
    if "where" not in found:
        priced_plan = _latest(pairs, "pricing", lambda r: bool(r.get("cheapest")) and (
            gpu is None or (r["cheapest"].get("gpu") == gpu)))
        if priced_plan:
            found.update(_where_and_cost(priced_plan[1], f" (question {priced_plan[0]})"))
    serving = plan is not None and _serving(plan[1])
    rows = [[label, found[key]] for key, label in (
        ("rent", "what to rent"), ("where", "where"), ("how many", "how many"),
        ("layout", "layout"), ("memory", "memory"),
        ("time", "throughput" if serving else "time"), ("cost", "cost"))
        if key in found]
    text = _plain_table(rows) if rows else (
        "No answer names a GPU cluster that fits, so there is nothing to rent yet.")
    also = _other_plan(pairs, plan, gpu_name)
    if also:
        text = f"**{'Serving' if serving else 'Training'}**\n\n" + text
        text += f"\n\n**{'Serving' if also[1] else 'Training'}**\n\n" + _plain_table([
            [label, also[2][key]] for key, label in (
                ("rent", "what to rent"), ("where", "where"), ("how many", "how many"),
                ("layout", "layout"), ("time", "throughput" if also[1] else "time"),
                ("cost", "cost")) if key in also[2]])
    shown_plans = {plan[0] if plan else None, also[0] if also else None}
    others = [f"- **Question {n}:** {escape(plain(direct_answer(a)))}" for n, a in pairs
              if n not in shown_plans]
    if others:
        text += "\n\n**The other answers**\n\n" + "\n".join(others)
    risks = list(dict.fromkeys(_risks(pairs)))
    if risks:
        shown = risks[:MAX_RISKS]
        text += "\n\n**Risks**\n\n" + "\n".join(f"- {r}" for r in shown)
        if len(risks) > len(shown):
            text += f"\n- and {len(risks) - len(shown)} more in the sections below"
    return text


def _other_plan(pairs: list[tuple[int, Answer]], plan: Any, gpu_name: Any
                ) -> tuple[int, bool, dict[str, str]] | None:
    """A serving plan beside a training recommendation (or the other way round): a session
    that plans both gets both, the latest of each kind."""
    if plan is None:
        return None
    shown_serving = _serving(plan[1])
    other = _latest(pairs, "plan", lambda r: isinstance(r.get("recommendation"), dict)
                    and _serving(r) != shown_serving)
    if other is None:
        return None
    number, result, _ = other
    return number, not shown_serving, recommended(result, gpu_name, f" (question {number})")


def _serving(result: dict[str, Any]) -> bool:
    rec = result.get("recommendation")
    return isinstance(rec, dict) and rec.get("training_days") is None


def _where_and_cost(result: dict[str, Any], ref: str) -> dict[str, str]:
    """Where to rent and the cost; money is written \\$ (GitHub reads two bare $ in a line
    as mathematics)."""
    cheap = result["cheapest"]
    price = cheap.get("effective_usd_per_gpu_hour", cheap.get("usd_per_gpu_hour"))
    product = f" {escape(cheap['product'])}" if cheap.get("product") else ""
    found = {"where": f"{escape(cheap.get('provider'))}{product} "
                      f"({str(cheap.get('kind')).replace('_', '-')}) at "
                      f"{escape(usd_rate(price))} per GPU-hour, price verified "
                      f"{cheap.get('verified_on')}" + ref}
    if result.get("run_usd") is not None:
        found["cost"] = f"{escape(usd(result['run_usd']))} for the run" + ref
    elif result.get("monthly_usd") is not None:
        found["cost"] = (f"{escape(usd(result['monthly_usd']))} a month for "
                         f"{num(result.get('billed_gpus'))} GPUs" + ref)
    return found


def _risks(pairs: list[tuple[int, Answer]]) -> Iterable[str]:
    """Jobs that do not fit, runs over a year, answers not given, then the warnings."""
    warnings: list[str] = []
    for number, answer in pairs:
        ref = f" (question {number})"
        if answer.error or answer.clarification:
            yield f"not answered: {escape(answer.question)}{ref}"
        memory = _find(answer, "memory", lambda r: r.get("fits") is False)
        if memory is not None and not memory_is_a_glance(answer.data):
            yield f"{escape(plain(direct_answer(answer)))}{ref}"
        cluster = _find(answer, "parallelism", lambda r: True)
        if cluster is not None and cluster.get("fits") is False:
            yield f"no layout fits: {escape(cluster.get('verdict', ''))}{ref}"
        if cluster is not None and (cluster.get("training_days") or 0) > 365:
            yield f"the training takes more than a year ({num(cluster['training_days'])} days){ref}"
        stale = [w for w in answer.warnings if STALE in w]
        if stale:
            were = "was" if len(stale) == 1 else "were"
            warnings.append(f"{_count(len(stale), 'price')} quoted in the answer {were} "
                            f"verified over {STALE_AFTER_DAYS} days ago: check before "
                            f"renting{ref}")
        warnings += [f"{escape(in_words(w))}{ref}" for w in answer.warnings if STALE not in w]
    yield from warnings


def _find(answer: Answer, kind: str, test: Any) -> dict[str, Any] | None:
    for key, result in answer.data.items():
        if isinstance(result, dict) and re.sub(r"[ _]?\d+$", "", str(key)) == kind \
                and test(result):
            return result
    return None


def _latest(pairs: list[tuple[int, Answer]], kind: str, test: Any
            ) -> tuple[int, dict[str, Any], Answer] | None:
    for number, answer in reversed(pairs):
        result = _find(answer, kind, test)
        if result is not None:
            return number, result, answer
    return None


def _plain_table(rows: list[list[str]]) -> str:
    """Rows already escaped, as a two-column table."""
    lines = ["| | |", "| --- | --- |"]
    lines += ["| **" + k + "** | " + v.replace("|", "\\|") + " |" for k, v in rows]
    return "\n".join(lines)


def plain(markdown: str) -> str:
    """Answer Markdown as plain words: `**` and backslash escapes taken out (so escaping it
    again for a table or the trace shows the words, not `\\*\\*`)."""
    return _ESCAPED.sub(r"\1", markdown.replace("**", ""))


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
                line += f" — **disputed:** {escape(in_words(plain(ref.dispute)))}"
            lines.append(line)
        return "\n".join(lines) or "No sources were cited."


def _answer_section(number: int, answer: Answer, sources: SourceList) -> list[str]:
    reply = direct_answer(answer) if answer.error or answer.clarification else None
    parts = [f"## {number}. {escape(answer.question) or '(empty question)'}",
             reply or lead(answer.markdown) or "(no answer text)"]
    if answer.clarification and answer.clarification.choices:
        parts.append("Choices: " + ", ".join(escape(c) for c in answer.clarification.choices))
    parts += sections(answer.data, gpu_name)
    if answer.warnings:
        parts += ["**Warnings**", _bullets(answer.warnings)]
    keys = [ref.key for ref in answer.citations] + [k for s in answer.trace for k in s.notes]
    if keys:
        parts.append(f"Sources: {sources.marks(keys)}")
    return parts


def _assumptions(answers: list[Answer], numbers: list[int]) -> str:
    """Every assumption once, with the questions that made it."""
    made: dict[str, list[int]] = {}
    for number, answer in zip(numbers, answers, strict=True):
        for said in answer.assumptions:
            made.setdefault(said, [])
            if number not in made[said]:
                made[said].append(number)
    if not made:
        return "No assumptions were made."
    everywhere = len(answers) > 1
    lines = []
    for said, where in made.items():
        tail = "" if everywhere and len(where) == len(answers) else \
            " (question" + ("s " if len(where) > 1 else " ") + ", ".join(map(str, where)) + ")"
        lines.append(f"- {escape(in_words(said))}{tail}")
    return "\n".join(lines)


def _disputed(sources: SourceList) -> str:
    return "\n".join(f"- **{escape(ref.title or note_id)}** \\[{sources.numbers[note_id]}\\]: "
                     f"{escape(in_words(plain(ref.dispute)))}"
                     for note_id, ref in sources.refs.items() if ref.dispute)


def _trace(number: int, steps: list[Step], sources: SourceList) -> str:
    lines = [f"{n}. {_step(step, sources)}" for n, step in enumerate(steps, 1)]
    return (f"<details>\n<summary>Question {number}: "
            + _count(len(steps), "step") + "</summary>\n\n"
            + "\n".join(lines) + "\n\n</details>")


def _step(step: Step, sources: SourceList) -> str:
    text = f"**{escape(step.label)}**"
    if step.formula:
        text += f" — {escape(step.formula)}"
    if step.inputs:
        text += " · " + ", ".join(f"{escape(k)} = {escape(v)}" for k, v in step.inputs.items())
    if step.result is not None:
        text += f" → {escape(plain(str(step.result)))}"
    if step.notes:
        text += f" {sources.marks(step.notes)}"
    return text


def _address(address: str) -> str:
    return f"<{address}>" if _URL.fullmatch(address) else escape(address)


def _numbered(items: Iterable[str], numbers: list[int] | None = None) -> str:
    """A numbered list; numbers with gaps (questions dropped) are written out, since a
    Markdown list would renumber them 1, 2, 3."""
    texts = list(items)
    if not numbers or numbers == list(range(1, len(texts) + 1)):
        return "\n".join(f"{n}. {text}" for n, text in enumerate(texts, 1))
    return "\n".join(f"- **{n}.** {text}" for n, text in zip(numbers, texts, strict=True))


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {escape(in_words(item))}" for item in items)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
