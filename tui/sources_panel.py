"""The Sources tab: the notes an answer rests on, numbered; Enter opens one; disputes marked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:  # the core loads behind the first screen, not before it
    from clusterplan.assistant.answer import NoteRef

DISPUTED = "⚠ disputed"
NO_SOURCES = Option(Content.styled("No sources yet.", "dim"), disabled=True)


def source_prompt(number: int, ref: NoteRef) -> Content:
    """One numbered source: title, note id (and claim), and the dispute if a check disagrees."""
    title = ref.title or ref.id
    parts = [Content.styled(f"[{number}] ", "bold"), Content(title),
             Content.styled(f"\n    {ref.key}", "dim")]
    if ref.dispute:
        parts.append(Content.styled(f"\n    {DISPUTED}: {ref.dispute}", "$warning"))
    return Content.assemble(*parts)


def read_note(ref: NoteRef) -> tuple[str, str]:
    """A note as (title, Markdown) for the viewer, through the `notes` tool."""
    # lazy: the assistant and the catalog load after the first screen (~0.5 s)
    from clusterplan.assistant.lookups import note as read

    note = read(ref.id)
    return note["title"], note_markdown(note, ref)


def note_markdown(note: dict[str, Any], ref: NoteRef | None = None) -> str:
    """A note shown whole: title, source, claims (the disputed one marked), then its body."""
    lines = [f"# {note['title']}", "", f"`{note['id']}` · source: <{note['address']}>", ""]
    if note.get("claims"):
        lines += ["## Claims", ""]
        for claim in note["claims"]:
            mark = ""
            if ref is not None and ref.dispute and claim["id"] == ref.claim:
                mark = f" **{DISPUTED}: {ref.dispute}**"
            lines.append(f"- `{claim['id']}` {claim['text']}{mark}")
        lines.append("")
    lines.append(note.get("body", ""))
    return "\n".join(lines)


class SourcesPanel(OptionList):
    """The last answer's citations; choosing one asks the app to open its note."""

    @dataclass
    class NoteChosen(Message):
        """A person chose a source to read."""

        ref: NoteRef

    def __init__(self, **kwargs: object) -> None:
        super().__init__(NO_SOURCES, **kwargs)  # type: ignore[arg-type]
        self.refs: list[NoteRef] = []

    def show_sources(self, refs: list[NoteRef]) -> None:
        """List `refs`, numbered from 1 in the order the answer cites them."""
        self.refs = list(refs)
        self.clear_options()
        if not refs:
            self.add_option(NO_SOURCES)
            return
        self.add_options(Option(source_prompt(n, ref)) for n, ref in enumerate(refs, start=1))
        self.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.refs):
            self.post_message(self.NoteChosen(self.refs[event.option_index]))
