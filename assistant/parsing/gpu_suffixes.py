"""GPU names with a suffix the catalog lacks: '3090 Ti', '4080 Super', '4090ti'.

A suffixed card is another product (a 3090 Ti has more bandwidth than a 3090), so it is never
read silently as the plain one. When the question gives the card's memory and it equals the
plain card's, the plain card stands in for memory sums, said as a reading; otherwise the name
is reported as unknown with the plain card as the nearest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clusterplan.assistant.parsing.lazy_re import lazy

# After a masked GPU ("<g0> Ti") or a bare model number ("4080 super", "4090ti").
SUFFIXED = lazy(r"(<g(\d)>|(?<![A-Za-z0-9_<])(?:rtx\s*)?(\d{4}))\s*-?\s*(ti|super)\b",
                re.IGNORECASE)
# The memory the question gives right after it: "4090ti，显存24G", "3090 Ti with 24GB".
MEMORY_AFTER = lazy(r"^\W{0,3}(?:显存|with|has|of)?\s*(\d+)\s*g(?:i?b)?(?![a-z])", re.IGNORECASE)


@dataclass(frozen=True)
class Suffixed:
    """A suffixed GPU name: as written, the plain card's mark or number, the GB said after."""

    said: str
    mark: int | None
    number: str | None
    gb: int | None


def suffixed_gpus(masked: str) -> list[Suffixed]:
    """Every suffixed GPU name in the (masked) question."""
    out = []
    for m in SUFFIXED.finditer(masked):
        gb = MEMORY_AFTER.match(masked[m.end():m.end() + 20])
        mark = int(m[2]) if m[2] is not None else None
        out.append(Suffixed(m[0].strip(), mark, m[3], int(gb[1]) if gb else None))
    return out
