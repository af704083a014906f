"""Answering a conceptual question ("what is pipeline parallelism?") from the best notes.

The answer quotes the notes' own claims briefly, each with its id, so every sentence is cited;
a quoted claim that the calculators dispute carries its dispute.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clusterplan.assistant.notes.check import dispute_for
from clusterplan.knowledge.notes import shipped_notes
from clusterplan.knowledge.search import ClaimHit, Hit, search, search_claims
from clusterplan.tools.contract import NoteRef, Step, q

if TYPE_CHECKING:
    from clusterplan.tools.contract import NoteRef, Step

# The note that explains each concept, by the words a question about it uses (all must appear).
# A question naming a concept gets that note first, whatever else mentions the same words.
GLOSSARY: dict[tuple[str, ...], str] = {
    ("what", "gpu", "cluster"): "cluster-tiers",
    ("cluster", "tiers"): "cluster-tiers",
    ("cluster", "layers"): "cluster-layers",
    ("cluster", "architecture"): "cluster-layers",
    ("form", "factor"): "node-form-factors",
    ("sxm", "pcie"): "node-form-factors",
    ("nvlink", "infiniband"): "nvlink-vs-infiniband",
    ("pipeline", "parallelism"): "parallelism-strategies",
    ("tensor", "parallelism"): "parallelism-strategies",
    ("data", "parallelism"): "parallelism-strategies",
    ("node", "boundary"): "parallelism-strategies",
    ("h100", "h200"): "gpu-generations",
    ("h200", "b200"): "gpu-generations",
    ("h100", "b200"): "gpu-generations",
    ("how", "much", "gpu", "memory"): "memory-sizing",
    ("checkpoint", "storage"): "cluster-storage",
    ("parallel", "file", "system"): "cluster-storage",
    ("multi", "node"): "multi-node-clusters",
    ("kv", "cache"): "kv-cache",
    ("zero",): "zero-paper",
    ("mfu",): "mfu-calibration",
}
# "What is X?", "explain X", "define X", "X是什么": a question asking for the definition.
DEFINITIONAL = re.compile(r"^\s*(?:what(?:'s|\s+is|\s+are)|explain|define|meaning\s+of)\b|"
                          r"是什么|什么是", re.IGNORECASE)

# A note is quoted when it scores at least this share of the best note's score.
_RELATIVE_SCORE = 0.6
_MOST_NOTES = 2
_CLAIMS_PER_NOTE = (4, 2)


@dataclass
class Explanation:
    """A conceptual answer: Markdown quoting cited claims, the citations and the steps taken."""

    markdown: str
    citations: list[NoteRef] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)


def explain(question: str) -> Explanation:
    """The best notes' relevant claims for `question`, quoted briefly with their ids."""

    hits = _best_notes(question)
    if not hits:
        return Explanation(markdown="No note covers this question; try other words.",
                           steps=[Step(label="search the notes", inputs={"question": q(question)},
                                       result=q(0, "notes"))])
    quoted = [(hit, _claims(question, hit, rank)) for rank, hit in enumerate(hits)]
    citations = [
        NoteRef(id=hit.id, claim=c.claim, title=hit.title, address=hit.address,
                dispute=dispute_for(hit.id, c.claim))
        for hit, claims in quoted for c in claims
    ]
    steps = [
        Step(label="search the notes", formula="full-text match ranked by bm25 and phrases",
             inputs={"question": q(question)}, result=q(len(hits), "notes"),
             notes=[h.id for h in hits]),
        Step(label="quote the most relevant claims", result=q(len(citations), "claims"),
             notes=[ref.key for ref in citations]),
    ]
    lead = _lead(question, hits[0])
    markdown = f"{lead}\n\n{_markdown(quoted, citations)}" if lead else _markdown(quoted, citations)
    return Explanation(markdown=markdown, citations=citations, steps=steps)


