"""The program's one pint registry, built lazily from a small definition set.

pint's default registry takes ~0.3 s to build and reads "Gb" as gilbert; ours defines only
what GPU planning needs (decimal and binary prefixes, bit vs byte, time, FLOP, USD), so
"400 Gb/s" is gigabits per second and building it costs ~10 ms. Importing this module
does not import pint; the first call to `ureg()` does.
"""

from __future__ import annotations

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
    import pint

    registry: pint.UnitRegistry = pint.UnitRegistry(filename=None)
    for line in _DEFINITIONS.strip().splitlines():
        registry.define(line)
    registry.formatter.default_format = "~"
    return registry


def parse(text: str, expect: str) -> pint.Quantity:
    """Read "140 GB" or "400 Gb/s" and check it has the dimension of `expect` (a unit)."""
    registry = ureg()
    try:
        quantity = registry.Quantity(text.replace(",", ""))
    except Exception as exc:  # pint raises several unrelated types for unreadable text
        raise UnitError(f"cannot read {text!r} as a quantity: {exc}") from None
    if not isinstance(quantity, registry.Quantity) or quantity.dimensionless:
        raise UnitError(f"{text!r} has no unit; write it like '140 GB' or '400 Gb/s'")
    if quantity.dimensionality != registry.Quantity(1, expect).dimensionality:
        raise UnitError(f"{text!r} is not convertible to {expect}")
    return quantity


def convert(value: Any, unit: str, to: str) -> float:
    """Convert a magnitude from one unit to another through pint."""
    return float(ureg().Quantity(value, unit).to(to).magnitude)
