"""The chat: questions and answers as Markdown, clarifying choices, and the question box."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from clusterplan.tui.chat_entries import Choices, EarlierAnswers, Question, Reply
from clusterplan.tui.completion import CatalogSuggester, catalog_names

if TYPE_CHECKING:  # the core and Markdown load behind the first screen, not before it
    from clusterplan.assistant.answer import Answer

WELCOME = (
    "Ask how to size, lay out or pay for a GPU cluster, e.g. *Does a 70B model fit for full "
    "fine-tuning on one 8xH100 node?* Every answer shows its steps (Trace) and the notes "
    "behind it (Sources). **F1** help · **ctrl+p** commands."
)
WORKING = "_Working it out…_"
# Requests for the app itself typed in the question box, not questions for the assistant:
# each runs the action its key runs ("export the report" is ctrl+e).
APP_REQUESTS = (
    (re.compile(r"\s*(?:please\s+)?(?:export|save|write)\s+(?:the\s+|this\s+|my\s+)?"
                r"(?:session\s+|planning\s+)?report\b(?!.*\?)", re.IGNORECASE), "export"),
    (re.compile(r"\s*(?:start\s+)?(?:a\s+)?new\s+session\s*[.!]?\s*$", re.IGNORECASE),
     "new_session"),
    (re.compile(r"\s*open\s+(?:a\s+|an\s+old\s+)?session\s*[.!]?\s*$", re.IGNORECASE),
     "open_session"),
)
SHOWN_QUESTION_CHARS = 2000  # a pasted essay is answered whole but echoed shortened
OPEN_REPLIES = 3  # answers shown whole; older ones become a line of the earlier answers


def reply_markdown(answer: Answer) -> str:
    """What the chat shows for an answer: its Markdown, else its question back, else its error."""
    if answer.markdown.strip():
        return answer.markdown
    if answer.clarification is not None:
        return answer.clarification.question
    return f"**Could not answer:** {answer.error or 'no answer'}"


def shown_question(text: str) -> str:
    """The question as echoed in the log, shortened when it is very long."""
    if len(text) <= SHOWN_QUESTION_CHARS:
        return text
    return text[:SHOWN_QUESTION_CHARS] + f"… ({len(text):,} characters)"


class QuestionInput(Input):
    """The question box: up and down walk through the questions asked before."""

    BINDINGS = [
        Binding("up", "older", "Older question", show=False),
        Binding("down", "newer", "Newer question", show=False),
        Binding("tab", "to_choices", "Choices", show=False),
    ]

    def action_to_choices(self) -> None:
        """Tab goes to the open choices of a question asked back, if any; else on as usual."""

        open_choices = [c for c in self.screen.query(Choices) if not c.disabled]
        if open_choices:
            open_choices[-1].focus()
        else:
            self.screen.focus_next()

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.history: list[str] = []
        self._position = 0  # len(history) means "the line being typed"

    def remember(self, text: str) -> None:
        """Add a question to the history (once, if repeated) and go back to a blank line."""
        if not self.history or self.history[-1] != text:
            self.history.append(text)
        self._position = len(self.history)

    def recall(self, questions: list[str]) -> None:
        """Put a saved session's questions before the ones asked here."""
        self.history[:0] = questions
        self._position = len(self.history)

    def action_older(self) -> None:
        if self._position > 0:
            self._position -= 1
            self._show(self.history[self._position])

    def action_newer(self) -> None:
        if self._position < len(self.history):
            self._position += 1
            self._show(self.history[self._position] if self._position < len(self.history) else "")

    async def action_submit(self) -> None:
        """Send the question and empty the box at once, in the box's own turn: keys typed
        right after enter land in the next question, never in (or cleared with) this one."""
        self.post_message(self.Submitted(self, self.value))
        self.clear()

    def _show(self, text: str) -> None:
        self.value = text
        self.cursor_position = len(text)


