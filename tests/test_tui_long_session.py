"""The app over a long session: keys typed while an answer is computed keep their order, the
log keeps a few entries however many answers, and every table column can be seen."""

from __future__ import annotations

import threading

import pytest
from textual.message import Message

from clusterplan.assistant.sessions.session import Assistant
from clusterplan.db.active import open_store, use_store
from clusterplan.tui.app import ClusterplanApp
from clusterplan.tui.chat import OPEN_REPLIES, Chat, QuestionInput
from clusterplan.tui.chat_entries import EarlierAnswers, Question, Reply
from clusterplan.tui.fitted_tables import widest_table
from clusterplan.tui.screens import AnswerScreen, NoteScreen
from tests.conftest import ask, settle

SIZE = (100, 32)
CONVERT = "Convert 100 Gb/s to GB/s"


class SlowAssistant(Assistant):
    """The real assistant, holding its first answer until the test lets it go: keys are
    typed while that answer is being computed, not after it."""

    def __init__(self, store) -> None:
        super().__init__(store)
        self.release = threading.Event()
        self.started = threading.Event()
        self.received: list[str] = []

    def ask(self, question: str):
        self.received.append(question)
        self.started.set()
        assert self.release.wait(60), "the test never released the first answer"
        return super().ask(question)


@pytest.fixture
def store():
    opened = open_store()
    use_store(opened)
    return opened


@pytest.fixture
def messages() -> list[Message]:
    return []


def asked(messages: list[Message]) -> list[str]:
    return [m.text for m in {id(m): m for m in messages
                             if isinstance(m, Chat.QuestionAsked)}.values()]


async def test_keys_typed_fast_while_an_answer_is_computed_make_exactly_the_next_questions(
        store, messages):
    assistant = SlowAssistant(store)
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        app.query_one(QuestionInput).focus()
        await pilot.press(*CONVERT, "enter")
        assert assistant.started.wait(30), "the first answer never started"
        # no waits: typed, corrected and sent while the first answer is still being computed
        await pilot.press(*"Convert 400 Gb/s to GBx", "backspace", *"/s", "enter",
                          *"what about FP8?", "left", "left", "left", "left", "delete", "f",
                          "enter")
        assert not assistant.release.is_set() and len(assistant.received) == 1
        assistant.release.set()
        await settle(app, pilot)
        wanted = [CONVERT, "Convert 400 Gb/s to GB/s", "what about fP8?"]
        assert asked(messages) == wanted
        assert assistant.received == wanted, "the assistant was asked exactly what was typed"
        assert [q.source for q in app.query(Question)] == wanted
        assert app.query_one(QuestionInput).value == ""


async def test_a_long_session_keeps_the_last_answers_whole_and_lists_the_rest(store, messages):
    app = ClusterplanApp(Assistant(store))
    questions = [f"Convert {n}00 Gb/s to GB/s" for n in range(1, 9)]
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        box = app.query_one(QuestionInput)
        for question in questions:
            box.focus()
            box.value = question
            await pilot.press("enter")
            await settle(app, pilot)
        replies = [r for r in app.query(Reply) if not r.has_class("welcome")]
        assert [q.source for q in app.query(Question)] == questions[-OPEN_REPLIES:]
        assert len(replies) == OPEN_REPLIES
        earlier = app.query_one(EarlierAnswers)
        assert [q for q, _ in earlier.entries] == questions[:-OPEN_REPLIES]
        # 100 Gb/s = 100 / 8 = 12.5 GB/s: the first answer, now a line of the list, opens whole
        earlier.focus()
        earlier.highlighted = 0
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, AnswerScreen)
        assert app.screen.question == questions[0] and "12.5" in app.screen.markdown


async def test_f2_shows_the_last_answer_with_every_table_column(store):
    app = ClusterplanApp(Assistant(store))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await ask(app, pilot, "What does an 8xH200 node cost per month on-demand?")
        await pilot.press("f2")
        await settle(app, pilot)
        assert isinstance(app.screen, AnswerScreen)
        whole = app.screen.query_one("#answer-whole")
        need = widest_table(app.screen.markdown)
        assert need > 80, "the offers table with every column is wider than the terminal"
        assert whole.size.width >= need, "so the wide view is as wide as it, and scrolls"
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, AnswerScreen)


async def test_enter_on_a_plan_tab_row_shows_every_field_of_it(store):
    app = ClusterplanApp(Assistant(store))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await ask(app, pilot, "What does an 8xH200 node cost per month on-demand?")
        offers = app.query_one("#offers")
        assert offers.display and offers.row_count >= 1
        offers.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, NoteScreen)
        shown = app.screen.markdown
        assert all(f"**{name}**" in shown for name in ("provider", "$/GPU-h", "verified"))
