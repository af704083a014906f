"""The program's one pint registry, built lazily from a small definition set.

pint's default registry takes ~0.3 s to build and reads "Gb" as gilbert; ours defines only
what GPU planning needs (decimal and binary prefixes, bit vs byte, time, FLOP, USD), so
"400 Gb/s" is gigabits per second and building it costs ~10 ms. Importing this module
does not import pint; the first call to `ureg()` does.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pint

_DEFINITIONS = """
kilo- = 1e3 = k = K
mega- = 1e6 = M
giga- = 1e9 = G
tera- = 1e12 = T
peta- = 1e15 = P
exa- = 1e18 = E
kibi- = 2**10 = Ki
mebi- = 2**20 = Mi
gibi- = 2**30 = Gi
tebi- = 2**40 = Ti
pebi- = 2**50 = Pi
milli- = 1e-3 = m
micro- = 1e-6 = u = µ
nano- = 1e-9 = n
second = [time] = s = sec
minute = 60 * second = min
hour = 3600 * second = h = hr
day = 86400 * second = d
week = 7 * day
month = 730 * hour
year = 8760 * hour = yr
bit = [information] = b
byte = 8 * bit = B
FLOP = [computation] = flop
USD = [currency] = usd = dollar
"""

BANDWIDTH_UNITS = ("Gb/s", "GB/s", "Tb/s", "TB/s", "GiB/s", "Mb/s", "MB/s")


class UnitError(ValueError):
    """A quantity that cannot be read, or has the wrong kind of unit."""


@cache
def ureg() -> pint.UnitRegistry:
    """The shared registry, created on first use."""
    # lazy: pint costs ~0.3 s to import and only unit conversions need it
    import pint

    registry: pint.UnitRegistry = pint.UnitRegistry(filename=None)
    for line in _DEFINITIONS.strip().splitlines():
        registry.define(line)
    registry.formatter.default_format = "~"
    return registry


# A quantity is read as "number unit" by these patterns and never handed whole to pint, whose
# parser evaluates arithmetic ("9**9**9 GB" would never return). Sizes are bounded first.
MAX_QUANTITY_CHARS = 64
MAX_MAGNITUDE = 1e18  # of the unit written: 1e18 GB, 1e18 Gb/s; beyond it nothing is planned
_NUMBER = r"(?P<number>[+-]?(?:\d{1,3}(?:,\d{3})+|\d{1,30})(?:\.\d{1,30})?|\.\d{1,30})" \
          r"(?:[eE](?P<exp>[+-]?\d{1,3}))?"
_UNIT = r"[A-Za-zµ]{1,12}(?:\s?/\s?[A-Za-zµ]{1,12})?"
_QUANTITY = re.compile(rf"\s*{_NUMBER}\s*(?P<unit>{_UNIT})\s*")
_UNIT_ONLY = re.compile(rf"\s*(?P<unit>{_UNIT})\s*")


def _show(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def read_unit(text: str) -> pint.Unit:
    """A unit name such as 'GB/s' or 'GiB', read strictly (letters, one '/', no arithmetic)."""
    match = _UNIT_ONLY.fullmatch(text) if len(text) <= MAX_QUANTITY_CHARS else None
    if match is None:
        raise UnitError(f"cannot read {_show(text)} as a unit; write one like 'GB/s' or 'GiB'")
    try:
        return ureg().Unit(match["unit"].replace(" ", ""))
    except Exception:  # pint raises several unrelated types for an unknown name
        raise UnitError(f"cannot read {_show(text)} as a unit; write one like 'GB/s' or "
                        "'GiB'") from None


def parse(text: str, expect: str) -> pint.Quantity:
    """Read "140 GB" or "400 Gb/s" and check it has the dimension of `expect` (a unit)."""
    registry = ureg()
    if len(text) > MAX_QUANTITY_CHARS:
        raise UnitError(f"a quantity is at most {MAX_QUANTITY_CHARS} characters, like "
                        f"'140 GB'; got one of {len(text)}")
    match = _QUANTITY.fullmatch(text)
    if match is None:
        if _UNIT_ONLY.fullmatch(text) is None and re.fullmatch(r"\s*[\d.,eE+-]+\s*", text):
            raise UnitError(f"{_show(text)} has no unit; write it like '140 GB' or '400 Gb/s'")
        raise UnitError(f"cannot read {_show(text)} as a quantity; write a number and a unit "
                        "like '140 GB' or '400 Gb/s'")
    magnitude = float(match["number"].replace(",", "") + (f"e{match['exp']}" if match["exp"]
                                                          else ""))
    if not math.isfinite(magnitude) or abs(magnitude) > MAX_MAGNITUDE:
        raise UnitError(f"{_show(text)} is out of range: the number must be at most "
                        f"{MAX_MAGNITUDE:.0e}")
    try:
        quantity = registry.Quantity(magnitude, read_unit(match["unit"]))
    except UnitError:
        raise UnitError(f"cannot read {_show(text)} as a quantity: unknown unit "
                        f"{match['unit']!r}") from None
    if not isinstance(quantity, registry.Quantity) or quantity.dimensionless:
        raise UnitError(f"{text!r} has no unit; write it like '140 GB' or '400 Gb/s'")
    if quantity.dimensionality != registry.Quantity(1, expect).dimensionality:
        raise UnitError(f"{text!r} is not convertible to {expect}")
    return quantity


def convert(value: Any, unit: str, to: str) -> float:
    """Convert a magnitude from one unit to another through pint."""
    return float(ureg().Quantity(value, unit).to(to).magnitude)