def _lead(question: str, best: Hit) -> str:
    """The direct answer first: of the best note's three closest claims, the first two in the
    note's own order (a definition comes before its consequences)."""
    order = {c.id: i for i, c in enumerate(shipped_notes().notes[best.id].claims)}
    closest = search_claims(question, [best.id], limit=3)
    closest += [c for c in search_claims(question, [best.id], limit=8)
                if _defines(question, c) and c.claim not in {h.claim for h in closest}]
    found = sorted(closest, key=lambda c: (not _defines(question, c),
                                           order.get(c.claim, len(order))))[:2]
    first = shipped_notes().notes[best.id].claims[0]
    if DEFINITIONAL.search(question) and best.id in concept_notes(question) \
            and not any(_defines(question, c) or _opens_with(question, c) for c in found) \
            and first.id not in {c.claim for c in found}:
        # The concept's own note opens with what the concept is: lead with that.
        found = [ClaimHit(note=best.id, claim=first.id, text=first.text, snippet=first.text,
                          score=0.0), *found[:1]]
    return " ".join(f"{c.text.rstrip('.')}. [`{best.id}#{c.claim}`]" for c in found)


def _defines(question: str, claim: ClaimHit) -> bool:
    """Whether a claim defines a term the question names: "MFU is ...", "Tensor parallelism
    (TP) splits ...", or a claim the note calls a definition. "What is MFU?" wants that
    first, not the claim that mentions MFU most briefly."""
    if claim.claim.endswith("definition"):
        return True
    words = {w for w in "".join(ch.lower() if ch.isalnum() else " " for ch in question).split()
             if len(w) > 2}
    head = claim.text.lower().lstrip('"').split(" is ", 1)[0]
    return " is " in claim.text.lower()[:60] and bool(words) and head in words


def _opens_with(question: str, claim: ClaimHit) -> bool:
    """Whether the claim opens with a word of the question ("Pipeline parallelism hands...")."""
    words = set("".join(ch.lower() if ch.isalnum() else " " for ch in question).split())
    return claim.text.split(" ", 1)[0].lower().strip('"') in words


def _best_notes(question: str) -> list[Hit]:
    """The glossary's notes for the concepts the question names, then the best search hits."""
    hits = search(question, limit=_MOST_NOTES)
    found = [h for h in hits if h.score >= _RELATIVE_SCORE * hits[0].score] if hits else []
    by_id = {h.id: h for h in found}
    named = [by_id.get(n) or _hit(n) for n in concept_notes(question)]
    rest = [h for h in found if h.id not in {n.id for n in named}]
    return (named + rest)[:_MOST_NOTES]


def concept_notes(question: str) -> list[str]:
    """The notes that explain the concepts `question` names, in glossary order, no repeats."""
    words = set("".join(ch.lower() if ch.isalnum() else " " for ch in question).split())
    return list(dict.fromkeys(n for key, n in GLOSSARY.items() if words.issuperset(key)))


def _hit(note_id: str) -> Hit:
    note = shipped_notes().notes[note_id]
    return Hit(id=note.id, title=note.title, address=note.address, snippet="", score=0.0)


def _claims(question: str, hit: Hit, rank: int) -> list[ClaimHit]:
    """The note's claims that match best; a note matched only by title gives its first claims."""
    limit = _CLAIMS_PER_NOTE[min(rank, len(_CLAIMS_PER_NOTE) - 1)]
    note = shipped_notes().notes[hit.id]
    found = search_claims(question, [hit.id], limit=limit)
    if found:
        # Read in the note's own order: definitions come before consequences.
        order = {c.id: i for i, c in enumerate(note.claims)}
        return sorted(found, key=lambda c: order.get(c.claim, len(order)))
    return [ClaimHit(note=note.id, claim=c.id, text=c.text, snippet=c.text, score=0.0)
            for c in note.claims[:limit]]


def _markdown(quoted: list[tuple[Hit, list[ClaimHit]]], citations: list[NoteRef]) -> str:
    """One short section per note: its title, then each claim with its id and any dispute."""
    disputes = {ref.key: ref.dispute for ref in citations if ref.dispute}
    lines: list[str] = []
    for hit, claims in quoted:
        lines.append(f"**{hit.title}** (note `{hit.id}`)")
        for c in claims:
            key = f"{hit.id}#{c.claim}"
            lines.append(f"- {c.text} [`{key}`]")
            if key in disputes:
                lines.append(f"  - disputed: {disputes[key]}")
        lines.append("")
    return "\n".join(lines).strip()
