"""Claim checks: run each numeric claim through the calculators and say whether they agree.

A source can be wrong. The verdict comes from the tools alone; no claim is special-cased.
The tool registry is imported inside the functions, so the knowledge package never pulls in
the calculators when it is merely loaded.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel

from clusterplan.assistant.notes import verdict_cache
from clusterplan.knowledge.notes import Check, Note, NoteSet, shipped_notes
from clusterplan.tools.registry import TOOL_BY_NAME, invoke

Verdict = Literal["agrees", "disagrees", "not checkable"]


class Citation(Protocol):
    id: str
    claim: str | None
    dispute: str | None


R = TypeVar("R", bound=Citation)


class CheckOutcome(BaseModel):
    """The verdict on one claim: what the source says, what the tools compute, and why."""

    note: str
    claim: str
    text: str
    tool: str
    output: str
    unit: str = ""
    source_value: float | bool
    computed_value: float | bool | None = None
    verdict: Verdict
    reason: str = ""

    @property
    def key(self) -> str:
        return f"{self.note}#{self.claim}"


class NotCheckable(Exception):
    """A check that could not run (tool missing, input invalid, output absent): the reason."""


def check_claim(note: Note, claim_id: str) -> CheckOutcome:
    """Run the check of one claim of `note` and give its verdict."""
    claim = note.claim(claim_id)
    if claim is None or claim.check is None:
        raise KeyError(f"{note.id}#{claim_id} has no check")
    check = claim.check
    base = dict(note=note.id, claim=claim.id, text=claim.text, tool=check.tool,
                output=check.output, unit=check.unit, source_value=check.value)
    try:
        result = _run(check)
        computed = _number(read_path(result, check.output), check)
    except NotCheckable as exc:
        return CheckOutcome(**base, verdict="not checkable", reason=str(exc))
    if _close(check, computed):
        return CheckOutcome(**base, computed_value=computed, verdict="agrees")
    return CheckOutcome(**base, computed_value=computed, verdict="disagrees",
                        reason=_dispute(check, computed, result))


def check_all(notes: NoteSet | None = None) -> list[CheckOutcome]:
    """The verdict on every claim that carries a check, in note and claim order."""
    loaded = notes or shipped_notes()
    return [check_claim(n, c.id) for n in loaded.notes.values() for c in n.claims if c.check]


_running: list[bool] = []


@cache
def _shipped_outcome(note_id: str, claim_id: str) -> CheckOutcome | None:
    """The verdict on one shipped claim, computed once (only claims that carry a check)."""
    note = shipped_notes().notes.get(note_id)
    claim = note.claim(claim_id) if note else None
    if note is None or claim is None or claim.check is None:
        return None
    kept = verdict_cache.recall(f"{note_id}#{claim_id}")
    if kept is not None:
        return CheckOutcome.model_validate_json(kept)
    _running.append(True)
    try:
        outcome = check_claim(note, claim_id)
    finally:
        _running.pop()
    verdict_cache.keep(outcome.key, outcome.model_dump_json())
    return outcome


def dispute_for(note_id: str, claim_id: str | None) -> str | None:
    """The one-sentence dispute of a cited claim, or None when the tools agree or cannot tell."""
    # A tool run by a check may cite claims too; while a check runs there is nothing to say yet.
    if not claim_id or _running:
        return None
    outcome = _shipped_outcome(note_id, claim_id)
    if outcome is None or outcome.verdict != "disagrees":
        return None
    return outcome.reason


def mark_disputes(citations: list[R]) -> list[R]:
    """Set `dispute` on each citation (a NoteRef) whose claim the calculators dispute."""
    for ref in citations:
        ref.dispute = dispute_for(ref.id, ref.claim) or ref.dispute
    return citations


def read_path(data: dict[str, Any], path: str) -> Any:
    """The value at a dotted path such as `breakdown_gb.weights` or `plans.0.tp`."""
    value: Any = data
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise NotCheckable(f"output path {path!r} is absent from the result (no {part!r})")
    return value


def _run(check: Check) -> dict[str, Any]:
    if check.tool not in TOOL_BY_NAME:
        raise NotCheckable(f"tool {check.tool!r} is not registered")
    try:
        result = invoke(check.tool, check.input)
    except (ValueError, LookupError) as exc:
        raise NotCheckable(f"the {check.tool} tool refused the input: {exc}") from None
    dumped: dict[str, Any] = result.model_dump(mode="json")
    return dumped


def _number(value: Any, check: Check) -> float | bool:
    """The output as the kind of value the source gives: yes/no for yes/no, else a number."""
    wants_bool = isinstance(check.value, bool)
    if isinstance(value, bool) == wants_bool and isinstance(value, bool | int | float):
        return value
    kind = "yes/no" if wants_bool else "a number"
    raise NotCheckable(f"output {check.output!r} is {value!r}, not {kind} like the source value")


def _close(check: Check, computed: float | bool) -> bool:
    if isinstance(check.value, bool):
        return check.value is computed
    scale = max(abs(check.value), 1e-12)
    return abs(computed - check.value) <= check.tolerance * scale


def _dispute(check: Check, computed: float | bool, result: dict[str, Any]) -> str:
    """Source value against computed value, and the steps and assumptions behind the latter."""
    if isinstance(check.value, bool):
        unit = f" ({check.unit})" if check.unit else ""
        said = f"the source says {_show(check.value)}{unit}"
        found = f"the {check.tool} tool computes {_show(computed)} ({check.output})"
    else:
        unit = f" {check.unit}" if check.unit else ""
        said = f"the source says {_show(check.value)}{unit}"
        found = f"the {check.tool} tool computes {_show(computed)}{unit} ({check.output})"
    basis = _basis(result, computed, check.output)
    return f"{said}, but {found}{'; ' + basis if basis else ''}."


def _basis(result: dict[str, Any], computed: float | bool, output: str) -> str:
    """The steps that produced the computed value (else the last ones) and the assumptions."""
    steps = [s for s in result.get("steps", []) if s.get("label")]
    parts_of_path = output.split(".")
    if parts_of_path[0] == "steps" and len(parts_of_path) > 3:
        # The value is a step's own input: show that step, that input first.
        step = read_path(result, ".".join(parts_of_path[:2]))
        shown = [_step_text(step, first=parts_of_path[3])]
    else:
        behind = [s for s in steps if _same((s.get("result") or {}).get("value"), computed)]
        using = [s for s in steps
                 if any(_same(v.get("value"), computed) for v in (s.get("inputs") or {}).values())]
        shown = [_step_text(s) for s in (behind[-2:] or using[-2:] or steps[-3:])]
    parts = _explained_by(result, output)
    if shown:
        parts.append("steps: " + ", ".join(shown))
    assumptions = result.get("assumptions", [])[:3]
    if assumptions:
        parts.append("assuming " + "; ".join(a.rstrip(".") for a in assumptions))
    return "; ".join(parts)


def _explained_by(result: dict[str, Any], output: str) -> list[str]:
    """Text the result gives beside the value itself (`rejected_because`, `explanation`)."""
    parent_path, _, _ = output.rpartition(".")
    try:
        parent = read_path(result, parent_path) if parent_path else result
    except NotCheckable:
        return []
    if not isinstance(parent, dict):
        return []
    return [_lower_first(str(v).rstrip(".")) for k, v in parent.items()
            if isinstance(v, str) and v and any(w in k for w in ("because", "reason", "explan"))]


def _lower_first(text: str) -> str:
    # Mid-sentence, "The marketed..." reads "the marketed..."; acronyms ("NVLink") stay.
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


def _step_text(step: dict[str, Any], first: str = "") -> str:
    """A step as `label (input = value unit, ...)`, the figures a reader checks first."""
    inputs = step.get("inputs") or {}
    names = sorted(inputs, key=lambda k: k != first)[:4]
    shown = ", ".join(f"{k} = {_show_any(inputs[k].get('value'))} {inputs[k].get('unit', '')}"
                      .rstrip() for k in names)
    return f"{step['label']} ({shown})" if shown else step["label"]


def _show_any(value: Any) -> str:
    return _show(value) if isinstance(value, bool | int | float) else str(value)


def _same(value: Any, computed: float | bool) -> bool:
    if isinstance(computed, bool) or isinstance(value, bool):
        return value is computed
    if not isinstance(value, int | float):
        return False
    return abs(value - computed) <= 1e-6 * max(abs(computed), 1.0)


def _show(value: float | bool) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:,.6g}"
