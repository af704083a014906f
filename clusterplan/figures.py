"""Numbers as people read them, the one place they are formatted for every front end.

The answer, the report, its charts, the app and the command line all write figures through
these functions, so the same figure reads the same everywhere: about three significant figures
with thousands separated, percentages from fractions, dollars with cents below $1,000, and the
unit after the number.
"""

from __future__ import annotations

import math
from typing import Any


def num(value: Any, digits: int = 3) -> str:
    """1234.5 -> '1,234' (whole above 10**digits); 0.54444 -> '0.544'; about `digits`
    significant figures."""
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "-"}[value]
    if not isinstance(value, int | float):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if isinstance(value, int) or (abs(value) >= 1000 and float(value).is_integer()):
        return f"{int(value):,}"
    if abs(value) >= 10 ** digits:
        return f"{value:,.0f}"
    if value == 0:
        return "0"
    places = max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))
    return f"{value:,.{places}f}"


def plural(count: int, noun: str) -> str:
    """'1 replica', '3 replicas', '4,096 tokens'."""
    return f"{num(count)} {noun}" + ("" if count == 1 else "s")


def pct(fraction: float) -> str:
    """A fraction as a percentage: 0.6 -> '60%'; 0.3524 -> '35.2%'; 12.5 -> '1,250%'."""
    if not isinstance(fraction, int | float) or isinstance(fraction, bool) \
            or not math.isfinite(fraction):
        return "-"
    percent = fraction * 100
    return (num(percent) if abs(percent) >= 1000 else f"{percent:.3g}") + "%"


def usd(value: Any) -> str:
    """Dollars with cents below $1,000, whole dollars above."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return "-"
    return f"${value:,.2f}" if abs(value) < 1000 else f"${value:,.0f}"


def usd_rate(value: Any) -> str:
    """A price per unit (per GPU-hour, per million tokens): to the cent, or to a tenth of a
    cent where the price has one (providers quote $2.616 or $6.305 per GPU-hour); never more
    places, so $3.39985 reads $3.40."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return "-"
    if abs(value) < 1000 and round(value, 3) != round(value, 2):
        return f"${value:,.3f}"
    return usd(value)


def figure(value: Any, unit: str = "") -> str:
    """A number with its unit: USD as dollars, % from a fraction, else `num` then the unit."""
    if unit == "USD":
        return usd(value)
    if unit == "%":
        return pct(value)
    return f"{num(value)} {unit}".strip()


def days(value: Any) -> str:
    """A duration given in days, in the unit people say it: '29.3 days', '3.50 hours',
    '5 minutes' (a run under a day is not '0.00353 days')."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return "-"
    if value >= 1:
        return figure(value, "days" if value != 1 else "day")
    if value * 24 >= 1:
        return figure(value * 24, "hours")
    minutes = max(1, round(value * 24 * 60))
    return f"{minutes:,} minute" + ("" if minutes == 1 else "s")


def gb(value: Any) -> str:
    """Decimal gigabytes (1e9 bytes): '67.1 GB'."""
    return figure(value, "GB")
