"""Loading the notes: Markdown files with YAML front matter, validated, broken ones reported."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Source(BaseModel):
    """Where a note's facts come from, precisely enough for a reader to find them."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1)
    publisher: str = Field(min_length=1)
    address: str = Field(min_length=1)
    reviewed: dt.date
    where: str = ""


class Check(BaseModel):
    """How to test a numeric claim: run `tool` on `input`, read `output`, compare with `value`."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    input: dict[str, Any]
    output: str
    value: float | bool
    tolerance: float = Field(default=0.02, ge=0, le=1)
    unit: str = ""


class Claim(BaseModel):
    """One fact a note makes, in the project's own words."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    text: str = Field(min_length=1)
    check: Check | None = None


class Note(BaseModel):
    """A topic note: front matter plus the Markdown body."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str = Field(min_length=1)
    sources: list[Source] = Field(min_length=1)
    claims: list[Claim] = Field(default_factory=list)
    # Phrases a reader would search for that the title may not say ("pipeline parallelism").
    topics: list[str] = Field(default_factory=list)
    body: str = ""
    file: str = ""

    @property
    def address(self) -> str:
        return self.sources[0].address

    def claim(self, claim_id: str) -> Claim | None:
        return next((c for c in self.claims if c.id == claim_id), None)


@dataclass
class NoteSet:
    """The loaded notes by id, and the problems of those that could not be loaded."""

    notes: dict[str, Note] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def notes_dir() -> Path:
    return Path(str(resources.files("clusterplan.knowledge").joinpath("notes")))


def parse_note(text: str, file: str) -> Note:
    """Parse one note; raises ValueError naming the file and line of the problem."""
    if not text.startswith("---\n"):
        raise ValueError(f"{file}:1: a note starts with '---' and YAML front matter")
    end = text.find("\n---", 4)
    if end < 0:
        raise ValueError(f"{file}:1: the front matter has no closing '---'")
    try:
        meta = yaml.load(text[4:end], Loader=yaml.CSafeLoader)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", 0) + 2
        raise ValueError(f"{file}:{line}: front matter is not valid YAML") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{file}:2: front matter must be a mapping of fields")
    body = text[end + 4 :].lstrip("-").strip()
    try:
        return Note.model_validate({**meta, "body": body, "file": file})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"{file}: field {where}: {first['msg']}") from None


def load_notes(directory: Path) -> NoteSet:
    """Every note in `directory`; a broken or duplicated note is reported and skipped."""
    result = NoteSet()
    for path in sorted(directory.glob("*.md")):
        try:
            note = parse_note(path.read_text(encoding="utf-8"), path.name)
        except ValueError as exc:
            result.problems.append(str(exc))
            continue
        if note.id in result.notes:
            result.problems.append(f"{path.name}: duplicate note id {note.id!r}")
            continue
        result.notes[note.id] = note
    return result


@cache
def shipped_notes() -> NoteSet:
    """The notes that ship with clusterplan, loaded once per process."""
    return load_notes(notes_dir())
