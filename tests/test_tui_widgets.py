"""What the app's widgets compute from an answer: completions, chart bars, tables, note pages."""

from __future__ import annotations

from pathlib import Path

from clusterplan.assistant.answer import Answer, Clarification
from clusterplan.tools.contract import NoteRef, Step, q
from clusterplan.tools.registry import invoke
from clusterplan.tui.chat import SHOWN_QUESTION_CHARS, reply_markdown, shown_question
from clusterplan.tui.completion import catalog_names, complete
from clusterplan.tui.memory_chart import bar, chart_lines, chart_title, limit_gb
from clusterplan.tui.plan_panel import cell, plan_view, table_columns
from clusterplan.tui.screens import default_report_path
from clusterplan.tui.sources_panel import DISPUTED, note_markdown, read_note, source_prompt
from clusterplan.tui.theme import DARK, LIGHT, terminal_theme
from clusterplan.tui.trace_panel import step_label

NAMES = ["h100-sxm", "h200-sxm", "llama-3-70b", "Llama 3 70B", "NVIDIA H100 SXM 80GB"]


def test_completion_finishes_the_name_being_typed_and_keeps_the_typed_case():
    assert complete("can I serve Llama 3 7", NAMES) == "can I serve Llama 3 70B"
    assert complete("fine-tune llama-3-7", NAMES) == "fine-tune llama-3-70b"
    assert complete("on H2", NAMES) == "on H200-sxm"


def test_completion_offers_nothing_for_one_letter_or_an_unknown_word():
    assert complete("on h", NAMES) is None
    assert complete("on zzz", NAMES) is None
    assert complete("", NAMES) is None
    assert complete("h100-sxm", NAMES) is None, "a finished name needs no suggestion"


def test_completion_names_come_from_the_catalog(memory_store):
    names = catalog_names()
    assert "llama-3-70b" in names and "h100-sxm" in names and "Llama 3 70B" in names


def test_a_bar_is_drawn_to_an_eighth_of_a_cell():
    assert bar(1.0, 10) == "█" * 10
    assert bar(0.5, 10) == "█" * 5
    # 0.3 of 10 cells = 3 cells and 0.0 left; 0.3125 of 10 = 3.125 cells = 3 full + 1/8
    assert bar(0.3, 10) == "███"
    assert bar(0.3125, 10) == "███▏"
    assert bar(2.0, 4) == "████" and bar(-1.0, 4) == ""


def test_memory_chart_scales_every_bar_to_the_gpu_memory():
    # 40 + 20 = 60 GB of an 80 GB GPU; the bar area is 32 - 12 - 10 - 2 = 8 cells wide.
    rows = chart_lines({"weights": 40.0, "optimizer": 20.0, "kv_cache": 0.0}, 32, 80.0)
    assert rows == [
        ("weights", "████", "40.0 GB"),      # 40 / 80 x 8 = 4 cells
        ("optimizer", "██", "20.0 GB"),      # 20 / 80 x 8 = 2 cells
        ("total", "██████", "60.0 GB"),      # 60 / 80 x 8 = 6 cells
        ("GPU memory", "████████", "80.0 GB"),
    ]


def test_memory_chart_of_a_job_bigger_than_the_gpu_scales_to_the_job():
    rows = chart_lines({"weights": 160.0}, 32, 80.0)
    # GB as the answer and the report write them: three significant figures
    assert rows[-2] == ("total", "████████", "160 GB")
    assert rows[-1] == ("GPU memory", "████", "80.0 GB")  # 80 / 160 x 8 = 4 cells


def test_chart_title_and_limit_say_whether_it_fits():
    result = {"per_gpu_gb": 70.6, "fits": True, "headroom_gb": 9.4, "gpu_memory_gb": 80.0}
    assert chart_title("memory", result) == ("memory: 70.6 GB per GPU", "fits: 9.40 GB free")
    short = {"gpu": "h100-sxm", "per_gpu_gb": 155.0, "fits": False, "headroom_gb": -75.0}
    assert chart_title("memory", short) == ("h100-sxm: 155 GB per GPU",
                                            "does not fit: 75.0 GB short")
    assert chart_title("memory", {"per_gpu_gb": 1.0}) == ("memory: 1.00 GB per GPU", "")
    assert limit_gb(result) == 80.0
    assert limit_gb({"per_gpu_gb": 70.0, "headroom_gb": 10.0}) == 80.0
    assert limit_gb({"per_gpu_gb": 70.0}) is None


