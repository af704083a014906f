"""round(x, 3), bit for bit, in a fraction of the time: an answer rounds a dozen figures.

Python's round(x, 3) writes x's exact binary value as correctly rounded decimal digits and reads
them back: the double nearest to m/1000, where m is x·1000 rounded to an integer (half to
even). When x·1000 lies well clear of a half (and of zero, whose sign round keeps), the float
product's last-bit error cannot move m, so m/1000.0, itself correctly rounded, is that same
double. Otherwise, and for huge or non-finite x, round itself answers.
"""

from __future__ import annotations

# Adding then subtracting 1.5·2^52 rounds any |y| < 2^51 to an integer, half to even.
_INTEGER = 6755399441055744.0


def round3(x: float) -> float:
    """round(x, 3) for a float x (the same double, and the same sign of zero)."""
    y = x * 1000.0
    m = y + _INTEGER - _INTEGER
    if m and -0.499 < y - m < 0.499 and -1e12 < y < 1e12:
        return m / 1000.0
    return round(x, 3) if x else x  # round(±0.0, 3) is ±0.0
