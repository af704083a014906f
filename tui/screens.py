"""The dialogs: export the report, open a saved session, help with examples, read a note,
read an answer whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Input,
    Label,
    Markdown,
    MarkdownViewer,
    OptionList,
    Static,
)
from textual.widgets.option_list import Option

from clusterplan.figures import plural
from clusterplan.tui.examples import EXAMPLE_QUESTIONS, FOLLOW_UPS
from clusterplan.tui.fitted_tables import widest_table

KEYS_HELP = """\
`enter` ask · `up`/`down` history · `right` take a suggested name · `ctrl+e` export ·
`ctrl+n` new · `ctrl+o` open · `ctrl+r` rename · `ctrl+t` panel · `ctrl+y` copy the answer ·
`ctrl+p` commands · `ctrl+q` quit.
When an answer asks back, `tab` from the question box goes to its choices: `up`/`down`
pick one, `enter` answers with it, `escape` goes back to the box. `F2` shows the last
answer whole, every table column included (scroll sideways with `left`/`right`). Answers
before the last three are lines of *Earlier answers*: `enter` or a click opens one whole.
Follow up with *{follow_ups}*; call a tool with `/memory model=… workload=…`.

**Examples** (enter asks one):"""


class Dialog(ModalScreen[Any]):
    """A centred box over the app; escape closes it with no result."""

    BINDINGS = [Binding("escape", "close", "Close")]
    AUTO_FOCUS = "*"  # the dialog's first control, not the app's question box

    def action_close(self) -> None:
        self.dismiss(None)


class ExportScreen(Dialog):
    """Asks where to write the session report; dismisses with the path, or None."""

    AUTO_FOCUS = "#export-path"

    def __init__(self, default_path: Path) -> None:
        super().__init__()
        self.default_path = default_path
        self._confirmed: Path | None = None  # the existing file the person agreed to replace

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Export the session report (Markdown) to:")
            yield Input(str(self.default_path), id="export-path")
            exists = Label("", id="export-exists", classes="warning", markup=False)
            exists.display = False
            yield exists
            with Horizontal(classes="buttons"):
                yield Button("Export", variant="primary", id="export")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#export")
    @on(Input.Submitted, "#export-path")
    def _export(self) -> None:
        text = self.query_one("#export-path", Input).value.strip()
        path = Path(text).expanduser() if text else self.default_path
        if path.is_file() and path != self._confirmed:  # ask once before writing over it
            self._confirmed = path
            warning = self.query_one("#export-exists", Label)
            warning.update(f"{path.name} exists: export again to overwrite it, "
                           "or change the name.")
            warning.display = True
            return
        self.dismiss(path)

    @on(Input.Changed, "#export-path")
    def _path_changed(self) -> None:
        self._confirmed = None
        self.query_one("#export-exists").display = False

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


class OpenSessionScreen(Dialog):
    """Lists saved sessions, newest first; dismisses with the chosen session's id, or None."""

    def __init__(self, sessions: list[Any]) -> None:
        super().__init__()
        self.sessions = sessions

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Open a saved session:")
            if self.sessions:
                yield OptionList(*(Option(session_prompt(s), id=s.id) for s in self.sessions))
            else:
                yield Label("No saved sessions yet.", classes="dim")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


def session_prompt(session: Any) -> Content:
    """A session as one choice: its name (or first question), when and how many questions."""
    first = getattr(session, "first_question", "") or ""
    name = session.name or first[:60] or session.id[:8]
    when = str(session.updated_at)[:16].replace("T", " ")
    return Content.assemble(Content(name), Content.styled(
        f"  {when} · {plural(session.questions, 'question')}", "dim"))


class RenameScreen(Dialog):
    """Asks for the session's new name; dismisses with it, or None."""

    AUTO_FOCUS = "#session-name"

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Name this session (enter to keep it, escape to cancel):")
            yield Input(self.current, id="session-name")

    @on(Input.Submitted, "#session-name")
    def _named(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)


class HelpScreen(Dialog):
    """Keys, follow-ups and example questions; dismisses with the example chosen, or None."""

    BINDINGS = [Binding("escape,f1", "close", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Markdown(KEYS_HELP.format(follow_ups="*, *".join(FOLLOW_UPS)))
            yield OptionList(*(Option(Content(q)) for q in EXAMPLE_QUESTIONS), id="examples")

    def on_mount(self) -> None:
        self.query_one("#examples").focus()

    @on(OptionList.OptionSelected, "#examples")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(EXAMPLE_QUESTIONS[event.option_index])


class NoteScreen(Dialog):
    """One source note, readable in full; escape goes back."""

    def __init__(self, title: str, markdown: str) -> None:
        super().__init__()
        self.note_title = title
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog note"):
            yield MarkdownViewer(self.markdown, show_table_of_contents=False, open_links=False)
            yield Label("escape: back", classes="dim")


class AnswerScreen(Dialog):
    """One answer whole and wide: its tables with every column, scrolled sideways as needed."""

    def __init__(self, question: str, markdown: str) -> None:
        super().__init__()
        self.question = question
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog answer"):
            yield Label(Text(self.question), classes="answer-question")
            with ScrollableContainer(id="answer-scroll", can_focus=True):
                whole = Static(RichMarkdown(self.markdown, hyperlinks=False), id="answer-whole")
                whole.styles.min_width = widest_table(self.markdown)  # no column cut
                yield whole
            yield Label("left/right/up/down: scroll · escape: back", classes="dim")


def default_report_path(directory: Path, session_name: str | None, today: str) -> Path:
    """Where a report goes unless the person says otherwise: named after the session and date."""
    slug = "".join(c if c.isalnum() else "-" for c in (session_name or "session").lower())
    slug = "-".join(part for part in slug.split("-") if part)[:40] or "session"
    return directory / f"clusterplan-{slug}-{today}.md"
