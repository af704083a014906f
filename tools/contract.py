"""The tool-calling contract shared by every calculator: inputs, steps, results, citations."""

from __future__ import annotations

import json
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator


def _kinds(annotation: Any) -> set[Any]:
    """The plain types a field accepts (int | None -> {int, NoneType}; Literal -> its values'
    types)."""
    args = get_args(annotation)
    if get_origin(annotation) is Literal:
        return {type(a) for a in args}
    if not args:
        return {annotation}
    return set().union(*(_kinds(a) for a in args))


def _shown(value: Any) -> str:
    """A value as the JSON input spelled it ('"8"', 'true'), cut short."""

    return json.dumps(value, default=str, ensure_ascii=False)[:60]


# defer_build: a model's validator is built on its first use, not when its module is imported,
# so a process that calls one tool does not build the schemas of every model it imports.
class ToolInput(BaseModel):
    """Base of every tool input: unknown fields are an error, never silently ignored; inf and
    nan are refused in every number."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, defer_build=True,
                              allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_guessed_types(cls, value: Any, info: ValidationInfo) -> Any:
        """A yes/no field takes true or false, a number field a number: "yes" is not read as
        true, nor "8" as 8, nor true as 1, since a user could have meant something else."""
        kinds = _kinds(cls.model_fields[info.field_name or ""].annotation)
        if value is None or not kinds & {bool, int, float} or str in kinds:
            return value
        if bool in kinds and not isinstance(value, bool):
            if not kinds & {int, float}:
                raise ValueError(f"give true or false, not {_shown(value)}")
        if isinstance(value, str) or (isinstance(value, bool) and bool not in kinds):
            raise ValueError(f"give a number, not {_shown(value)}")
        return value


class Quantity(BaseModel):
    """A number with its unit, as shown in a step (the unit is part of the value)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    value: float | int | str | bool | None
    unit: str = ""

    def __str__(self) -> str:
        if isinstance(self.value, float):
            # six significant figures to check a step by hand; large values whole, not 3.1e+06
            big = 1e6 <= abs(self.value) < 1e15
            text = f"{self.value:,.0f}" if big else f"{self.value:,.6g}"
        else:
            text = str(self.value)
        return f"{text} {self.unit}".strip()


class Step(BaseModel):
    """One line of reasoning: what was computed, how, from what, and which notes back it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    label: str
    formula: str = ""
    inputs: dict[str, Quantity] = Field(default_factory=dict)
    result: Quantity | None = None
    notes: list[str] = Field(default_factory=list)

    def summary(self) -> str:
        """The step as one line of text: label, formula, inputs, result."""
        parts = [self.label]
        if self.formula:
            parts.append(self.formula)
        if self.inputs:
            parts.append(", ".join(f"{k} = {v}" for k, v in self.inputs.items()))
        if self.result is not None:
            parts.append(f"= {self.result}")
        return " | ".join(parts)


class NoteRef(BaseModel):
    """A citation: the note (and claim, when one) that a figure rests on."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    claim: str | None = None
    title: str = ""
    address: str = ""
    dispute: str | None = None

    @property
    def key(self) -> str:
        return f"{self.id}#{self.claim}" if self.claim else self.id


class ToolResult(BaseModel):
    """Base of every tool result: the steps taken, the notes cited, what was assumed or is risky."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    steps: list[Step] = Field(default_factory=list)
    citations: list[NoteRef] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def q(value: Any, unit: str = "") -> Quantity:
    """Shorthand for a step's input or result with its unit (plain numbers and strings need
    no validation: the field's union takes them as they are)."""
    if isinstance(value, _PLAIN) and isinstance(unit, str):
        return Quantity.model_construct(value=value, unit=unit)
    return Quantity(value=value, unit=unit)


_PLAIN = (float, int, str, bool, type(None))


class ToolError(ValueError):
    """Input that validates but cannot be answered (unknown model, tp not dividing heads...).

    The message is one sentence naming the field, the reason and the valid options.
    """
