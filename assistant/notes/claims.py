"""Claims of the notes about the very calculation an answer made, so a disputed source shows.

A note's numeric claim carries a check: a tool and its input. When an answer calls the same
tool on the same subject (model size, workload, GPUs, links...), the claim is about this
answer's figure: it is cited, and a claim the calculators dispute is shown with its dispute.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from typing import Any

from clusterplan.db.active import catalog
from clusterplan.db.catalog import UnknownName
from clusterplan.knowledge.notes import shipped_notes
from clusterplan.tools.contract import NoteRef

# Input fields that say what a calculation is about; the rest are settings.
SUBJECT = ("model", "workload", "gpu", "gpus", "nodes", "op", "links", "provider",
           "egress_provider", "precision")
SIZE_TOLERANCE = 0.03  # "a 70B model" and Llama 3 70B (70.55B) are the same size of model


@cache
def _checked() -> tuple[tuple[str, str, str, str, str, dict[str, Any]], ...]:
    return tuple((n.id, c.id, n.title, n.address, c.check.tool, c.check.input)
                 for n in shipped_notes().notes.values() for c in n.claims if c.check)


@cache
def _titles() -> dict[tuple[str, str], tuple[str, str]]:
    """(note, claim) -> (note title, address), built once."""
    return {(n, c): (t, a) for n, c, t, a, _, _ in _checked()}


def claims_about(calls: list[tuple[str, dict[str, Any]]]) -> list[NoteRef]:
    """The checked claims whose tool and subject match one of the calls made."""

    keys = dict.fromkeys(
        key for name, payload in calls
        for key in _matching(id(catalog()), name, json.dumps(payload, sort_keys=True, default=str)))
    if not keys:
        return []
    found = _titles()
    return [NoteRef(id=n, claim=c, title=found[n, c][0], address=found[n, c][1]) for n, c in keys]


@lru_cache(maxsize=1024)
def _matching(catalog_id: int, name: str, payload_json: str) -> tuple[tuple[str, str], ...]:
    """(note, claim) of the checked claims about one call; the same call, the same claims."""
    payload = json.loads(payload_json)
    return tuple((note_id, claim_id) for note_id, claim_id, _, _, tool, check in _checked()
                 if tool == name and _same_subject(check, payload))


def _same_subject(check: dict[str, Any], payload: dict[str, Any]) -> bool:
    keys = [k for k in SUBJECT if k in check and k != "model"]
    if ("model" in check or "params_b" in check) and not _same_size(check, payload):
        return False
    if not keys and "model" not in check:
        return False
    return all(_same(k, check[k], payload.get(k)) for k in keys)


def _same(key: str, a: Any, b: Any) -> bool:
    if b is None:
        return False
    if key in ("gpu", "provider", "egress_provider"):
        return _id(key, a) == _id(key, b)
    if isinstance(a, list) and isinstance(b, list):
        return [str(x).lower() for x in a] == [str(x).lower() for x in b]
    return str(a).lower() == str(b).lower()


def _id(key: str, name: Any) -> str:
    table = catalog().gpus if key == "gpu" else catalog().providers
    try:
        return str(table.find(str(name)).id)
    except UnknownName:
        return str(name).lower()


def _same_size(check: dict[str, Any], payload: dict[str, Any]) -> bool:
    a, b = _params_b(check), _params_b(payload)
    if a is None or b is None:
        return False
    if "model" in check and "model" in payload:
        return _model_id(check["model"]) == _model_id(payload["model"])
    return abs(a - b) <= SIZE_TOLERANCE * max(a, b)


def _model_id(name: Any) -> str:
    try:
        return str(catalog().models.find(str(name)).id)
    except UnknownName:
        return str(name).lower()


def _params_b(fields: dict[str, Any]) -> float | None:
    if fields.get("params_b") is not None:
        return float(fields["params_b"])
    if fields.get("model") is None:
        return None
    rows = catalog().models.rows
    model_id = _model_id(fields["model"])
    return float(rows[model_id].params_b) if model_id in rows else None
