"""Conceptual questions ("what is pipeline parallelism?") answered from the notes, quoted."""

from __future__ import annotations

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.route import Calls, Reply


def concept(intent: Intent, calls: Calls) -> Reply:
    """The best notes' claims for the question, each cited (disputes shown by the notes)."""
    from clusterplan.knowledge.concepts import explain

    question = str(intent.slots.get("question") or intent.slots.get("query") or "")
    found = explain(question)
    return Reply(headline=found.markdown, steps=found.steps, citations=found.citations)
