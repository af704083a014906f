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


# An 8xH200 node's offers. Per node-hour = per GPU-hour x 8: 6.30 x 8 = 50.40, 3.99 x 8 = 31.92,
# 2.49 x 8 = 19.92; a month of the cheapest available node at 730 h: 50.40 x 730 = $36,792.
OFFERS = [
    {"provider": "coreweave", "gpu": "h200-sxm", "kind": "on_demand", "usd_per_gpu_hour": 6.30,
     "usd_per_node_hour": 50.40, "gpus_per_node": 8, "region": "us-east",
     "verified_on": "2026-11-20", "stale": False},
    {"provider": "hyperstack", "gpu": "h200-sxm", "kind": "on_demand", "usd_per_gpu_hour": 3.99,
     "usd_per_node_hour": 31.92, "gpus_per_node": 8, "region": "canada-1",
     "verified_on": "2026-08-26", "stale": True},
    {"provider": "packet-ai", "gpu": "h200-sxm", "kind": "on_demand", "usd_per_gpu_hour": 2.49,
     "usd_per_node_hour": 19.92, "gpus_per_node": 8, "region": "us-west",
     "verified_on": "2026-07-29", "stale": True},
]
OFFERS_ANSWER = Answer(
    question="What does an 8xH200 node cost per month on-demand?",
    intent=Intent(kind="pricing", slots={"gpu": "h200-sxm", "gpus": 8}),
    markdown=(
        "The cheapest available on-demand 8× H200 node is coreweave at **$50.40 an hour**: "
        "**$36,792 a month** at 730 hours.\n\n"
        "| provider | GPU | kind | $/GPU-h | $/node-h | GPUs/node | region | verified | "
        "status |\n| --- | --- | --- | ---: | ---: | ---: | --- | --- | --- |\n"
        + "".join(f"| {o['provider']} | {o['gpu']} | on-demand | {o['usd_per_gpu_hour']:.2f} | "
                  f"{o['usd_per_node_hour']:.2f} | 8 | {o['region']} | {o['verified_on']} | "
                  f"{'stale' if o['stale'] else 'available'} |\n" for o in OFFERS)
    ),
    data={"pricing": {"offers": OFFERS}},
)

