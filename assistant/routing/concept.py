"""Conceptual questions ("what is pipeline parallelism?") answered from the notes, quoted."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.notes.concepts import explain
from clusterplan.assistant.routing.dispatch import Calls, Reply
from clusterplan.tools.contract import Step, q


def concept(intent: Intent, calls: Calls) -> Reply:
    """The best notes' claims for the question, each cited (disputes shown by the notes)."""
    question = str(intent.slots.get("question") or intent.slots.get("query") or "")
    found = _explained(question)
    reply = Reply(headline=found.markdown, steps=list(found.steps), citations=found.citations)
    degrees = intent.slots.get("degrees")
    if isinstance(degrees, dict) and len(degrees) >= 2:
        product = math.prod(int(v) for v in degrees.values())
        said = " × ".join(f"{k} {v}" for k, v in degrees.items())
        reply.headline = (f"The degrees named multiply to the GPU count: {said} = **{product} "
                          f"GPUs**, in whatever order they are listed. " + reply.headline)
        reply.steps.insert(0, Step(label="GPUs the parallel degrees need",
                                   formula="product of the degrees",
                                   inputs={k: q(v) for k, v in degrees.items()},
                                   result=q(product, "GPUs"),
                                   notes=["megatron-lm-2021#degrees-multiply"]))
    return reply


@lru_cache(maxsize=256)
def _explained(question: str) -> Any:
    """The notes' answer to one question (the shipped notes do not change while running)."""

    return explain(question)
