"""Tool `notes`: search the source notes, or show one with its claims."""

from __future__ import annotations

import difflib

from pydantic import BaseModel, Field, model_validator

from clusterplan.knowledge.notes import Claim, shipped_notes
from clusterplan.knowledge.search import search
from clusterplan.tools.citing import cite
from clusterplan.tools.contract import Step, ToolError, ToolInput, ToolResult, q
from clusterplan.tools.registry import Tool


class NotesInput(ToolInput):
    """Either `query` (words to search for) or `id` (a note to show)."""

    query: str | None = Field(default=None, max_length=2000, description="words to search for")
    id: str | None = Field(default=None, description="a note id, as `notes list` shows them")
    limit: int = Field(default=5, ge=1, le=50, description="most notes to return")

    @model_validator(mode="after")
    def _one_of(self) -> NotesInput:
        if not (self.query or self.id):
            raise ValueError("give `query` (words to search for) or `id` (a note to show)")
        return self


class NoteSummary(BaseModel):
    id: str
    title: str
    address: str
    snippet: str = ""


class NoteDetail(NoteSummary):
    body: str
    claims: list[Claim]


class NotesResult(ToolResult):
    notes: list[NoteSummary] = Field(default_factory=list)
    note: NoteDetail | None = None


def run(inp: NotesInput) -> NotesResult:
    """Search the notes or show one."""
    if inp.id:
        return cite(_show(inp.id))
    hits = search(inp.query or "", inp.limit)
    result = NotesResult(
        notes=[NoteSummary(id=h.id, title=h.title, address=h.address, snippet=h.snippet)
               for h in hits],
        steps=[Step(label="search the notes", formula="full-text match, best first",
                    inputs={"query": q(inp.query)}, result=q(len(hits), "notes"),
                    notes=[h.id for h in hits])],
    )
    return cite(result)


def _show(note_id: str) -> NotesResult:
    notes = shipped_notes().notes
    note = notes.get(note_id)
    if note is None:
        nearest = difflib.get_close_matches(note_id, list(notes), n=3, cutoff=0.3)
        raise ToolError(f"unknown note {note_id!r}; nearest: {', '.join(nearest) or 'none'}")
    detail = NoteDetail(id=note.id, title=note.title, address=note.address,
                        body=note.body, claims=note.claims)
    step = Step(label="show a note", inputs={"id": q(note_id)}, notes=[note.id])
    return NotesResult(note=detail, steps=[step])


TOOL = Tool(
    name="notes",
    description="Search the source notes behind every figure (query), or show one note (id).",
    input_model=NotesInput,
    output_model=NotesResult,
    run=run,
)
