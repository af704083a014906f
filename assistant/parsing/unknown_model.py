"""A model named with its size that the catalog does not hold ("Qwen3-VL-30B-A3B").

The size is all the calculators get from such a name, so the answer must say that the name
itself was not found (with the catalog models spelled nearest) and read what else the name
tells: a mixture of experts writes the parameters a token uses after its total, "30B-A3B"
being 30B in all with 3B active. The active count is what compute scales with, and it sizes
the assumed attention and depth (model-qwen3#assumed-moe).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.db.catalog import Catalog

_I = re.IGNORECASE
# "30B-A3B", "80B A3B", "21B_A3B", "235B A22": the active count written right after the total
# (its "B" is sometimes left off: the total's unit carries over).
ACTIVE_AFTER = lazy(r"^[-_ ]?a(\d+(?:\.\d+)?)b?(?![a-z0-9.])", _I)
# "(3B active)", "3.3B activated parameters", "with 22B active params"
ACTIVE_WORDS = lazy(r"(?<![\w.])(\d+(?:\.\d+)?)\s*b\s+(?:active|activated)\b"
                    r"(?:\s+param(?:eter)?s?)?", _I)
# A name's characters on either side of its size: letters, digits, dots, - and _.
NAME_CHARS = lazy(r"[\w.\-]+$")
NAME_TAIL = lazy(r"^[\w.\-]+")


@dataclass(frozen=True)
class NamedSize:
    """What a name outside the catalog says: the name, and its active count if a MoE's."""

    name: str | None
    active_b: float | None


def read_named_size(masked: str, at: int, said: str) -> NamedSize:
    """The name around the size `said` found at `at`, and the active parameters written after
    it or anywhere as "3B active"."""
    end = at + len(said)
    after = ACTIVE_AFTER.match(masked[end:])
    words = ACTIVE_WORDS.search(masked)
    active = float(after[1]) if after else float(words[1]) if words else None
    before = NAME_CHARS.search(masked[:at])
    tail = NAME_TAIL.match(masked[end:])
    head = before[0] if before else ""
    name = None
    if re.search(r"[a-z]", head, _I) and head[-1:] in "-_":  # joined: "Qwen3-VL-30B"
        name = (head + said + (tail[0] if tail else "")).strip(".-_")
    return NamedSize(name, active)


def same_active(said_b: float | None, catalog_b: float) -> bool:
    """An active count read from a name is the catalog model's: names round it ("A3B" is
    Qwen3-30B-A3B's 3.3B, "A22" Qwen3-235B-A22B's 22B), so within 15%."""
    return said_b is not None and abs(said_b - catalog_b) <= 0.15 * catalog_b


def unknown_reading(named: NamedSize, params_b: float, catalog: Catalog) -> str | None:
    """The line the answer shows for a name the catalog lacks: the nearest catalog models
    and what was read from the name."""
    if named.name is None and named.active_b is None:
        return None
    counts = f"{params_b:g}B parameters" + (
        f", {named.active_b:g}B of them active per token (a mixture of experts)"
        if named.active_b else "")
    if named.name is None:
        return f"read {counts}"
    near = catalog.models.close(named.name)
    nearest = f" (nearest: {', '.join(near)})" if near else ""
    return (f"'{named.name}' is not a model in the catalog{nearest}; read from its name as "
            f"{counts}")


def mask_active_words(masked: str) -> str:
    """The "3B active" of a MoE is not a second model to size."""
    return ACTIVE_WORDS.sub(lambda m: " " * len(m[0]), masked)
