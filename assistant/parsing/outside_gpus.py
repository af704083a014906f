"""GPU names the catalog lacks ('A40', 'RTX 3060', 'MI210', 'M2 Ultra'), found so that they are
named as unknown and counted ("2 A40" is two GPUs), never answered as the default GPU.

Catalog names are masked (`<g0>`) before this runs, so only names outside it remain. Each
found name is replaced in the masked question by a marker `<u0>`, which the count patterns
read like a catalog GPU's marker.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.db.catalog import normalise

# GeForce numbers the catalog lacks (its 3090, 4090 and 5090 are masked before this runs).
_CONSUMER = r"(?:10[5-8]0|16[56]0|20[6-8]0|30[5-8]0|40[6-8]0|50[6-8]0)"
_S, _E = r"(?<![A-Za-z0-9_.])", r"(?![A-Za-z0-9_])"  # word edges that Chinese text does not hide
OUTSIDE = lazy(
    _S + r"(?:(?:nvidia\s+)?(?:tesla\s+)?(?:a30|a40|l20|p100|p6000|k40|k80|m40|m60|b100)"
    r"|(?:amd\s+)?(?:instinct\s+)?mi(?:50|60|100|210|250|300a)"
    r"|(?:nvidia\s+)?(?:geforce\s+)?(?:rtx|gtx)\s*" + _CONSUMER + r"(?:\s*(?:ti|super))?"
    r"|" + _CONSUMER + r"(?:\s*(?:ti|super|laptop)"
    r"|(?=\s*(?:\d+\s*g|显卡|gpu(?!s)|card(?!s)|graphics)))"  # "3060 GPUs" may be a count
    r"|titan\s*(?:rtx|v|xp?)|quadro\s+rtx\s*\d{4}|rtx\s*(?:6000|8000)|rtx\s+pro\s+6000"
    r"|(?:radeon\s+)?(?:rx\s*)?7900\s*x\s*tx?|gaudi\s*2|tpu\s*v\d[a-z]?"
    r"|(?:apple\s+)?m[1-4]\s+(?:pro|max|ultra)|jetson\s+(?:agx\s+)?orin|arc\s+a7[57]0"
    r"|dgx\s+spark)" + _E,
    re.IGNORECASE)


# The memory written right after it: "3060laptop 6GB", "A40 (48GB)", "RTX 8000, 48G".
MEMORY_AFTER = lazy(r"^\s*[(（,，-]?\s*(?:显存(?:大小)?\s*)?(\d+)\s*(g|mib)(?:i?b)?(?![a-z])",
                   re.IGNORECASE)


@dataclass(frozen=True)
class Outside:
    """A GPU name outside the catalog: as written, where it sits in the masked text, and the
    GB written right after it, if any."""

    said: str
    start: int
    end: int
    gb: int | None = None


def nearest(said: str, names: dict[str, str]) -> str:
    """The catalog GPUs spelled most like `said`, or 'none' when nothing is close."""
    key = normalise(said)
    key = "rtx" + key if key[:1].isdigit() else key  # "2080ti" is a GeForce RTX
    close = difflib.get_close_matches(key, list(names), n=4, cutoff=0.6)
    return ", ".join(dict.fromkeys(names[c] for c in close)) or "none in the catalog"


def outside_gpus(masked: str) -> list[Outside]:
    """Every GPU name outside the catalog in the masked question, left to right."""
    found = []
    for m in OUTSIDE.finditer(masked):
        said = MEMORY_AFTER.match(masked[m.end():m.end() + 20])
        gb = None
        if said:  # "46068MiB" as the driver shows it: 46068 x 2^20 B = 48.3 GB
            gb = int(said[1]) if said[2].lower() == "g" else round(int(said[1]) * 2**20 / 1e9)
        found.append(Outside(_unspaced(m[0].strip()), m.start(), m.end(), gb))
    return found


def _unspaced(said: str) -> str:
    """'7900 x TX' (counts are spaced out before this runs) back to '7900 XTX'."""
    return re.sub(r"(\d)\s+x\s+(?=[a-z])", r"\1 X", said, flags=re.IGNORECASE)


def mark_outside(masked: str, found: list[Outside]) -> str:
    """The masked question with each outside name replaced by `<u0>`, `<u1>`..."""
    out, last = [], 0
    for i, o in enumerate(found):
        out += [masked[last:o.start], f" <u{i}> "]
        last = o.end
    return "".join(out) + masked[last:]
