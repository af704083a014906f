"""Tables fitted to a width: no word (so no number) cut, details drop first, all on request.

Widths are worked by hand: a table of columns w1..wn takes w1 + ... + wn cells, 2 between
columns (padding and a blank rule) and 1 at each edge.
"""

from __future__ import annotations

from rich.console import Console

from clusterplan.tui.fitted_tables import (
    FittedMarkdown,
    drop_order,
    fit_columns,
    table_width,
    widest_table,
)
from clusterplan.tui.plan_panel import plan_options
from clusterplan.tui.tool_tables import fitting_columns

HEADERS = ["provider", "GPU", "$/GPU-h", "verified", "kind"]
ROWS = [["coreweave", "h200-sxm", "6.30", "2026-11-20", "on-demand"],
        ["packet-ai", "h200-sxm", "2.49", "2026-07-29", "on-demand"]]
# natural widths: provider 9, GPU 8, $/GPU-h 7, verified 10, kind 9
# whole table: 9 + 8 + 7 + 10 + 9 = 43, + 4 x 2 between + 2 edges = 53


def test_a_table_is_as_wide_as_its_cells_plus_separators_and_edges():
    assert table_width([9, 8, 7, 10, 9]) == 53
    assert widest_table("| " + " | ".join(HEADERS) + " |\n|---|---|---|---|---|\n"
                        + "".join("| " + " | ".join(r) + " |\n" for r in ROWS)) == 53


def test_details_drop_first_then_text_then_figures_and_never_the_first_column():
    # kind and verified (details, right to left), then GPU (a name: text), then the price
    assert drop_order(HEADERS, ROWS) == [4, 3, 1, 2]


def test_a_table_that_fits_keeps_every_column_at_its_natural_width():
    assert fit_columns(HEADERS, ROWS, 53) == ([0, 1, 2, 3, 4], [9, 8, 7, 10, 9])


def test_a_short_width_drops_the_detail_then_text_keeping_the_price_whole():
    # 52 cells: one short of 53, so 'kind' drops: 9 + 8 + 7 + 10 + 3 x 2 + 2 = 42
    keep, widths = fit_columns(HEADERS, ROWS, 52)
    assert keep == [0, 1, 2, 3] and widths == [9, 8, 7, 10]
    # 30 cells: without verified too, 9 + 8 + 7 + 2 x 2 + 2 = 30 fits exactly
    assert fit_columns(HEADERS, ROWS, 30) == ([0, 1, 2], [9, 8, 7])
    # 29 cells: GPU drops too, the price stays: 9 + 7 + 2 + 2 = 20
    assert fit_columns(HEADERS, ROWS, 29)[0] == [0, 2]


def test_long_text_wraps_between_words_and_takes_the_room_left():
    headers, rows = ["cluster", "days"], [["32× NVIDIA GB200 superchip", "23.4"]]
    # longest word 'superchip' is 9; the row whole is 26; 30 cells leave 30 - 2 - 2 - 4 = 22
    assert fit_columns(headers, rows, 30) == ([0, 1], [22, 4])


def rendered(markdown: str, width: int) -> list[str]:
    console = Console(width=width, color_system=None, record=True)
    console.print(FittedMarkdown(markdown))
    return console.export_text().splitlines()


def test_no_number_is_cut_and_the_left_out_columns_are_named():
    md = ("| provider | GPU | $/GPU-h | verified | kind |\n|---|---|---:|---|---|\n"
          "| coreweave | h200-sxm | 6.30 | 2026-11-20 | on-demand |\n")
    lines = rendered(md, 40)
    assert any("coreweave" in line and "6.30" in line for line in lines)
    assert not any("…" in line for line in lines), "nothing shortened with an ellipsis"
    note = " ".join(lines)
    # 40 cells: 9 + 8 + 7 + 10 + 3 x 2 + 2 = 42 is too wide: kind drops, then verified
    assert "Not shown at this width: verified, kind" in note and "F2" in note


def test_the_plan_tab_keeps_the_columns_that_fit_whole_in_order():
    rows = [{"cluster": "32× b200-sxm", "training_days": 25.96, "cost_usd": 117618.0,
             "option": "recommended, cheapest"}]
    columns = ["cluster", "training_days", "cost_usd", "option"]
    # '#' 1 + 2; cluster 12 + 2; days 5 + 2; cost $ '117,618' 7 + 2 = 33; option 21 + 2 = 56
    assert fitting_columns(rows, columns, 33) == ["cluster", "training_days", "cost_usd"]
    assert fitting_columns(rows, columns, 56) == columns
    assert fitting_columns(rows, columns, 10) == ["cluster"], "what a row is stays"


def test_plan_options_mark_the_cheapest_fastest_and_recommended():
    cheap = {"gpu": "b200-sxm", "gpus": 32, "training_days": 26.0, "cost_usd": 117618.0,
             "layout": {"tp": 1, "pp": 1, "dp": 32}}
    fast = {"gpu": "b200-sxm", "gpus": 64, "training_days": 13.0, "cost_usd": 117811.0,
            "layout": {"tp": 1, "pp": 1, "dp": 64}}
    rows = plan_options({"pareto": [cheap, fast], "recommendation": cheap})
    assert [(r["option"], r["cluster"], r["layout"]) for r in rows] == [
        ("recommended, cheapest", "32× b200-sxm", "tp=1 pp=1 dp=32"),
        ("fastest", "64× b200-sxm", "tp=1 pp=1 dp=64")]


def test_an_unpriced_count_is_marked_so_and_never_called_the_cheapest():
    owned = {"gpu": "a800-sxm-80gb", "gpus": 176, "training_days": 29.8,
             "layout": {"tp": 1, "pp": 1, "dp": 176}}
    rows = plan_options({"pareto": [], "unpriced": owned})
    assert [(r["option"], r["cluster"]) for r in rows] == [
        ("unpriced (no offer rents it), fastest", "176× a800-sxm-80gb")]


def test_a_trace_step_keeps_its_result_whole_and_cuts_its_name_at_a_word():
    from rich.text import Text

    from clusterplan.tools.contract import Step, q
    from clusterplan.tui.trace_panel import fitted, step_label

    step = Step(label="training time of the recommendation", formula="", inputs={},
                result=q(25.9573, "days"))
    # '5. ' 3 + ' = 25.9573 days' 15 = 18 cells; 40 leave 22 for the name: 'training time of
    # the recommendation' cut at a word to 'training time of the' (20) + ' …' (2)
    assert step_label(5, step, 40).plain == "5. training time of the … = 25.9573 days"
    assert step_label(5, step).plain == "5. training time of the recommendation = 25.9573 days"
    assert fitted(Text("Goal: pretrain on 2,000,000,000,000 tokens"), 30).plain == \
        "Goal: pretrain on …", "the number is dropped whole, never cut"
