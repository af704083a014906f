"""SVG snapshots of the app at fixed sizes (Textual is pinned exactly in pyproject.toml).

A second line behind the pilot tests: they catch layout and styling changes. The answers shown
are written out here, with figures worked by hand, so that a change in a calculator does not
change these pictures. Regenerate with `pytest tests/test_tui_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import pytest
from textual.widgets import TabbedContent

from clusterplan.assistant.answer import Answer, Clarification, Intent
from clusterplan.assistant.sessions.session import Assistant
from clusterplan.db.active import open_store, use_store
from clusterplan.tools.contract import NoteRef, Step, q
from clusterplan.tui.app import ClusterplanApp
from clusterplan.tui.chat import Chat, QuestionInput

# Llama 3 70B: 70.55e9 parameters, 80 layers, 8 KV heads of 128 dims (Meta's model card).
# Weights in BF16: 70.55e9 x 2 B = 141.1 GB. KV cache per token: 2 x 80 x 8 x 128 x 2 B =
# 327,680 B; for one 4,096-token sequence 327,680 x 4,096 = 1.342 GB. Total 142.4 GB.
SERVE = Answer(
    question="How much GPU memory do I need to serve Llama 3 70B in BF16?",
    intent=Intent(kind="memory", slots={"model": "llama-3-70b", "workload": "inference"}),
    markdown=(
        "Serving Llama 3 70B in BF16 needs about **142.4 GB**: 141.1 GB of weights and "
        "1.34 GB of KV cache for one 4,096-token sequence. It does not fit one H100 80GB; "
        "split it over 2 with tensor parallelism.\n\n"
        "| term | GB |\n| --- | --- |\n| weights | 141.1 |\n| kv cache | 1.342 |\n"
    ),
    data={
        "memory": {"per_gpu_gb": 142.4, "gpu_memory_gb": 80.0, "fits": False,
                   "headroom_gb": -62.4, "breakdown_gb": {"weights": 141.1, "kv_cache": 1.342}},
        "parallelism": {"plans": [
            {"tp": 2, "pp": 1, "replicas": 4, "per_gpu_gb": 71.2},   # 142.4 / 2
            {"tp": 4, "pp": 1, "replicas": 2, "per_gpu_gb": 35.6},   # 142.4 / 4
            {"tp": 8, "pp": 1, "replicas": 1, "per_gpu_gb": 17.8},   # 142.4 / 8
        ]},
    },
    trace=[
        Step(label="weights", formula="parameters x bytes per parameter",
             inputs={"parameters": q(70.55e9), "bytes": q(2, "B")}, result=q(141.1, "GB"),
             notes=["model-llama-3"]),
        Step(label="KV cache per token", formula="2 x layers x kv_heads x head_dim x bytes",
             inputs={"layers": q(80), "kv_heads": q(8), "head_dim": q(128), "bytes": q(2, "B")},
             result=q(327680, "B"), notes=["model-llama-3"]),
        Step(label="KV cache", formula="per token x tokens",
             inputs={"per token": q(327680, "B"), "tokens": q(4096)}, result=q(1.342, "GB")),
    ],
    citations=[NoteRef(id="model-llama-3", title="Llama 3 model shapes")],
    assumptions=["one sequence of 4,096 tokens"],
)

WHICH_MODEL = Answer(
    question="How much memory?",
    intent=Intent(kind="memory", missing=["model"]),
    markdown="To answer the memory question, tell me which model.",
    clarification=Clarification(question="Which model?", missing=["model"],
                                choices=["llama-3-8b", "llama-3-70b", "llama-3.1-405b"]),
)


@pytest.fixture
def assistant() -> Assistant:
    store = open_store()
    use_store(store)
    return Assistant(store)


async def loaded(pilot) -> None:
    """Wait for what comes just after the first screen: the welcome and the side panel."""
    app = pilot.app
    for _ in range(50):
        await pilot.pause()
        await app.workers.wait_for_complete()
        if app.query("SidePanel") and app.query(".welcome"):
            return
    raise AssertionError("the welcome and the side panel never came")


def showing(answer: Answer | None, tab: str | None = None):
    """A run_before hook: the app shows `answer` as if just answered, on `tab`."""

    async def run_before(pilot) -> None:
        pilot.app.query_one(QuestionInput).cursor_blink = False  # a blink is not a change
        await loaded(pilot)
        if answer is not None:
            pilot.app.post_message(Chat.AnswerReady(answer))
        await pilot.pause()
        if tab:
            pilot.app.query_one(TabbedContent).active = tab
        await pilot.pause()

    return run_before


def test_start_screen_80x24(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(80, 24), run_before=showing(None))


def test_answer_with_plan_tab_120x36(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(120, 36), run_before=showing(SERVE, "plan-tab"))


def test_clarification_on_a_light_terminal_80x24(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={"COLORFGBG": "0;15"})
    assert snap_compare(app, terminal_size=(80, 24), run_before=showing(WHICH_MODEL))
