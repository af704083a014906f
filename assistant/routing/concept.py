"""Conceptual questions ("what is pipeline parallelism?") answered from the notes, quoted."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.notes.concepts import explain
from clusterplan.assistant.routing.dispatch import Calls, Reply


def concept(intent: Intent, calls: Calls) -> Reply:
    """The best notes' claims for the question, each cited (disputes shown by the notes)."""
    question = str(intent.slots.get("question") or intent.slots.get("query") or "")
    found = _explained(question)
    return Reply(headline=found.markdown, steps=found.steps, citations=found.citations)


@lru_cache(maxsize=256)
def _explained(question: str) -> Any:
    """The notes' answer to one question (the shipped notes do not change while running)."""

    return explain(question)
