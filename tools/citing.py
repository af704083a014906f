"""Turning the note ids in a result's steps into citations with titles and addresses."""

from __future__ import annotations

from typing import TypeVar

from clusterplan.knowledge.notes import shipped_notes
from clusterplan.tools.contract import NoteRef, ToolResult

R = TypeVar("R", bound=ToolResult)


def note_ref(key: str) -> NoteRef:
    """A citation for 'note-id' or 'note-id#claim-id'."""
    note_id, _, claim = key.partition("#")
    note = shipped_notes().notes.get(note_id)
    if note is None:
        return NoteRef(id=note_id, claim=claim or None, title="(missing note)")
    return NoteRef(id=note_id, claim=claim or None, title=note.title, address=note.address)


def cite(result: R) -> R:
    """Fill `citations` from the steps, in order of first use, without repeats."""
    keys = dict.fromkeys(key for step in result.steps for key in step.notes)
    known = {ref.key for ref in result.citations}
    result.citations.extend(note_ref(k) for k in keys if k not in known)
    return result
