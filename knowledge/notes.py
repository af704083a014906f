"""Loading the notes: Markdown files with YAML front matter, validated, broken ones reported."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clusterplan import locations


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
    import yaml  # lazy: notes kept parsed need no YAML (importing it costs ~20 ms)

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


def load_notes(directory: Path, parsed: dict[str, Any] | None = None) -> NoteSet:
    """Every note in `directory`; a broken or duplicated note is reported and skipped.

    `parsed` (file name -> {"sha256", "note"}) holds notes parsed before: a file whose text
    has the same hash is read from it, and every note parsed anew is added to it."""
    result = NoteSet()
    for path in sorted(directory.glob("*.md")):
        try:
            note = _parse_known(path.read_text(encoding="utf-8"), path.name, parsed)
        except ValueError as exc:
            result.problems.append(str(exc))
            continue
        if note.id in result.notes:
            result.problems.append(f"{path.name}: duplicate note id {note.id!r}")
            continue
        result.notes[note.id] = note
    return result


def _parse_known(text: str, file: str, parsed: dict[str, Any] | None) -> Note:
    """parse_note, or the note kept in `parsed` for exactly this text."""
    if parsed is None:
        return parse_note(text, file)
    digest = hashlib.sha256(text.encode()).hexdigest()
    kept = parsed.get(file)
    if isinstance(kept, dict) and kept.get("sha256") == digest:
        try:
            return Note.model_validate(kept["note"])
        except (ValidationError, KeyError):
            pass  # a damaged entry: parse the file again
    note = parse_note(text, file)
    dumped = note.model_dump(mode="json")
    if Note.model_validate(dumped) == note:  # keep only what reads back exactly
        parsed[file] = {"sha256": digest, "note": dumped}
    return note


# Parsing the YAML front matter of every shipped note is most of the cost of loading them
# (tens of ms at each start), so the parsed notes are kept in the data directory, by file
# and the hash of its text; any edit to a note's file parses it again.
CACHE_FILE = "notes-parsed.json"
CACHE_VERSION = 1


@cache
def shipped_notes() -> NoteSet:
    """The notes that ship with clusterplan, loaded once per process."""

    cache_path = locations.data_dir() / CACHE_FILE
    before = _read_cache(cache_path)
    parsed = dict(before)
    loaded = load_notes(notes_dir(), parsed)
    if parsed != before:
        _write_cache(cache_path, parsed)
    return loaded


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def _write_cache(path: Path, parsed: dict[str, Any]) -> None:
    """Best effort, written aside and renamed so a reader never sees half a file."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".notes-", suffix=".json", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"version": CACHE_VERSION, "files": parsed}, out)
        os.replace(tmp, path)
    except OSError:  # a read-only data directory only costs the parse next time
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
