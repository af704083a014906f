"""The terminal app driven as a person would: keys in, widgets and messages checked."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import DataTable, Input, MarkdownViewer, TabbedContent
from textual.worker import WorkerFailed

from clusterplan.assistant.sessions.session import Assistant
from clusterplan.db.active import open_store, use_store
from clusterplan.knowledge.notes import shipped_notes
from clusterplan.tui.app import ClusterplanApp
from clusterplan.tui.chat import Chat, QuestionInput
from clusterplan.tui.chat_entries import Choices, Question, Reply
from clusterplan.tui.memory_chart import MemoryChart
from clusterplan.tui.messages import ReportWritten, SessionLoaded
from clusterplan.tui.pending import PendingAssistant
from clusterplan.tui.plan_panel import PlanPanel
from clusterplan.tui.screens import ExportScreen, HelpScreen, NoteScreen, OpenSessionScreen
from clusterplan.tui.sources_panel import SourcesPanel
from clusterplan.tui.trace_panel import TracePanel
from tests.conftest import ask, settle

SIZE = (100, 32)
CONCEPT = "Why shouldn't tensor parallelism cross the node boundary?"
FIT = "Does a 70B model fit for full fine-tuning on one 8xH100 node?"


@pytest.fixture
def assistant() -> Assistant:
    """The real assistant on a store in the test's own data directory (a file: workers are
    threads, and an in-memory SQLite connection belongs to the thread that made it)."""
    store = open_store()
    use_store(store)
    return Assistant(store)


@pytest.fixture
def messages() -> list[Message]:
    return []


def seen(messages: list[Message], kind: type) -> list:
    """Messages of `kind`, once each (the hook sees a message at every node it bubbles to)."""
    return list({id(m): m for m in messages if isinstance(m, kind)}.values())


def answers(messages: list[Message]) -> list:
    return [m.answer for m in seen(messages, Chat.AnswerReady)]


async def test_a_question_gets_its_answer_trace_and_sources(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await ask(app, pilot, CONCEPT, typed=True)
        asked = [m.text for m in seen(messages, Chat.QuestionAsked)]
        assert asked == [CONCEPT]
        [answer] = answers(messages)
        assert answer.question == CONCEPT and answer.error is None

        replies = [r for r in app.query(Reply) if not r.has_class("welcome")]
        assert [r.source for r in replies] == [answer.markdown]
        assert [q.source for q in app.query(Question)] == [CONCEPT]

        tree = app.query_one(TracePanel)
        assert [node.data for node in tree.root.children] == answer.trace
        assert len(answer.trace) >= 2, "a concept answer shows its parse and its search"

        sources = app.query_one(SourcesPanel)
        assert sources.refs == answer.citations and sources.option_count == len(answer.citations)
        assert app.query_one(QuestionInput).value == "", "the box is cleared for the next one"
        plan = app.query_one(PlanPanel)
        assert plan.query_one("#plan-empty").display, "a concept answer has no plan to show"
        assert not plan.query_one("#layouts").display


async def test_expanding_a_step_shows_its_formula_inputs_result_and_notes(assistant):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE) as pilot:
        await ask(app, pilot, CONCEPT)
        tree = app.query_one(TracePanel)
        tree.focus()
        search = next(i for i, n in enumerate(tree.root.children) if n.data.notes)
        tree.cursor_line = search
        await pilot.press("enter")  # enter toggles the step open
        await settle(app, pilot)
        node = tree.root.children[search]
        assert node.is_expanded
        shown = [str(child.label) for child in node.children]
        step = node.data
        assert f"formula: {step.formula}" in shown
        assert f"result: {step.result}" in shown
        assert f"notes: {', '.join(step.notes)}" in shown
        inputs = next(c for c in node.children if str(c.label) == "inputs")
        assert [str(c.label) for c in inputs.children] == [
            f"{name}: {value}" for name, value in step.inputs.items()]


async def test_enter_on_a_source_opens_its_note(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await ask(app, pilot, CONCEPT)
        app.query_one(TabbedContent).active = "sources-tab"
        sources = app.query_one(SourcesPanel)
        sources.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        chosen = [m.ref for m in seen(messages, SourcesPanel.NoteChosen)]
        assert chosen == [answers(messages)[0].citations[0]]
        assert isinstance(app.screen, NoteScreen)
        note = shipped_notes().notes[chosen[0].id]
        assert note.title in app.screen.markdown and note.address in app.screen.markdown
        assert app.screen.query_one(MarkdownViewer).document.source == app.screen.markdown
        await pilot.press("escape")
        assert not isinstance(app.screen, NoteScreen)


async def test_choosing_a_clarification_choice_answers_it(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await ask(app, pilot, "How much memory?")
        [first] = answers(messages)
        assert first.clarification is not None and "model" in first.clarification.missing
        choices = app.query_one(Choices)
        assert [str(o.prompt) for o in choices.options] == first.clarification.choices
        choices.focus()
        await pilot.press("down", "enter")  # the second choice
        await settle(app, pilot)
        picked = first.clarification.choices[1]
        asked = [m.text for m in seen(messages, Chat.QuestionAsked)]
        assert asked == ["How much memory?", picked]
        second = answers(messages)[1]
        assert second.question == picked
        assert second.intent is not None and second.intent.kind == first.intent.kind
        assert second.clarification is None or second.clarification.missing != ["model"]
        assert choices.disabled, "a clarification is answered once"


async def test_a_follow_up_changes_the_answer(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await ask(app, pilot, FIT)
        await ask(app, pilot, "and what about on H200?")
        first, second = answers(messages)
        assert first.intent is not None and second.intent is not None
        assert first.intent.slots.get("gpu") != second.intent.slots.get("gpu")
        assert "h200" in str(second.intent.slots.get("gpu")).lower()
        replies = [r.source for r in app.query(Reply) if not r.has_class("welcome")]
        assert replies == [first.markdown, second.markdown] and first.markdown != second.markdown
        tree = app.query_one(TracePanel)
        assert [n.data for n in tree.root.children] == second.trace


async def test_ctrl_e_writes_the_session_report(assistant, messages, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await ask(app, pilot, CONCEPT)
        await pilot.press("ctrl+e")
        assert isinstance(app.screen, ExportScreen)
        default = Path(app.screen.query_one("#export-path", Input).value)
        assert default.parent == tmp_path and default.suffix == ".md"
        await pilot.press("enter")
        await settle(app, pilot)
        [written] = [m.path for m in seen(messages, ReportWritten)]
        assert written == default
        told = [m.notification for m in seen(messages, Notify)]
        assert any(str(default) in n.message and n.severity == "information" for n in told), \
            "the app says where it wrote"
        assert default.read_text(encoding="utf-8") == assistant.report()
        assert CONCEPT in default.read_text(encoding="utf-8")


async def test_an_export_that_fails_is_a_notification_not_a_crash(assistant, messages, tmp_path):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.press("ctrl+e")
        field = app.screen.query_one("#export-path", Input)
        field.value = str(tmp_path)  # a directory: the file cannot be written there
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.is_running and not isinstance(app.screen, ExportScreen)
        told = [m.notification for m in seen(messages, Notify)]
        [told] = [n for n in told if n.severity == "error"]
        assert told.title == "Could not write the report" and "Error" in told.message


HOSTILE = [
    "[bold red]not markup[/] [/] [link=x]",
    "x'; DROP TABLE sessions; --",
    "# heading\n```\n| a | b |\n<script>alert(1)</script>",
    "\x00\x1b[31m\x07 control",
    "\U0001f680" * 500 + " 70 trillion GB/s of H100s",
    "/memory model=; workload=?? precision=",
    "a" * 20000,
]


async def test_hostile_input_does_not_crash(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        for hostile in HOSTILE:
            await app.query_one(Chat).ask(hostile)
            await settle(app, pilot)
        assert app.is_running
        got = answers(messages)
        assert len(got) == len(HOSTILE)
        assert all(a.markdown or a.clarification or a.error for a in got)
        assert not app.query(".-pending"), "every reply is filled, none left waiting"
        await ask(app, pilot, CONCEPT)
        assert answers(messages)[-1].error is None, "the app still answers afterwards"


async def test_new_session_then_open_the_old_one(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await ask(app, pilot, CONCEPT)
        first_session = assistant.session_id
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert assistant.session_id != first_session
        assert not app.query(Question), "a new session starts with an empty chat"
        assert app.query_one(TracePanel).root.children[0].data is None

        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert isinstance(app.screen, OpenSessionScreen)
        assert [s.id for s in app.screen.sessions] == [first_session]
        await pilot.press("enter")
        await settle(app, pilot)
        assert assistant.session_id == first_session
        assert [q.source for q in app.query(Question)] == [CONCEPT]
        loaded = seen(messages, SessionLoaded)
        assert [len(m.history) for m in loaded] == [0, 0, 1]


async def test_starting_in_a_saved_session_shows_its_conversation(assistant):
    assistant.ask(CONCEPT)
    resumed = Assistant(assistant.store, session=assistant.session_id)
    app = ClusterplanApp(resumed)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert [q.source for q in app.query(Question)] == [CONCEPT]
        assert [n.data for n in app.query_one(TracePanel).root.children] == \
            resumed.history()[-1].trace
        await pilot.press("up")
        assert app.query_one(QuestionInput).value == CONCEPT


async def test_up_and_down_walk_the_question_history(assistant):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE) as pilot:
        await ask(app, pilot, "first question")
        await ask(app, pilot, "second question")
        box = app.query_one(QuestionInput)
        await pilot.press("up")
        assert box.value == "second question"
        await pilot.press("up", "up")
        assert box.value == "first question"
        await pilot.press("down", "down")
        assert box.value == ""


async def test_model_and_gpu_names_are_suggested_as_you_type(assistant):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE) as pilot:
        box = app.query_one(QuestionInput)
        await pilot.press(*"serve llama-3-7")
        await settle(app, pilot)
        await pilot.press("right")  # right at the end takes the suggestion
        assert box.value == "serve llama-3-70b"
        await pilot.press(*" on h20")
        await settle(app, pilot)
        await pilot.press("right")
        assert box.value.startswith("serve llama-3-70b on h200")


async def test_ctrl_t_hides_and_shows_the_side_panel(assistant):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        side = app.query_one("#side")
        assert side.display, "wide terminals show the panel beside the chat"
        await pilot.press("ctrl+t")
        assert not side.display
        await pilot.press("ctrl+t")
        assert side.display


async def test_narrow_terminals_show_chat_or_panel_in_full(assistant):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        side, chat = app.query_one("#side"), app.query_one(Chat)
        assert chat.display and not side.display
        await pilot.press("ctrl+t")
        assert side.display and not chat.display
        assert side.region.width == 80


async def test_f1_help_asks_the_chosen_example(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("enter")
        await settle(app, pilot)
        from clusterplan.tui.examples import EXAMPLE_QUESTIONS

        asked = [m.text for m in seen(messages, Chat.QuestionAsked)]
        assert asked == [EXAMPLE_QUESTIONS[0]]
        assert len(answers(messages)) == 1


async def test_the_plan_tab_shows_memory_rejected_layouts_and_offers(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "plan-tab"
        await ask(app, pilot, "How much GPU memory do I need to serve Llama 3 70B in BF16?")
        plan = app.query_one(PlanPanel)
        [chart] = plan.query(MemoryChart)
        assert chart.breakdown == answers(messages)[-1].data["memory"]["breakdown_gb"]
        lines = chart.render_chart(60).plain.splitlines()
        # Llama 3 70B has 70.55e9 parameters (Meta's model card); at 2 bytes each in BF16
        # the weights are 70.55e9 x 2 = 141.1e9 bytes = 141.1 GB, written to three figures as
        # the answer and the report write it: 141 GB.
        assert any(line.startswith("weights") and line.endswith(" 141 GB") for line in lines)

        await ask(app, pilot, "How should I split a 70B model across 16 H100s in 2 nodes?")
        data = answers(messages)[-1].data["parallelism"]
        rejected = plan.query_one("#rejected", DataTable)
        assert rejected.display and rejected.row_count == len(data["rejected"])

        await ask(app, pilot, "What does an 8xH200 node cost per month on-demand?")
        offers = plan.query_one("#offers", DataTable)
        assert offers.display and offers.row_count >= 1
        keys = [c.key.value for c in offers.columns.values()]
        rows = [dict(zip(keys, map(str, offers.get_row_at(i)), strict=True))
                for i in range(offers.row_count)]
        # CoreWeave's 8xH200 node at $50.44 an hour (its price page, in the catalog's note):
        # 50.44 / 8 = $6.305 per GPU-hour, kept to the tenth of a cent, not rounded to cents
        assert {"provider": "coreweave", "usd_per_node_hour": "$50.44",
                "usd_per_gpu_hour": "$6.305"}.items() <= next(
            r for r in rows if r["usd_per_gpu_hour"] == "$6.305").items()
        assert not plan.query_one("#plan-empty").display


def table_rows(table: DataTable) -> list[dict[str, str]]:
    keys = [c.key.value for c in table.columns.values()]
    return [dict(zip(keys, map(str, table.get_row_at(i)), strict=True))
            for i in range(table.row_count)]


async def test_the_plan_tab_shows_the_commitment_comparison_and_the_budget_table(
        assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=(160, 40), message_hook=messages.append) as pilot:
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "plan-tab"
        plan = app.query_one(PlanPanel)
        assert not plan.query_one("#commitments").display, "nothing to compare yet"
        await ask(app, pilot, "What's cheaper for 3 months of 64 H100: on-demand or reserved?")
        table = plan.query_one("#commitments", DataTable)
        assert table.display and plan.query_one("#commitments-heading").display
        rows = {r["option"]: r for r in table_rows(table)}
        # On demand, CoreWeave's HGX H100 node at $49.24 an hour is $6.155 a GPU-hour (note
        # coreweave-pricing-2026-09); 3 months = 3 x 730 = 2,190 h; 64 x 2,190 x 6.155 =
        # $862,684.80.
        assert rows["on-demand"]["cost_usd"] == "862,685"
        # A p5.48xlarge Capacity Block at $39.33 / 8 = $4.91625 a GPU-hour is sold in 7-day
        # steps past 14 days (aws-capacity-blocks-2024#terms): 2,190 h = 91.25 days, billed
        # as 14 weeks = 2,352 h; 64 x 2,352 x 4.91625 = $740,033.28, the cheapest.
        block = rows["capacity block"]
        assert (block["cost_usd"], block["billed_hours"]) == ("740,033", "2,352")
        assert next(iter(rows)) == "capacity block", "cheapest first"
        # A 1-year term bills 8,760 h for a 2,190-h job: 6,570 h unused.
        assert rows["1-year"]["unused_hours"] == "6,570"
        assert not plan.query_one("#budget").display

        await ask(app, pilot, "I have $50k, what's the biggest model I can fine-tune?")
        data = answers(messages)[-1].data["plan"]["affordable"]
        budget = plan.query_one("#budget", DataTable)
        assert budget.display and not plan.query_one("#commitments").display
        shown = table_rows(budget)
        # one row per method and data size: 3 methods x 3 sizes (Alpaca-sized, 1B, 10B)
        assert len(shown) == len(data) == 9
        assert [(r["method"], r["model"]) for r in shown] == \
            [(d["workload"], d["model"]) for d in data]


async def test_the_command_palette_lists_the_tools_and_the_example_questions(assistant):
    from clusterplan.tools.registry import tools
    from clusterplan.tui.examples import EXAMPLE_QUESTIONS
    from clusterplan.tui.palette import ToolsAndExamples

    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE) as pilot:
        provider = ToolsAndExamples(app.screen)
        await provider.startup()
        listed = [hit.text async for hit in provider.discover()]
        assert listed == [f"/{name}" for name in tools()] + list(EXAMPLE_QUESTIONS)
        [convert] = [hit async for hit in provider.search("convert 400")]
        assert convert.text == "Convert 400 Gb/s to GB/s"
        [memory] = [hit async for hit in provider.search("/memory") if hit.text == "/memory"]
        memory.command()
        await settle(app, pilot)
        assert app.query_one(QuestionInput).value == "/memory "


def test_the_app_follows_a_light_terminal(assistant):
    assert ClusterplanApp(assistant, environ={"COLORFGBG": "0;15"}).theme == "textual-light"
    assert ClusterplanApp(assistant, environ={"COLORFGBG": "15;0"}).theme == "textual-dark"
    assert ClusterplanApp(assistant, environ={"CLUSTERPLAN_THEME": "no-such"}).theme == \
        "textual-dark"


def held_back(assistant: Assistant) -> tuple[threading.Event, object]:
    """A way to build `assistant` that waits until the returned event is set: the app's
    first screen is up and taking keys long before (as `clusterplan` starts it)."""
    may_build = threading.Event()

    def build() -> Assistant:
        assert may_build.wait(30), "the test never let the assistant be built"
        return assistant

    return may_build, build


async def test_questions_asked_before_the_assistant_is_built_wait_and_keep_their_order(
        assistant, messages):
    may_build, build = held_back(assistant)
    app = ClusterplanApp(build)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.press(*"first question", "enter")
        await pilot.press(*"second question", "enter")
        await pilot.pause()
        assert app.focused is app.query_one(QuestionInput), "the box is up and took the keys"
        assert [q.source for q in app.query(Question)] == ["first question", "second question"]
        assert len(app.query(".-pending")) == 2 and not answers(messages), "nothing lost, yet"
        may_build.set()
        await settle(app, pilot)
        assert [a.question for a in answers(messages)] == ["first question", "second question"]
        replies = [r.source for r in app.query(Reply) if not r.has_class("welcome")]
        assert replies == [a.markdown for a in answers(messages)] and not app.query(".-pending")
        assert [s.history for s in seen(messages, SessionLoaded)] == [[]]
        await pilot.press("up")
        assert app.query_one(QuestionInput).value == "second question"


async def test_names_typed_before_the_catalog_is_open_are_completed_once_it_is(assistant):
    may_build, build = held_back(assistant)
    app = ClusterplanApp(build)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"serve llama-3-7")
        may_build.set()
        await settle(app, pilot)
        await pilot.press("right")
        assert app.query_one(QuestionInput).value == "serve llama-3-70b"


async def test_what_opening_the_store_changed_is_told_once_the_app_is_up(assistant, messages):
    assistant.store.notices = ["old.db was not a clusterplan store; moved it aside"]
    app = ClusterplanApp(lambda: assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await settle(app, pilot)
        told = [m.notification for m in seen(messages, Notify)]
        assert [(n.message, n.severity) for n in told] == [
            ("old.db was not a clusterplan store; moved it aside", "warning")]


async def test_quitting_while_the_assistant_is_built_leaves_no_thread_waiting_for_it(
        assistant):
    may_build, build = held_back(assistant)
    app = ClusterplanApp(build)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hi", "enter")
        await pilot.pause()
        await pilot.press("ctrl+q")
    may_build.set()
    # every worker thread ends: a process would otherwise never exit after its app closed
    await asyncio.wait_for(asyncio.get_running_loop().shutdown_default_executor(), 10)


async def test_an_assistant_that_cannot_be_built_ends_the_app_with_status_1():
    def build() -> Assistant:
        raise RuntimeError("no store here")

    app = ClusterplanApp(build)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # the start worker fails, as it should: waiting on it while it runs re-raises that
        with contextlib.suppress(WorkerFailed):
            await app.workers.wait_for_complete()
        await pilot.pause()
    assert app.return_code == 1


@pytest.mark.slow
def test_bare_clusterplan_on_a_store_that_cannot_open_says_why_and_exits_1(tmp_path):
    missing = tmp_path / "no-such-dir" / "plan.db"
    done = subprocess.run([sys.executable, "-m", "clusterplan", "--db", str(missing), "ui"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith(
        f"Error: the directory for the store does not exist: {missing.parent}")
    assert "Traceback" not in done.stderr



@pytest.mark.slow
def test_clusterplan_with_no_arguments_reads_the_store_from_the_environment(tmp_path):
    # No arguments: the app starts without the command-line parser, so CLUSTERPLAN_DB is read
    # by the launcher itself; a store that cannot open is reported as every command does.
    import os

    missing = tmp_path / "nowhere" / "plan.db"
    env = {**os.environ, "CLUSTERPLAN_DB": str(missing)}
    done = subprocess.run([sys.executable, "-m", "clusterplan"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith(
        f"Error: the directory for the store does not exist: {missing.parent}")
    assert "Traceback" not in done.stderr

def test_a_pending_assistant_is_waited_for_until_built(assistant):
    pending = PendingAssistant(lambda: assistant)
    assert pending.to_build and pending.now is None
    got: list[Assistant] = []
    waiter = threading.Thread(target=lambda: got.append(pending.get()))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive() and not got, "it waits while the assistant is not built"
    assert pending.build() is assistant
    waiter.join(10)
    assert got == [assistant] and pending.now is assistant and not pending.to_build


def test_a_pending_assistant_given_ready_made_needs_no_building(assistant):
    pending = PendingAssistant(assistant)
    assert not pending.to_build and pending.get() is assistant


def test_a_pending_assistant_that_fails_or_is_given_up_releases_its_waiters():
    def broken() -> Assistant:
        raise OSError("disk gone")

    failing = PendingAssistant(broken)
    with pytest.raises(OSError, match="disk gone"):
        failing.build()
    with pytest.raises(RuntimeError, match="could not be started"):
        failing.get()

    abandoned = PendingAssistant(broken)
    abandoned.give_up()
    assert not abandoned.to_build
    with pytest.raises(RuntimeError, match="could not be started"):
        abandoned.get()


async def test_keys_typed_right_after_enter_go_into_the_next_question_exactly(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        app.query_one(QuestionInput).focus()
        # no waits: the second question is typed while the first is being answered
        await pilot.press(*"Convert 100 Gb/s to GB/s", "enter", *"abc", "backspace",
                          *"Convert 400 Gb/s to GB/s", "enter")
        await settle(app, pilot)
        asked = [m.text for m in seen(messages, Chat.QuestionAsked)]
        assert asked == ["Convert 100 Gb/s to GB/s", "abConvert 400 Gb/s to GB/s"]
        assert [q.source for q in app.query(Question)] == asked


async def test_tab_reaches_the_choices_and_enter_answers_with_one(assistant, messages):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await ask(app, pilot, "How much memory do I need?")
        [choices] = app.query(Choices)
        await pilot.press("tab")
        assert app.focused is choices
        await pilot.press("down", "enter")
        await settle(app, pilot)
        asked = [m.text for m in seen(messages, Chat.QuestionAsked)]
        assert asked[-1] == str(choices.get_option_at_index(1).prompt)


@pytest.mark.parametrize("typed", ["export the report", "Save this session report"])
async def test_asking_for_the_report_in_words_opens_the_export_as_ctrl_e_does(assistant, messages,
                                                                              typed):
    app = ClusterplanApp(assistant)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await ask(app, pilot, CONCEPT)
        box = app.query_one("#question", Input)
        box.value = typed
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        assert len(answers(messages)) == 1  # not sent to the assistant as a question
