"""round3 is round(x, 3), bit for bit: every GB figure of a memory answer goes through it."""

from __future__ import annotations

import math
import struct

from hypothesis import given
from hypothesis import strategies as st

from clusterplan.tools.memory.rounding import round3


def same(a: float, b: float) -> bool:
    """The same double, sign of zero included (NaN equals NaN)."""
    return struct.pack("<d", a) == struct.pack("<d", b)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_any_float_rounds_as_round_does(x):
    assert same(round3(x), round(x, 3)), x


@given(st.integers(min_value=-10**9, max_value=10**9), st.integers(min_value=-8, max_value=8))
def test_values_on_and_a_few_bits_around_a_half(m, bits):
    # (m + 0.5) / 1000 is where round's direction flips; step a few doubles either side of it.
    x = (m + 0.5) / 1000.0
    for _ in range(abs(bits)):
        x = math.nextafter(x, math.inf if bits > 0 else -math.inf)
    assert same(round3(x), round(x, 3)), x


def test_hand_picked_figures():
    # 141.1 GB of weights; 0.0005 is stored just above the half, so it rounds up; a small
    # negative rounds to minus zero, as round does; 1e15 + 0.3 is past where x * 1000 is exact.
    for x, expected in ((141.10016, 141.1), (0.0005, 0.001), (-0.0004, -0.0), (-0.0, -0.0),
                        (0.0, 0.0), (1e15 + 0.3, 1000000000000000.2)):
        assert same(round3(x), round(x, 3)) and same(round3(x), expected), x