# A 7B model on 2T tokens in 30 days needs 2e12 / (30 x 86,400) = 771,605 tokens/s. Costs are
# GPUs x $/GPU-h x days x 24: 32 x 5.90 x 25.9573 x 24 = $117,618; 32 x 10.50 x 23.4 x 24 =
# $188,698; 64 x 5.90 x 13.0 x 24 = $117,811 (twice the GPUs, half the days).
B200 = "NVIDIA B200 SXM 180GB"
GB200 = "NVIDIA GB200 (one Blackwell GPU of a Grace Blackwell superchip) 186GB"
PLAN_OPTIONS = [
    {"gpu": "b200-sxm", "gpus": 32, "nodes": 4, "gpus_per_node": 8, "provider": "packet-ai",
     "offer": "packet-ai b200-sxm on_demand", "offer_kind": "on_demand",
     "usd_per_gpu_hour": 5.90, "billed_gpus": 32, "hourly_usd": 188.8, "cost_usd": 117618.0,
     "training_days": 25.9573, "mfu": 0.6, "layout": {"tp": 1, "pp": 1, "dp": 32}},
    {"gpu": "b200-sxm", "gpus": 64, "nodes": 8, "gpus_per_node": 8, "provider": "packet-ai",
     "offer": "packet-ai b200-sxm on_demand", "offer_kind": "on_demand",
     "usd_per_gpu_hour": 5.90, "billed_gpus": 64, "hourly_usd": 377.6, "cost_usd": 117811.0,
     "training_days": 13.0, "mfu": 0.6, "layout": {"tp": 1, "pp": 1, "dp": 64}},
    {"gpu": "gb200", "gpus": 32, "nodes": 8, "gpus_per_node": 4, "provider": "coreweave",
     "offer": "coreweave gb200 on_demand", "offer_kind": "on_demand",
     "usd_per_gpu_hour": 10.50, "billed_gpus": 32, "hourly_usd": 336.0, "cost_usd": 188698.0,
     "training_days": 23.4, "mfu": 0.6, "layout": {"tp": 1, "pp": 1, "dp": 32}},
]
PLAN_ANSWER = Answer(
    question="Plan a cluster to pretrain a 7B model on 2T tokens in 30 days",
    intent=Intent(kind="plan", slots={"model": "7b", "tokens": 2e12, "deadline_days": 30}),
    markdown=(
        "Goal: pretrain on 2,000,000,000,000 tokens, within 30 days. Recommendation: **rent "
        "32 x b200-sxm (4 nodes of 8) from packet-ai at $5.90/GPU-h; 26.0 days; about "
        "$117,618**.\n\n"
        "| cluster | nodes | provider | days | cost |\n| --- | ---: | --- | ---: | ---: |\n"
        f"| 32× {B200} | 4 | packet-ai | 26.0 | $117,618 |\n"
        f"| 64× {B200} | 8 | packet-ai | 13.0 | $117,811 |\n"
        f"| 32× {GB200} | 8 | coreweave | 23.4 | $188,698 |\n\n"
        "| ruled out because | candidates |\n| --- | ---: |\n| misses deadline | 35 |\n"
        "| no offer | 31 |\n"
    ),
    data={"plan": {"goal": "pretrain on 2e12 tokens within 30 days", "summary": "rent 32 x "
                   "b200-sxm", "recommendation": PLAN_OPTIONS[0], "pareto": PLAN_OPTIONS,
                   "failed": {"misses deadline": 35, "no offer": 31}, "evaluated": 72}},
)


def test_offers_table_narrow_80x24(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(80, 24), run_before=showing(OFFERS_ANSWER))


def test_offers_table_wide_with_the_panel_120x36(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(120, 36),
                        run_before=showing(OFFERS_ANSWER, "plan-tab"))


def test_plan_table_narrow_80x24(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(80, 24), run_before=showing(PLAN_ANSWER))


def test_plan_options_in_the_plan_tab_wide_120x36(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(120, 36),
                        run_before=showing(PLAN_ANSWER, "plan-tab"))


# Three 70B layouts on 16 H100 with their step parts; each step is the sum of its parts:
# 4.2 + 0.6 + 0.1 + 0 + 0.5 = 5.4 s; 4.3 + 0.3 + 0 + 0.8 + 0 = 5.4 s; and 4.2 + 0.6 + 0.2 +
# 0 + 1.0 = 6.0 s, the slowest, which fills the bar.
def _train_plan(rank, tp, pp, dp, parts):
    compute, tp_s, pp_s, dp_s, bubble = parts
    return {"rank": rank, "tp": tp, "pp": pp, "dp": dp, "ep": 1, "cp": 1, "zero_stage": 1,
            "micro_batch": 1, "recompute": "selective", "compute_s": compute, "tp_comm_s": tp_s,
            "pp_comm_s": pp_s, "dp_comm_s": dp_s, "ep_comm_s": 0.0, "cp_comm_s": 0.0,
            "bubble_s": bubble, "step_time_s": round(sum(parts), 6)}


TRAIN = Answer(
    question="How should I split a 70B model across 16 H100s in 2 nodes?",
    intent=Intent(kind="parallelism", slots={"model": "llama-3-70b", "gpus": 16}),
    markdown="Best layout on 16× H100 (2 nodes): **TP 8 × PP 2 × DP 1**.",
    data={"parallelism": {"plans": [
        _train_plan(1, 8, 2, 1, (4.2, 0.6, 0.1, 0.0, 0.5)),
        _train_plan(2, 4, 1, 4, (4.3, 0.3, 0.0, 0.8, 0.0)),
        _train_plan(3, 8, 2, 1, (4.2, 0.6, 0.2, 0.0, 1.0)),
    ]}},
)


