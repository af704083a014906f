"""The Plan tab's step-time chart: each best layout's step as one bar, part by part."""

from __future__ import annotations

import pytest
from textual.widgets import TabbedContent

from clusterplan.assistant.sessions.session import Assistant
from clusterplan.db.active import open_store, use_store
from clusterplan.tui.app import ClusterplanApp
from clusterplan.tui.chat import Chat
from clusterplan.tui.plan_panel import PlanPanel, plan_view
from clusterplan.tui.step_chart import StepChart, layout_label, part_cells
from tests.conftest import ask, settle

# A step of 10 s: 6 compute, 1 TP, 0.5 PP, 0.5 DP, 2 bubble (they add up to 10).
PLAN = {"tp": 8, "pp": 4, "dp": 2, "ep": 1, "cp": 1, "step_time_s": 10.0, "compute_s": 6.0,
        "tp_comm_s": 1.0, "pp_comm_s": 0.5, "dp_comm_s": 0.5, "ep_comm_s": 0.0,
        "cp_comm_s": 0.0, "bubble_s": 2.0}


def test_part_cells_split_a_bar_in_proportion_and_keep_its_length():
    # On a 40-cell bar scaled to this very step: 6/10 x 40 = 24 compute cells, 4 TP, 2 PP,
    # 2 DP, 8 bubble, 40 in all; EP and CP take none.
    assert part_cells(PLAN, 10.0, 40) == [(0, 24), (1, 4), (2, 2), (3, 2), (6, 8)]
    # Scaled to a 20 s step, the same step is half the bar: 20 cells, 12 of them compute.
    half = part_cells(PLAN, 20.0, 40)
    assert sum(n for _, n in half) == 20 and half[0] == (0, 12)


def test_a_part_too_small_for_a_cell_leaves_the_bar_its_length():
    # 0.5 / 10 of 9 cells is 0.45 of a cell: the largest remainders get the cells left over
    # so the bar is still round(9) = 9 cells long.
    assert sum(n for _, n in part_cells(PLAN, 10.0, 9)) == 9


def test_layout_label_shows_cp_and_ep_only_when_used():
    assert layout_label(PLAN) == "tp8 pp4 dp2"
    assert layout_label({**PLAN, "cp": 16, "ep": 4}) == "tp8 cp16 pp4 dp2 ep4"
    assert layout_label({**PLAN, "dp": 64, "shard_group": 8}) == "tp8 pp4 dp64/8"


def test_serving_plans_have_no_step_chart():
    view = plan_view({"parallelism": {"plans": [{"tp": 2, "pp": 1, "replicas": 4}]}})
    assert view.layouts and not view.steps


@pytest.fixture
def assistant() -> Assistant:
    store = open_store()
    use_store(store)
    return Assistant(store)


async def test_a_training_answer_draws_the_best_layouts_step_parts(assistant):
    app = ClusterplanApp(assistant)
    answers = []
    async with app.run_test(size=(120, 36), message_hook=answers.append) as pilot:
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "plan-tab"
        await ask(app, pilot, "How should I split a 70B model across 16 H100s in 2 nodes?")
        answer = next(m.answer for m in answers if isinstance(m, Chat.AnswerReady))
        plans = answer.data["parallelism"]["plans"]
        [chart] = app.query_one(PlanPanel).query(StepChart)
        assert chart.plans == plans[:3]
        lines = chart.render_chart(100).plain.splitlines()
        assert "compute" in lines[0]
        rows = lines[1:]
        assert len(rows) == len(plans[:3])
        for row, plan in zip(rows, plans, strict=False):
            assert row.startswith(layout_label(plan))
            # The slowest of the three fills the bar; each is as long as its step allows.
            bar = row[19:19 + 100 - 18 - 9 - 2]
            slowest = max(p["step_time_s"] for p in plans[:3])
            assert bar.count("█") == round(plan["step_time_s"] / slowest * len(bar))