def test_plan_view_finds_breakdowns_layouts_rejections_and_offers_in_tool_results():
    data = {
        "memory": {"per_gpu_gb": 10.0, "breakdown_gb": {"weights": 10.0}},
        "parallelism": {"plans": [{"tp": 8, "pp": 2}], "rejected": {"tp crosses the node": 3}},
        "pricing": {"offers": [{"provider": "a"}]},
        "pricing_2": {"offers": [{"provider": "b"}]},
        "notes": "not a result",
    }
    view = plan_view(data)
    assert [c[1] for c in view.charts] == [{"weights": 10.0}]
    assert view.layouts == [{"tp": 8, "pp": 2}]
    assert view.rejected == [{"rejected because": "tp crosses the node", "layouts": 3}]
    assert [o["provider"] for o in view.offers] == ["a", "b"]
    assert plan_view({}).empty and not view.empty


def test_table_cells_write_figures_as_the_report_does_and_never_read_markup():
    # $50.44 a node-hour / 8 = $6.305 a GPU-hour: a price keeps its tenth of a cent
    assert cell(50.44 / 8, "usd_per_gpu_hour").plain == "$6.305"
    assert cell(0.548, "mfu").plain == "54.8%"
    assert cell(61.25, "per_gpu_gb").plain == "61.2"
    assert cell(36821.2).plain == "36,821"
    assert cell(1024).plain == "1,024"
    assert cell(True).plain == "yes" and cell(None).plain == "–"
    assert cell("[bold]x[/]").plain == "[bold]x[/]"


def test_table_columns_put_the_preferred_first_and_skip_nested_fields():
    rows = [{"b": 1, "a": 2, "nested": {"x": 1}}, {"c": 3}]
    assert table_columns(rows, ("a", "z")) == ["a", "b", "c"]


def test_a_step_label_shows_its_result_with_the_unit():
    step = Step(label="weights", formula="params x bytes", inputs={"params": q(70.55e9, "")},
                result=q(141.1, "GB"))
    assert step_label(3, step).plain == "3. weights = 141.1 GB"
    assert step_label(1, Step(label="parse")).plain == "1. parse"


def test_a_disputed_source_is_marked_in_the_list_and_on_its_note():
    ref = NoteRef(id="cluster-tiers", claim="range", title="Tiers",
                  dispute="the tool computes 450 GB/s, the source says 900")
    assert f"{DISPUTED}: the tool computes 450 GB/s" in source_prompt(2, ref).plain
    assert source_prompt(2, ref).plain.startswith("[2] Tiers")
    title, page = read_note(ref)
    assert title and "`range` " in page
    marked = [line for line in page.splitlines() if DISPUTED in line]
    assert len(marked) == 1 and marked[0].startswith("- `range`")
    undisputed = NoteRef(id="cluster-tiers", claim="range", title="Tiers")
    assert DISPUTED not in source_prompt(1, undisputed).plain
    assert DISPUTED not in read_note(undisputed)[1]


def test_a_note_page_has_its_title_source_and_claims_from_the_notes_tool():
    shown = invoke("notes", {"id": "cluster-tiers"}).model_dump()["note"]
    page = note_markdown(shown)
    assert page.startswith(f"# {shown['title']}")
    assert shown["address"] in page
    assert all(f"`{c['id']}` {c['text']}" in page for c in shown["claims"])


def test_the_chat_shows_the_markdown_else_the_question_back_else_the_error():
    assert reply_markdown(Answer(question="x", markdown="**yes**")) == "**yes**"
    asks_back = Answer(question="x", markdown="", clarification=Clarification(
        question="Which model?", missing=["model"], choices=["llama-3-8b"]))
    assert reply_markdown(asks_back) == "Which model?"
    assert "boom" in reply_markdown(Answer(question="x", markdown="", error="boom"))


def test_a_very_long_question_is_echoed_shortened():
    text = "a" * (SHOWN_QUESTION_CHARS + 500)
    shown = shown_question(text)
    assert shown.startswith("a" * SHOWN_QUESTION_CHARS) and f"{len(text):,} characters" in shown
    assert shown_question("short") == "short"


def test_the_default_report_file_is_named_after_the_session_and_day():
    where = Path("/reports")
    assert default_report_path(where, "H100 vs B200!", "2026-12-02") == \
        where / "clusterplan-h100-vs-b200-2026-12-02.md"
    assert default_report_path(where, None, "2026-12-02") == \
        where / "clusterplan-session-2026-12-02.md"
    assert default_report_path(where, "../../etc", "2026-12-02").parent == where


def test_the_theme_follows_the_terminal_background():
    assert terminal_theme({"COLORFGBG": "0;15"}) == LIGHT   # black on bright white
    assert terminal_theme({"COLORFGBG": "0;default;7"}) == LIGHT
    assert terminal_theme({"COLORFGBG": "15;0"}) == DARK    # white on black
    assert terminal_theme({}) == DARK
    assert terminal_theme({"CLUSTERPLAN_THEME": "nord", "COLORFGBG": "0;15"}) == "nord"