def test_step_time_chart_in_the_plan_tab_120x36(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(120, 36), run_before=showing(TRAIN, "plan-tab"))


# 64 H100 for 3 months = 3 x 730 = 2,190 h. On demand at $6.155 a GPU-hour (CoreWeave's $49.24
# node-hour / 8): 64 x 2,190 x 6.155 = $862,684.80. A Capacity Block at $39.33 / 8 = $4.91625,
# sold in 7-day steps past 14 days: 91.25 days -> 14 weeks = 2,352 h (162 unused),
# 64 x 2,352 x 4.91625 = $740,033.28. A 1-year term at $7.673 bills 8,760 h (6,570 unused):
# 64 x 8,760 x 7.673 = $4,301,790.72.
def _priced(provider, kind, rate, billed_hours, total, product):
    return {"offer": {"provider": provider, "gpu": "h100-sxm", "kind": kind,
                      "effective_usd_per_gpu_hour": rate, "product": product,
                      "stale": kind != "on_demand"},
            "billed_gpus": 64, "billed_hours": billed_hours, "total_usd": total,
            "unused_hours": billed_hours - 2190.0}


COMMIT_ANSWER = Answer(
    question="What's cheaper for 3 months of 64 H100: on-demand or reserved?",
    intent=Intent(kind="pricing", slots={"gpu": "h100", "gpus": 64, "months": 3}),
    markdown="A **Capacity Block** costs least: **$740,033** against $862,685 on demand.",
    data={"pricing": {"commitments": {
        "gpus": 64, "hours": 2190.0, "utilization": 1.0, "cheaper": "committed",
        "on_demand": _priced("coreweave", "on_demand", 6.155, 2190.0, 862684.8, "HGX H100"),
        "terms": [_priced("aws", "capacity_block", 4.91625, 2352.0, 740033.28,
                          "p5.48xlarge Capacity Block"),
                  _priced("gcp", "reserved_1y", 7.673, 8760.0, 4301790.72,
                          "a3-highgpu-8g 1-year commitment")]}}},
)


def test_commitment_comparison_in_the_plan_tab_120x36(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(120, 36),
                        run_before=showing(COMMIT_ANSWER, "plan-tab"))


# Each cost is GPUs x $/GPU-h x hours: 16 x 8.60 x 0.25 = $34.40 (0.25 h = 0.010417 days);
# 8 x 5.90 x 10 = $472.00 (10 h = 0.416667 days).
BUDGET_ANSWER = Answer(
    question="I have $500, what's the biggest model I can fine-tune?",
    intent=Intent(kind="plan", slots={"largest_model": True, "budget_usd": 500}),
    markdown="The biggest model $500 fine-tunes (LoRA, Alpaca-sized) is **kimi-k2**.",
    data={"plan": {"goal": "largest model: within $500", "summary": "kimi-k2", "affordable": [
        {"workload": "lora", "tokens": 79_872_000.0, "model": "kimi-k2", "gpu": "b200-sxm",
         "gpus": 16, "provider": "coreweave", "training_days": 0.010417, "cost_usd": 34.4},
        {"workload": "lora", "tokens": 1e10, "model": "qwen2.5-7b", "gpu": "b200-sxm",
         "gpus": 8, "provider": "packet-ai", "training_days": 0.416667, "cost_usd": 472.0},
        {"workload": "full_finetune", "tokens": 1e11, "model": None, "gpu": None, "gpus": None,
         "provider": None, "training_days": None, "cost_usd": None}]}},
)


def test_budget_table_in_the_plan_tab_120x36(snap_compare, assistant):
    app = ClusterplanApp(assistant, environ={})
    assert snap_compare(app, terminal_size=(120, 36),
                        run_before=showing(BUDGET_ANSWER, "plan-tab"))
