"""The Answer: the direct reply first, then tables; its trace, citations and assumptions."""

from __future__ import annotations

from typing import Any

from clusterplan.assistant.answer import Answer, Clarification, Intent
from clusterplan.assistant.composing.markdown import code, escape
from clusterplan.assistant.notes.check import dispute_for
from clusterplan.assistant.notes.claims import claims_about
from clusterplan.assistant.routing.dispatch import Calls, Reply
from clusterplan.knowledge.notes import shipped_notes
from clusterplan.tools.citing import note_ref
from clusterplan.tools.contract import NoteRef, Step, q

SLOT_WORDS = {
    "workload": "workload", "precision": "precision of weights and compute",
    "context_len": "context length (tokens per sequence)", "batch": "concurrent sequences",
    "seq_len": "sequence length (tokens)", "micro_batch": "micro-batch (sequences)",
    "optimizer": "optimizer", "gpu": "GPU", "gpus": "GPUs", "gpus_per_node": "GPUs per node",
    "kind": "pricing kind", "tokens_counted_as": "tokens counted as",
}


def parse_step(intent: Intent) -> Step:
    """The first step of every trace: what was read from the question."""
    inputs = {k: q(_plain(v)) for k, v in intent.slots.items()}
    inputs.update({f"{k} (assumed)": q(_plain(v)) for k, v in intent.assumed.items()})
    label = f"read the question as a {intent.kind.replace('_', ' ')} question"
    return Step(label=label, formula="; ".join(intent.readings), inputs=inputs,
                result=q(", ".join(intent.missing) or "nothing", "missing"))


def _plain(value: Any) -> float | int | str | bool | None:
    if isinstance(value, list | tuple | dict):
        return ", ".join(map(str, value))
    if isinstance(value, float) and value >= 1e4:
        return f"{value:,.0f}"  # 260,400,000,000 tokens, not 260399999999.99997
    return value


def assumptions(intent: Intent) -> list[str]:
    """What the parser read or assumed, each said as an assumption."""
    said = list(intent.readings)
    assumed = dict(intent.assumed)
    if counted := assumed.pop("tokens_counted_as", None):
        # "50k examples of about 1,000 tokens each, 3 epochs": worked out from the question,
        # not assumed, when the question gives all three
        worked = {"samples", "tokens_per_sample", "epochs"} <= intent.slots.keys()
        said.append(f"tokens: {_plain(assumed.pop('tokens', None))} = {counted} "
                    + ("(worked out from the question)" if worked
                       else "(assumed: not given in the question)"))
    for name, value in assumed.items():
        said.append(f"assumed {SLOT_WORDS.get(name, name)}: {_plain(value)} (not given in the "
                    f"question)")
    return said


def answer(question: str, intent: Intent, reply: Reply, calls: Calls) -> Answer:
    """Assemble the Answer from the route's reply and the tool calls it made."""
    trace = [parse_step(intent)]
    data: dict[str, Any] = {}
    citations: list[NoteRef] = []
    said = assumptions(intent)
    warnings: list[str] = []
    for call in calls.made:
        trace.append(Step(label=f"call tool {call.name}: {call.why}",
                          inputs={k: q(_plain(v)) for k, v in call.payload.items()}))
        trace.extend(call.result.steps)
        data[_key(data, call.name)] = call.data
        citations.extend(call.result.citations)
        if not call.aside:
            said.extend(call.result.assumptions)
            warnings.extend(call.result.warnings)
    trace.extend(reply.steps)
    trace.append(Step(label="conclusion", result=q(reply.headline)))
    citations = with_disputes(_unique(citations + reply.citations + _step_refs(reply.steps)
                                      + _related(calls)))
    said = list(dict.fromkeys(said + reply.assumptions))
    warnings = list(dict.fromkeys(warnings + reply.warnings))
    return Answer(question=question, intent=intent, data=data, trace=trace,
                  citations=citations, assumptions=said, warnings=warnings,
                  markdown=render(reply, said, warnings, citations))


def _key(data: dict[str, Any], name: str) -> str:
    """`memory`, then `memory_2`, ... when a tool is called more than once."""
    if name not in data:
        return name
    n = 2
    while f"{name}_{n}" in data:
        n += 1
    return f"{name}_{n}"


def _step_refs(steps: list[Step]) -> list[NoteRef]:
    if not any(s.notes for s in steps):
        return []
    return [note_ref(key) for s in steps for key in s.notes]


def _related(calls: Calls) -> list[NoteRef]:
    """Checked claims about the calculations made (a source's figure for the same question)."""
    try:
        return claims_about([(c.name, c.payload) for c in calls.made])
    except Exception:  # a broken note must not break the answer; the note tests report it
        return []


def _claim_text(ref: NoteRef) -> str:
    note = shipped_notes().notes.get(ref.id)
    claim = note.claim(ref.claim) if note and ref.claim else None
    return f" says “{escape(claim.text)}”" if claim else ""


def _unique(refs: list[NoteRef]) -> list[NoteRef]:
    seen: dict[str, NoteRef] = {}
    for ref in refs:
        seen.setdefault(ref.key, ref)
    return list(seen.values())


def with_disputes(refs: list[NoteRef]) -> list[NoteRef]:
    """Each cited claim that the calculators dispute carries its dispute."""
    for ref in refs:
        if ref.claim and ref.dispute is None:
            try:
                ref.dispute = dispute_for(ref.id, ref.claim)
            except Exception:  # a broken check must not break the answer that cites it
                ref.dispute = None
    return refs


def render(reply: Reply, said: list[str], warnings: list[str], refs: list[NoteRef]) -> str:
    """The Markdown: direct answer, tables, then assumptions, warnings, disputes and sources."""
    parts = [reply.headline, *reply.tables]
    if warnings:
        parts.append("**Warnings**\n" + "\n".join(f"- {escape(w)}" for w in warnings))
    if said:
        parts.append("**Assumptions**\n" + "\n".join(f"- {escape(a)}" for a in said))
    disputed = [r for r in refs if r.dispute]
    if disputed:
        parts.append("**Disputed sources**\n" + "\n".join(
            f"- {code(r.key)}{_claim_text(r)}: disputed, {escape(r.dispute)}"
            for r in disputed))
    if refs:
        parts.append("**Sources**\n" + "\n".join(
            f"{i}. {code(r.key)} {escape(r.title)}" for i, r in enumerate(refs, 1)))
    return "\n\n".join(p for p in parts if p)


def clarifying(question: str, intent: Intent, clar: Clarification) -> Answer:
    """An answer that is one question back, naming what is missing and offering choices."""
    options = ", ".join(code(c) for c in clar.choices)
    text = escape(clar.question) + (f"\n\nFor example: {options}" if options else "")
    said = assumptions(intent)
    return Answer(question=question, intent=intent, markdown=text, clarification=clar,
                  trace=[parse_step(intent)], assumptions=said)


def failure(question: str, intent: Intent | None, message: str, calls: Calls | None = None
            ) -> Answer:
    """An answer that says, in one line, why the question could not be answered."""
    trace = [parse_step(intent)] if intent else []
    for name, why, payload in calls.tried if calls else []:
        trace.append(Step(label=f"call tool {name}: {why}",
                          inputs={k: q(_plain(v)) for k, v in payload.items()}))
    return Answer(question=question, intent=intent, error=message, trace=trace,
                  assumptions=assumptions(intent) if intent else [],
                  markdown=f"I could not answer this: {escape(message)}")
