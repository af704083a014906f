"""What every front end renders: the parsed intent and the Answer with its trace and sources."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from clusterplan.tools.contract import NoteRef, Step


class Intent(BaseModel):
    """A question understood: its kind, the slots read, what was assumed, what is missing."""

    kind: str
    slots: dict[str, Any] = Field(default_factory=dict)
    assumed: dict[str, Any] = Field(default_factory=dict)
    missing: list[str] = Field(default_factory=list)
    readings: list[str] = Field(default_factory=list)  # e.g. "read 'H10O' as h100-sxm"


class Clarification(BaseModel):
    """One question back to the user, naming what is missing and offering choices."""

    question: str
    missing: list[str]
    choices: list[str] = Field(default_factory=list)


class Answer(BaseModel):
    """One answer: a direct reply first, then tables, with every step and source behind it."""

    question: str
    intent: Intent | None = None
    markdown: str
    data: dict[str, Any] = Field(default_factory=dict)
    trace: list[Step] = Field(default_factory=list)
    citations: list[NoteRef] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    clarification: Clarification | None = None
    error: str | None = None