class Chat(Vertical):
    """The conversation log over the question box."""

    @dataclass
    class QuestionAsked(Message):
        """The person asked something (typed, picked from choices, or chosen in help)."""

        text: str

    @dataclass
    class AnswerReady(Message):
        """The assistant answered a question."""

        answer: Answer

    def __init__(self, names: Callable[[], list[str]] = catalog_names, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._pending: deque[tuple[Question, Reply]] = deque()
        self._names = names  # what the question box completes, read once when first needed

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="chat-log")  # the welcome comes just after the first screen
        yield QuestionInput(
            placeholder="Ask about memory, layouts, links or prices… (F1 help)",
            suggester=CatalogSuggester(self._names),
            id="question",
        )

    async def welcome(self) -> None:
        """Greet at the top of the log (the app calls this once Markdown has loaded)."""

        log = self.log_view
        if log.is_mounted:  # else the app is already closing
            first = 0 if log.children else None
            await log.mount_all([Reply(WELCOME, classes="welcome"), EarlierAnswers(id="earlier")],
                                before=first)

    @property
    def log_view(self) -> VerticalScroll:
        return self.query_one("#chat-log", VerticalScroll)

    @property
    def question_input(self) -> QuestionInput:
        return self.query_one(QuestionInput)

    async def ask(self, text: str) -> None:
        """Show the question with a placeholder reply, and announce it to the app."""

        self.question_input.remember(text)
        question, reply = Question(shown_question(text)), Reply(WORKING, classes="-pending")
        self._pending.append((question, reply))
        await self.log_view.mount_all([question, reply])
        self.log_view.anchor()
        self.post_message(self.QuestionAsked(text))

    async def show_answer(self, answer: Answer) -> None:
        """Fill the oldest waiting reply with `answer`, with its choices if it asks back."""

        if self._pending:
            question, reply = self._pending.popleft()
        else:  # its question was cleared away by a session change
            question, reply = Question(shown_question(answer.question)), Reply()
            await self.log_view.mount_all([question, reply])
        reply.remove_class("-pending")
        reply.set_class(bool(answer.error), "-error")
        reply.update(reply_markdown(answer))
        await self.move_old()
        clarification = answer.clarification
        if clarification is not None and clarification.choices:
            options = [Option(Content(choice)) for choice in clarification.choices]
            await self.log_view.mount(Choices(*options), after=reply)
        self.call_after_refresh(self._show_from, question)

    def _show_from(self, question: Question) -> None:
        """Show a long answer from its question down: the direct reply comes first."""
        log = self.log_view
        top = question.virtual_region.y - question.styles.margin.top
        if 0 <= top < log.max_scroll_y:  # otherwise the anchored end already shows it all
            log.anchor(False)
            log.scroll_to(y=top, animate=False, force=True)

    @property
    def asked(self) -> bool:
        """Whether the log holds any question (asked or loaded)."""
        earlier = self.earlier
        return bool(self.log_view.query("Question")) or bool(earlier and earlier.entries)

    async def load(self, history: list[Answer], replace: bool = True) -> None:
        """Show a session's questions and answers: instead of the log, or before what is in it.
        Only the last few become entries; the rest are lines of the earlier answers."""

        if replace:
            await self.clear()
        self.question_input.recall([answer.question for answer in history])
        older, recent = history[:-OPEN_REPLIES], history[-OPEN_REPLIES:]
        widgets: list[Question | Reply] = []
        for answer in recent:
            widgets += [Question(shown_question(answer.question)), Reply(reply_markdown(answer))]
        first = self.log_view.query_children("Question")
        if widgets:
            await self.log_view.mount_all(widgets, before=first.first() if first else None)
        if older:
            self._earlier_before(older)
        await self.move_old()
        self.log_view.anchor()

    def _earlier_before(self, older: list[Answer]) -> None:
        """List `older` before the earlier answers already listed (a session loaded late)."""
        earlier = self.earlier
        if earlier is None:
            return
        entries = [(a.question, reply_markdown(a)) for a in older] + earlier.entries
        earlier.clear_entries()
        earlier.add_entries(entries)

    @property
    def earlier(self) -> EarlierAnswers | None:
        """The list of earlier answers (None until the welcome is mounted)."""
        found = self.log_view.query_children("#earlier")
        return found.first(EarlierAnswers) if found else None

    async def move_old(self) -> None:
        """Every answered exchange but the last few becomes a line of the earlier answers,
        so the log holds the same few widgets however long the session."""

        earlier = self.earlier
        if earlier is None:  # not yet greeted: the welcome comes with the list
            return
        log = self.log_view
        entries = list(log.query_children("Question, Reply, Choices").exclude(".welcome"))
        answered = [i for i, w in enumerate(entries) if isinstance(w, Reply)
                    and not w.has_class("-pending")]
        if len(answered) <= OPEN_REPLIES:
            return
        cut = answered[-OPEN_REPLIES - 1] + 1  # everything up to the last reply that goes
        old = entries[:cut]
        pairs, question = [], ""
        for widget in old:
            if isinstance(widget, Question):
                question = widget.source
            elif isinstance(widget, Reply):
                pairs.append((question, widget.source))
        earlier.add_entries(pairs)
        await log.remove_children(old)

    async def clear(self) -> None:
        """Start an empty conversation: only the welcome stays."""
        self._pending.clear()
        await self.log_view.query("Question, Reply, Choices").exclude(".welcome").remove()
        if self.earlier is not None:
            self.earlier.clear_entries()

    @on(Input.Submitted, "#question")
    async def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()  # the box emptied itself when it sent this
        action = next((a for pattern, a in APP_REQUESTS if pattern.match(text)), None)
        if action:  # "export the report": the app's own key, typed in words
            self.question_input.remember(text)
            await self.app.run_action(action)
        elif text:
            await self.ask(text)

    @on(OptionList.OptionSelected, "Choices")
    async def _choice_picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        event.option_list.disabled = True  # a clarification is answered once
        self.question_input.focus()
        await self.ask(str(event.option.prompt))
