"""The clusterplan app: a chat with the assistant beside the trace, sources and plan of each answer.

Thin by design: it lays out the widgets, binds the keys, runs the assistant's work in thread
workers and hands each result to the widget that shows it. Given a way to build the assistant
rather than the assistant, it shows the question box first and builds it in a worker; a
question asked meanwhile waits for it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib
import os
import queue
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Header
from textual.worker import Worker, WorkerState

from clusterplan import locations
from clusterplan.tui.chat import Chat
from clusterplan.tui.completion import catalog_names
from clusterplan.tui.messages import NoteLoaded, ReportWritten, SessionLoaded, SessionsListed
from clusterplan.tui.palette import ToolsAndExamples
from clusterplan.tui.pending import PendingAssistant
from clusterplan.tui.screens import (
    AnswerScreen,
    ExportScreen,
    HelpScreen,
    NoteScreen,
    OpenSessionScreen,
    RenameScreen,
    default_report_path,
)
from clusterplan.tui.side_panel import SidePanel
from clusterplan.tui.sources_panel import read_note
from clusterplan.tui.theme import DARK, terminal_theme

if TYPE_CHECKING:  # the core loads behind the first screen, not before it
    from clusterplan.assistant.answer import Answer, NoteRef
    from clusterplan.assistant.sessions.session import Assistant
    from clusterplan.tui.chat_entries import EarlierAnswers
    from clusterplan.tui.side_panel import SidePanel
    from clusterplan.tui.sources_panel import SourcesPanel
    from clusterplan.tui.tool_tables import ToolTable

FAILED_WORK = {  # worker name -> what a person is told when it fails
    "answer": "Could not answer",
    "load_session": "Could not open the session",
    "list_sessions": "Could not list the saved sessions",
    "export_report": "Could not write the report",
    "open_note": "Could not open the note",
    "rename_session": "Could not rename the session",
}
# what the first screen does without; loaded just after it is drawn
AFTER_FIRST_SCREEN = ("clusterplan.tui.chat_entries", "clusterplan.tui.side_panel")
HEADER_OTHER_CELLS = 30  # the header's icon, title, separator and margins
WIDE_FROM = 100  # columns from which the side panel is shown beside the chat, not instead
APP_KEYS = {"export", "new_session", "open_session", "toggle_side", "help", "copy_answer",
            "rename_session", "choices", "whole_answer"}


def header_name(name: str, width: int) -> str:
    """The session's name cut to whole words that fit the header beside the title and icons,
    so a word (a size, a count) is never cut: 'Serve Llama 3 70B …', not 'Serve Llama 3 7…'."""
    room = max(width - HEADER_OTHER_CELLS, 10)
    if len(name) <= room:
        return name
    words, kept = name.split(), ""
    for word in words:
        if len(kept) + len(word) + 3 > room:
            break
        kept = f"{kept} {word}".strip()
    return f"{kept} …" if kept else name[: room - 2] + " …"


class ClusterplanApp(App[None]):
    """Ask about a GPU cluster; see the answer, the steps behind it and the notes it cites."""

    TITLE = "clusterplan"
    CSS_PATH = ["app.tcss", "chat.tcss", "panels.tcss", "screens.tcss"]
    COMMANDS = App.COMMANDS | {ToolsAndExamples}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_FROM, "-wide")]
    AUTO_FOCUS = "#question"
    BINDINGS = [
        # priority: the question box would otherwise take ctrl+e as "end of line"
        Binding("ctrl+e", "export", "Export", priority=True),
        Binding("ctrl+n", "new_session", "New"),
        Binding("ctrl+o", "open_session", "Open"),
        Binding("ctrl+t", "toggle_side", "Panel"),
        Binding("ctrl+y", "copy_answer", "Copy"),
        Binding("ctrl+r", "rename_session", "Rename", show=False),
        Binding("f1", "help", "Help"),
        Binding("f2", "whole_answer", "Wide"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, assistant: Assistant | Callable[[], Assistant],
                 environ: dict[str, str] | None = None) -> None:
        super().__init__()
        self._pending = PendingAssistant(assistant)
        self._one_at_a_time = threading.Lock()  # the assistant keeps one conversation state
        self._questions: queue.Queue[str] = queue.Queue()  # asked, not yet taken, in order
        self.start_error: BaseException | None = None  # why the assistant could not be built
        self._side_answer: Answer | None = None  # what the side panel shows, once mounted
        self._side_shown: bool | None = None  # None: as the width decides (ctrl+t sets it)
        self._session_title = "new session"
        wanted = terminal_theme(os.environ if environ is None else environ)
        self.theme = wanted if wanted in self.available_themes else DARK

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield Chat(id="chat", names=self._catalog_names)
            # the side panel follows just after the first screen is drawn
        yield Footer(compact=True)  # every key fits in 80 columns

    def on_mount(self) -> None:
        ready = self._pending.now
        self.session_title = (ready and ready.session_name) or "new session"
        if ready is not None:
            self.load_session(None)
        self.call_after_refresh(self.finish_start)  # once the question box is on screen

    def on_unmount(self) -> None:
        # Quit before the assistant was built: workers waiting for it stop waiting (and fail),
        # else the process would wait for their threads forever.
        self._pending.give_up()

    @property
    def assistant(self) -> Assistant:
        """The assistant; a worker that asks for it before it is built waits here."""
        return self._pending.get()

    def _catalog_names(self) -> list[str]:
        """Model and GPU names of the assistant's catalog, once it is open (off the event loop)."""

        self.assistant  # noqa: B018 - waits until the store is open and in use
        return catalog_names()

    @property
    def chat(self) -> Chat:
        return self.query_one(Chat)

    async def ask(self, text: str) -> None:
        """Ask `text` as if typed (help and the command palette use this)."""
        await self.chat.ask(text)

    def start_slash_command(self, tool: str) -> None:
        """Put `/tool ` in the question box for the person to finish."""
        box = self.chat.question_input
        box.value = f"/{tool} "
        box.cursor_position = len(box.value)
        box.focus()

    # Workers: they call the assistant, never a widget, and post what they found.

    @work(exit_on_error=False, group="start")
    async def finish_start(self) -> None:
        """Load and show what the question box came without: welcome, side panel, assistant."""
        # One thread of its own loads them one at a time, so keys typed meanwhile keep the
        # event loop; not a pool thread, as those may all be waiting for the assistant.
        loop = asyncio.get_running_loop()
        own = ThreadPoolExecutor(1, thread_name_prefix="start")
        try:
            for module in AFTER_FIRST_SCREEN:
                await loop.run_in_executor(own, importlib.import_module, module)
            await self.chat.welcome()
            await self._mount_side_panel()
            if self._pending.to_build:
                await loop.run_in_executor(own, self._build_assistant)
        finally:
            own.shutdown(wait=False)  # quitting meanwhile: the event loop does not wait for it
            self._pending.give_up()  # nothing waits forever, even if this failed

    async def _mount_side_panel(self) -> None:
        main = self.query_one("#main")
        if main.is_mounted:  # else the app is already closing
            await main.mount(SidePanel(id="side"))

    def _build_assistant(self) -> None:
        with self._one_at_a_time:  # holds back every other worker until the session is shown
            assistant = self._pending.build()
            self.post_message(self._session(assistant))
            for notice in assistant.store.notices:  # what opening the store changed
                self.notify(notice, title="Store", severity="warning", timeout=30, markup=False)

    @work(thread=True, exit_on_error=False, group="answer")
    def answer(self) -> None:
        assistant = self.assistant
        with self._one_at_a_time:  # each worker answers the oldest waiting question
            question = self._questions.get_nowait()
            self.post_message(Chat.AnswerReady(assistant.ask(question)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="session")
    def load_session(self, session_id: str | None, new: bool = False) -> None:
        assistant = self.assistant
        with self._one_at_a_time:
            if new:
                assistant.new_session()
            elif session_id is not None:
                assistant.open_session(session_id)
            loaded = self._session(assistant, replace=new or bool(session_id))
        self.post_message(loaded)

    @staticmethod
    def _session(assistant: Assistant, replace: bool = False) -> SessionLoaded:
        return SessionLoaded(assistant.session_name or "new session", assistant.history(),
                             replace=replace)

    @work(thread=True, exclusive=True, exit_on_error=False, group="session")
    def list_sessions(self) -> None:
        assistant = self.assistant
        with self._one_at_a_time:
            self.post_message(SessionsListed(assistant.sessions()))

    @work(thread=True, exclusive=True, exit_on_error=False, group="export")
    def export_report(self, path: Path) -> None:
        assistant = self.assistant
        with self._one_at_a_time:
            report = assistant.report()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report, encoding="utf-8")
        self.post_message(ReportWritten(path))

    @work(thread=True, exclusive=True, exit_on_error=False, group="note")
    def open_note(self, ref: NoteRef) -> None:
        self.post_message(NoteLoaded(*read_note(ref)))

    # Handlers: what each finished piece of work changes on screen.

    @on(Chat.QuestionAsked)
    def _question_asked(self, event: Chat.QuestionAsked) -> None:
        self._questions.put(event.text)
        self.answer()

    @on(Chat.AnswerReady)
    async def _answer_ready(self, event: Chat.AnswerReady) -> None:
        await self.chat.show_answer(event.answer)
        await self._show_side(event.answer)
        ready = self._pending.now
        if ready is not None and ready.session_name:  # named after its first question
            self.session_title = ready.session_name
        if event.answer.error:
            self.notify(event.answer.error, title="Could not answer", severity="warning",
                        markup=False)

    async def _show_side(self, answer: Answer | None) -> None:
        self._side_answer = answer
        side = self.query("SidePanel")
        panel: SidePanel | None = side.first() if side else None
        if panel is not None and panel.ready:  # else it shows this answer once it is mounted
            await panel.show(answer)

    # named, not @on(...): the panel's module loads after the first screen
    async def on_side_panel_mounted(self, event: SidePanel.Mounted) -> None:
        panel: SidePanel = self.query_one("SidePanel")
        await panel.show(self._side_answer)

    @on(SessionLoaded)
    async def _session_loaded(self, event: SessionLoaded) -> None:
        self.session_title = event.name
        asked_meanwhile = not event.replace and self.chat.asked
        await self.chat.load(event.history, replace=event.replace)
        if not asked_meanwhile:
            await self._show_side(event.history[-1] if event.history else None)

    @on(SessionsListed)
    def _sessions_listed(self, event: SessionsListed) -> None:
        def chosen(session_id: str | None) -> None:
            if session_id:
                self.load_session(session_id)

        self.push_screen(OpenSessionScreen(event.sessions), chosen)

    @on(ReportWritten)
    def _report_written(self, event: ReportWritten) -> None:
        self.notify(f"Wrote the report to {event.path}", title="Exported", markup=False)

    def on_sources_panel_note_chosen(self, event: SourcesPanel.NoteChosen) -> None:
        self.open_note(event.ref)

    @on(NoteLoaded)
    def _note_loaded(self, event: NoteLoaded) -> None:
        self.push_screen(NoteScreen(event.title, event.markdown))

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        error = event.worker.error
        if event.state != WorkerState.ERROR or error is None:
            return
        if event.worker.name == "finish_start":  # nothing works without it: leave
            self.start_error = error  # for the caller to report as the command line does
            self.exit(return_code=1)
            return
        title = FAILED_WORK.get(event.worker.name, f"{event.worker.name} failed")
        self.notify(f"{type(error).__name__}: {error}", title=title, severity="error",
                    markup=False)
        if event.worker.name == "answer":  # free the reply that waits for it
            # lazy: the assistant's models (pydantic) stay out of the first screen
            from clusterplan.assistant.answer import Answer

            failed = Answer(question="", markdown="", error=str(error))
            self.post_message(Chat.AnswerReady(failed))

    # Actions: the keys.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The app's keys wait while a dialog is open (it has keys of its own)."""
        if action in APP_KEYS and isinstance(self.screen, ModalScreen):
            return False
        return True

    def action_export(self) -> None:
        today = dt.date.today().isoformat()
        ready = self._pending.now  # never wait on the event loop
        name = ready.session_name if ready else None
        default = default_report_path(locations.reports_dir(), name, today)

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.export_report(path)

        self.push_screen(ExportScreen(default), chosen)

    def action_new_session(self) -> None:
        self.load_session(None, new=True)

    def action_open_session(self) -> None:
        self.list_sessions()

    def action_help(self) -> None:
        async def chosen(question: str | None) -> None:
            if question:
                await self.ask(question)

        self.push_screen(HelpScreen(), chosen)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette (ctrl+p) offers the app's own actions before Textual's."""
        yield SystemCommand("Export the report", "Write this session as Markdown (ctrl+e)",
                            self.action_export)
        yield SystemCommand("New session", "Start an empty session (ctrl+n)",
                            self.action_new_session)
        yield SystemCommand("Open a session", "Reopen a saved session (ctrl+o)",
                            self.action_open_session)
        yield SystemCommand("Rename the session", "Give this session a name (ctrl+r)",
                            self.action_rename_session)
        yield SystemCommand("Toggle the side panel", "Trace, Sources, Plan (ctrl+t)",
                            self.action_toggle_side)
        yield SystemCommand("Copy the last answer", "Its Markdown, to the clipboard (ctrl+y)",
                            self.action_copy_answer)
        yield SystemCommand("Show the whole answer", "The last answer, every table column (F2)",
                            self.action_whole_answer)
        yield SystemCommand("Help", "Keys and example questions (F1)", self.action_help)
        yield from super().get_system_commands(screen)  # theme, keys, screenshot, quit

    def action_copy_answer(self) -> None:
        answer = self._side_answer
        if answer is None or not answer.markdown.strip():
            self.notify("No answer to copy yet.", title="Copy", severity="warning")
            return
        self.copy_to_clipboard(answer.markdown)
        self.notify("Copied the last answer (Markdown) to the clipboard.", title="Copied")

    def action_whole_answer(self) -> None:
        answer = self._side_answer
        if answer is None or not answer.markdown.strip():
            self.notify("No answer to show yet.", title="Whole answer", severity="warning")
            return
        self._open_answer(answer.question, answer.markdown)

    def on_tool_table_row_opened(self, event: ToolTable.RowOpened) -> None:
        fields = "\n".join(f"- **{name}**: {value}" for name, value in event.fields)
        self.push_screen(NoteScreen(event.title, f"# {event.title}\n\n{fields}"))

    def on_earlier_answers_opened(self, event: EarlierAnswers.Opened) -> None:
        self._open_answer(event.question, event.markdown)

    def _open_answer(self, question: str, markdown: str) -> None:
        self.push_screen(AnswerScreen(question, markdown))

    def action_rename_session(self) -> None:
        def chosen(name: str | None) -> None:
            if name:
                self.rename_session(name)

        self.push_screen(RenameScreen(self.session_title if self.session_title != "new session"
                                      else ""), chosen)

    @work(thread=True, exclusive=True, exit_on_error=False, group="session")
    def rename_session(self, name: str) -> None:
        assistant = self.assistant
        with self._one_at_a_time:
            assistant.rename_session(name)
        self.call_from_thread(setattr, self, "session_title", name)

    def action_toggle_side(self) -> None:
        sides = self.query("#side")
        if not sides:  # still being mounted, a moment after start
            return
        self._side_shown = not sides.first().display
        self._lay_out_side()
        if not self._side_shown:
            self.chat.question_input.focus()

    @property
    def session_title(self) -> str:
        """The session's name, whole (the header shows as much of it as fits)."""
        return self._session_title

    @session_title.setter
    def session_title(self, name: str) -> None:
        self._session_title = name
        self.sub_title = header_name(name, self.size.width)

    def on_resize(self) -> None:
        self._lay_out_side()  # a narrow screen gives a shown panel the whole width
        self.sub_title = header_name(self._session_title, self.size.width)

    def _lay_out_side(self) -> None:
        """Show or hide the panel through its own display (and the chat's, when the panel
        takes the whole width): a class on the screen would restyle every answer in the log."""
        sides = self.query("#side")
        if self._side_shown is None or not sides:  # as the width's stylesheet says
            return
        sides.first().display = self._side_shown
        self.chat.display = not (self._side_shown and self.size.width < WIDE_FROM)
