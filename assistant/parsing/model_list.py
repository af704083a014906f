"""Several models in one question ("7, 13, 70b models", "Llama 3.1 70B and 405B", "8B 32B 72B").

Each is read as a catalog model when it is one (a size after a named model is that family's
model of the size, when the catalog has it), else as a size; the answer then sizes each side
by side instead of dropping all but the first.
"""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.unknown_model import ACTIVE_AFTER, same_active
from clusterplan.db.catalog import Catalog

_I = re.IGNORECASE
# A list of sizes sharing one unit: "7, 13, 70b", "13b/70b", "7B and 13B", "8B 32B 72B".
SIZE = r"\d{1,4}(?:\.\d+)?"
LISTED = lazy(r"(?<![A-Za-z0-9_.])(" + SIZE + r"(?:\s*b)?(?:\s*(?:,|/|、|and|or|和|或|与)\s*"
              + SIZE +
              r"(?:\s*b)?)+)\s*b(?![A-Za-z0-9_])(?!\s*(?:tokens?|toks?)\b)", _I)
ONE = lazy(r"(?<![A-Za-z0-9_.])(" + SIZE + r")\s*b(?![A-Za-z0-9_])(?!\s*(?:tokens?|toks?)\b)", _I)
MOST = 6  # more than this many is a table of sizes the question did not ask for


def read_model_list(masked: str, first_model: str | None, mention_ids: list[str],
                    catalog: Catalog) -> list[dict[str, Any]]:
    """The models a question names, in order: [{"model": id} | {"params_b": size}, ...]; empty
    when it names fewer than two."""
    entries: list[dict[str, Any]] = [{"model": m} for m in dict.fromkeys(mention_ids)]
    known = {round(float(catalog.models.rows[m].params_b), 1) for m in mention_ids
             if m in catalog.models.rows}
    for size, active in _sizes(masked):
        if round(size, 1) in known:
            continue
        known.add(round(size, 1))
        sibling = _moe_sibling(first_model, size, active, catalog) if active else \
            _sibling(first_model, size, catalog)
        entries.append({"model": sibling} if sibling else
                       {"params_b": size, **({"active_params_b": active} if active else {})})
    entries = [dict(t) for t in dict.fromkeys(tuple(e.items()) for e in entries)]
    return entries if 2 <= len(entries) <= MOST else []


def _sizes(masked: str) -> list[tuple[float, float | None]]:
    """Each size named, with the active count written after it ("235B A22") if any."""
    found: dict[float, float | None] = {}
    for m in LISTED.finditer(masked):
        found.update((float(x), None) for x in re.findall(SIZE, m[1]))
    for m in ONE.finditer(masked):
        active = ACTIVE_AFTER.match(masked[m.end():].lstrip())
        if found.get(float(m[1])) is None:
            found[float(m[1])] = float(active[1]) if active else None
    return [(s, a) for s, a in found.items() if 0.1 <= s <= 2000]


def _moe_sibling(model: str | None, size: float, active: float,
                 catalog: Catalog) -> str | None:
    """'Qwen3 32B vs Qwen 235B A22': the catalog MoE of the first model's family with that total
    and active count."""
    row = catalog.models.rows.get(model or "")
    if row is None:
        return None
    same = [r.id for r in catalog.models.rows.values() if r.family == row.family
            and abs(r.params_b - size) <= 0.03 * size and same_active(active, r.active_params_b)]
    return same[0] if len(same) == 1 else None


def _sibling(model: str | None, size: float, catalog: Catalog) -> str | None:
    """'llama-3.1-70b' and 405 -> 'llama-3.1-405b' when the catalog has it."""
    if not model:
        return None
    m = re.search(r"(\d+(?:\.\d+)?)b(?=$|-)", model)
    if not m:
        return None
    candidate = model[:m.start(1)] + f"{size:g}" + model[m.end(1):]
    if candidate in catalog.models.rows:
        return candidate
    # 'qwen3-235b-a22b' and 32 -> 'qwen3-32b': the same generation without the MoE's suffix
    dense = model[:m.start(1)] + f"{size:g}b"
    return dense if dense in catalog.models.rows else None
