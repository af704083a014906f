"""Range checks shared by the tools' inputs, so every tool refuses bad sizes in the same words."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import ValidationInfo, field_validator

from clusterplan.tools.contract import ToolInput

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


class CheckedInput(ToolInput):
    """A tool input whose numbers are held to the class's RANGES and whose model size, when
    given, is one some model could have: the memory, parallelism and plan tools refuse a bad
    size in the same words."""

    RANGES: ClassVar[dict[str, tuple[float, float]]] = {}

    def check_model_or_size(self, shape_fields: tuple[str, ...]) -> None:
        """Exactly one of `model` (a catalog name) and `params_b`; shape fields only with
        params_b, since a catalog model brings its own shape."""
        model, params_b = getattr(self, "model", None), getattr(self, "params_b", None)
        if (model is None) == (params_b is None):
            raise ValueError("give either `model` (a catalog name) or `params_b` (billions of "
                             "parameters), exactly one of them")
        given = [f for f in shape_fields if getattr(self, f) is not None]
        if model is not None and given:
            raise ValueError(f"{given[0]}: architecture fields go with params_b; a catalog model "
                             "brings its own")

    @field_validator("*", mode="after")
    @classmethod
    def _in_range(cls, value: Any, info: ValidationInfo) -> Any:
        name = str(info.field_name)
        return within(value, name, cls.RANGES) if name in cls.RANGES else value

    @field_validator("params_b", "active_params_b", mode="after", check_fields=False)
    @classmethod
    def _plausible_size(cls, value: float | None) -> float | None:
        return plausible_params_b(value)
