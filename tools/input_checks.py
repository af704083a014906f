"""Range checks shared by the tools' inputs, so every tool refuses bad sizes in the same words."""

from __future__ import annotations

from typing import TypeVar

N = TypeVar("N", int, float)

MAX_PARAMS_B = 10_000  # 10 trillion parameters: several times any model yet announced


def within(value: N | None, field: str, ranges: dict[str, tuple[float, float]]) -> N | None:
    """`value` if it lies in the field's valid range; else a ValueError naming that range."""
    low, high = ranges[field]
    if value is not None and not low <= value <= high:
        raise ValueError(f"{value:,} is outside the valid range {low:,} to {high:,}")
    return value


def plausible_params_b(value: float | None) -> float | None:
    """A parameter count in billions that some model could have (refuses '70 trillion')."""
    if value is not None and not 0 < value <= MAX_PARAMS_B:
        raise ValueError(f"{value:,} billion parameters is outside the valid range: above 0 "
                         f"and at most {MAX_PARAMS_B:,} (10 trillion, beyond any model built; "
                         "give 70 for a 70B model)")
    return value
