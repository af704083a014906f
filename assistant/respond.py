"""One question in, one Answer out: parse, clarify or route, compose. Never raises."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from clusterplan.assistant.answer import Answer, Intent
from clusterplan.assistant.composing.compose import answer, clarifying, failure
from clusterplan.assistant.parsing import calibration
from clusterplan.assistant.parsing.clarify import clarification
from clusterplan.assistant.parsing.parse import MAX_CHARS, parse
from clusterplan.assistant.routing.dispatch import Calls, route
from clusterplan.assistant.routing.glance import add_glance
from clusterplan.assistant.routing.run_figures import add_run_figures, with_run_figures
from clusterplan.assistant.routing.side_by_side import add_side_by_side
from clusterplan.db.active import catalog
from clusterplan.tools.contract import ToolError


def respond(question: str, previous: Intent | None = None,
            carried: dict[str, Any] | None = None) -> Answer:
    """Answer `question`, continuing `previous` (the session's last intent) when it follows on;
    `carried`: the session's calibration on a measurement (parsing.calibration)."""
    text = question if isinstance(question, str) else str(question)
    intent: Intent | None = None
    calls = Calls()
    try:
        cat = catalog()
        intent = parse(text, cat, previous)
        calibration.carry(intent, carried)
        if intent.missing:
            return with_run_figures(text, intent,
                                    clarifying(text, intent, clarification(intent, cat)))
        reply = add_side_by_side(intent, calls, route(intent, calls))
        reply = add_glance(intent, calls, reply)
        reply = add_run_figures(text, intent, reply, calls)
        result = answer(text, intent, reply, calls)
        if result.intent is not None:  # what the answer settled on, for follow-ups to keep
            result.intent.assumed.update(reply.resolved)
    except (ToolError, ValidationError, LookupError, ValueError) as exc:
        return failure(text, intent, _one_line(exc), calls)
    except Exception as exc:  # an answer, never a traceback: the error names what went wrong
        return failure(text, intent, f"internal error ({type(exc).__name__}): {_one_line(exc)}",
                       calls)
    kept = calibration.learnt(result)
    if kept:
        result.assumptions.append(calibration.kept_note(kept))
    if len(text) > MAX_CHARS:
        result.warnings.append(f"only the first {MAX_CHARS:,} characters of the question were read")
    return result


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:500] or type(exc).__name__
