"""The tool-calling contract shared by every calculator: inputs, steps, results, citations."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


# defer_build: a model's validator is built on its first use, not when its module is imported,
# so a process that calls one tool does not build the schemas of every model it imports.
class ToolInput(BaseModel):
    """Base of every tool input: unknown fields are an error, never silently ignored; inf and
    nan are refused in every number."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, defer_build=True,
                              allow_inf_nan=False)


class Quantity(BaseModel):
    """A number with its unit, as shown in a step (the unit is part of the value)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    value: float | int | str | bool | None
    unit: str = ""

    def __str__(self) -> str:
        if isinstance(self.value, float):
            text = f"{self.value:,.6g}"
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
    """Shorthand for a step's input or result with its unit."""
    if type(value) in _PLAIN and type(unit) is str:
        # Validation would return these exact types unchanged (the union matches each one
        # exactly), so skip it: answers build thousands of quantities.
        made = Quantity.__new__(Quantity)
        _set_dict(made, {"value": value, "unit": unit})
        _set_fields(made, {"value", "unit"})
        _set_extra(made, None)
        _set_private(made, None)
        return made
    return Quantity(value=value, unit=unit)


_PLAIN = frozenset((float, int, str, bool, type(None)))
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class ToolError(ValueError):
    """Input that validates but cannot be answered (unknown model, tp not dividing heads...).

    The message is one sentence naming the field, the reason and the valid options.
    """
