"""The HTML report: one page that makes no request, each chart drawn as inline SVG carrying
the figures of the Mermaid block it stands for."""

from __future__ import annotations

import math
import re

import pytest

from clusterplan.assistant.answer import Answer
from clusterplan.assistant.report.document import render_report
from clusterplan.assistant.report.html import render_html
from tests.test_report import DAY, memory_answer, pricing_answer

# Step-time parts of one layout: 24.2 s compute + 2.3 s communication + 0 s bubble + 0.3 s
# optimizer update = 26.8 s.
LAYOUT = {"tp": 8, "pp": 1, "dp": 128, "zero_stage": 3, "per_gpu_gb": 69.3, "step_time_s": 26.8,
          "compute_s": 24.2, "comm_s": 2.3, "bubble_s": 0.0, "update_s": 0.3, "mfu": 0.548}


def option(gpu: str, gpus: int, days: float, usd_per_gpu_hour: float) -> dict:
    """A training option whose cost is GPUs x $/GPU-h x days x 24 h (worked in each test)."""
    return {"gpu": gpu, "gpus": gpus, "nodes": gpus // 8, "gpus_per_node": 8,
            "layout": {"tp": 1, "pp": 1, "dp": gpus, "ep": 1, "zero_stage": 3},
            "provider": "lambda", "offer": f"lambda {gpu} on_demand", "offer_kind": "on_demand",
            "usd_per_gpu_hour": usd_per_gpu_hour, "billed_gpus": gpus,
            "hourly_usd": gpus * usd_per_gpu_hour,
            "cost_usd": round(gpus * usd_per_gpu_hour * days * 24, 2),
            "training_days": days, "mfu": 0.6, "tokens_per_s": 1.0}


# 16 x $5.90 x 30 days x 24 h = $67,968 ; 48 x $4.00 x 20 days x 24 h = $92,160
CHEAP = option("b200-sxm", 16, 30.0, 5.9)
FAST = option("h100-sxm", 48, 20.0, 4.0)


def plan_answer() -> Answer:
    return Answer(question="Plan the cheapest cluster to pretrain llama-3-8b on 1T tokens "
                           "within 30 days", markdown="Rent 16 B200.",
                  data={"plan": {"goal": "pretrain on 1T tokens within 30 days, cheapest",
                                 "recommendation": CHEAP, "pareto": [CHEAP, FAST],
                                 "evaluated": 12, "failed": {"misses deadline": 26}}})


def page() -> tuple[str, str]:
    answers = [memory_answer(), Answer(question="Layout?", markdown="TP 8.",
                                       data={"parallelism": {"plans": [LAYOUT]}}),
               pricing_answer(), plan_answer()]
    markdown = render_report(answers, DAY)
    return markdown, render_html(markdown, "Plan")


def charts(html: str) -> list[str]:
    return re.findall(r"<svg .*?</svg>", html, re.S)


def test_the_page_makes_no_request_and_draws_every_chart_as_svg():
    markdown, html = page()
    assert not re.search(r"<script|<link|<img|<iframe|<object|@import|url\(|src=", html, re.I)
    # only the sources' links point elsewhere, as links a reader may follow
    for reference in re.findall(r'(?:href|src)="(https?:[^"]*)"', html):
        assert reference.startswith("https://example.org/"), reference
    assert markdown.count("```mermaid") == 4 == len(charts(html))
    assert "```" not in html and "mermaid" not in html


def test_the_pie_slices_and_legend_carry_the_memory_per_gpu():
    pie = next(c for c in charts(page()[1]) if 'class="slice"' in c)
    # 141.2 + 10.74 + 1.46 = 153.4 GB; zero terms have no slice
    assert re.findall(r'data-label="([^"]*)" data-value="([^"]*)"', pie) == [
        ("weights", "141.2"), ("kv cache", "10.74"), ("overhead", "1.46")]
    # shares: 141.2 / 153.4 = 92.05%, 10.74 / 153.4 = 7.001%, 1.46 / 153.4 = 0.9518%
    for said in ("weights: 141 GB (92%)", "kv cache: 10.7 GB (7%)",
                 "overhead: 1.46 GB (0.952%)", "total: 153 GB"):
        assert said in pie, said
    # the weights slice runs clockwise from twelve o'clock to 92.05% of the turn: on a circle
    # of radius 110 about (170, 170), sin(331.4°) = -0.4793, cos(331.4°) = 0.8776
    end = re.search(r'data-label="weights"', pie) and re.search(
        r'd="M170,170 L170.00,60.00 A110,110 0 1 1 ([\d.]+),([\d.]+) Z"', pie)
    assert end is not None
    assert float(end.group(1)) == pytest.approx(170 - 110 * 0.4793, abs=0.02)
    assert float(end.group(2)) == pytest.approx(170 - 110 * 0.8776, abs=0.02)


def test_the_step_time_bars_stack_compute_communication_bubble_and_update():
    bars = next(c for c in charts(page()[1]) if 'class="bar"' in c)
    assert "Step time of the best layouts (s)" in bars and "#1 TP 8 × PP 1 × DP 128" in bars
    # drawn over one another: the whole step 26.8 s, up to the bubble 26.5 s, compute +
    # communication 26.5 s, compute 24.2 s; the axis runs to 30 s over a plot 210 px high
    found = re.findall(r'height="([\d.]+)" fill="#\w+" data-value="([^"]*)"', bars)
    assert [(v, float(h)) for h, v in found] == [
        ("26.8", pytest.approx(210 * 26.8 / 30, abs=0.01)),
        ("26.5", pytest.approx(210 * 26.5 / 30, abs=0.01)),
        ("26.5", pytest.approx(210 * 26.5 / 30, abs=0.01)),
        ("24.2", pytest.approx(210 * 24.2 / 30, abs=0.01))]
    for name in ("optimizer update", "bubble", "communication", "compute"):
        assert f'class="legend">{name}</text>' in bars
    assert ">30</text>" in bars and ">0</text>" in bars


def test_the_monthly_cost_line_rises_by_the_month():
    line = next(c for c in charts(page()[1]) if "monthly cost month by month" in c)
    values = [float(v) for v in re.findall(r'class="point"[^>]*data-value="([^"]*)"', line)]
    # $36,821.20 a month: month 1 = 36,821.2, month 12 = 12 x 36,821.2 = 441,854.4
    assert len(values) == 12
    assert values[0] == pytest.approx(36821.2, rel=1e-4)  # Mermaid keeps whole dollars
    assert values[-1] == pytest.approx(441854.4, rel=1e-5)
    assert "$441,854" in line and ">months</text>" in line
    # axis to $500,000 in steps of $100,000: month 12 stands 210 x 441,854 / 500,000 px high
    last = re.findall(r'cy="([\d.]+)" r="3.5"', line)[-1]
    assert float(last) == pytest.approx(250 - 210 * 441854.4 / 500000, abs=0.02)
    assert "$500,000" in line


def test_the_plan_options_show_cost_against_training_time():
    markdown, html = page()
    section = markdown.split("## 4.")[1]
    assert "### The options that meet the goal" in section
    assert "| fastest | 48× NVIDIA H100 SXM 80GB | 6 of 8 | TP 1 × PP 1 × DP 48, ZeRO stage 3 | " \
           "lambda (on-demand) | \\$4.00 | 20.0 | \\$92,160 | 60% |" in section
    assert "| recommended, cheapest | 16× NVIDIA B200 SXM 180GB | 2 of 8 |" in section
    assert '["20.0 days · 48× H100 SXM 80GB", "30.0 days · 16× B200 SXM 180GB"]' in section
    assert "    line [92160, 67968]" in section
    chart = next(c for c in charts(html) if "against training time" in c)
    assert re.findall(r'class="point"[^>]*data-value="([^"]*)"', chart) == ["92160", "67968"]
    assert "$92,160" in chart and "$67,968" in chart
    # x labels, fastest first, centred in halves of the plot from x = 70 to 690: 225 and 535
    assert '<tspan x="225.00" dy="0">20.0 days</tspan>' in chart
    assert '<tspan x="535.00" dy="0">30.0 days</tspan>' in chart


def test_a_plan_with_one_option_has_a_table_but_no_chart():
    answer = plan_answer()
    answer.data["plan"]["pareto"] = [CHEAP]
    text = render_report([answer], DAY)
    assert "| recommended, cheapest, fastest | 16× NVIDIA B200 SXM 180GB |" in text
    assert "```mermaid" not in text


def test_the_pie_legend_rounds_as_the_table_does():
    # activations 0.8723 GB: the table writes 0.872, so must the legend (not 0.870 from a
    # two-decimal copy); weights 101.463 GB: 101 in both
    answer = memory_answer()
    answer.data["memory"]["breakdown_gb"] = {"weights": 101.463, "activations": 0.8723}
    markdown = render_report([answer], DAY)
    assert "| activations | 0.872 |" in markdown and "| weights | 101 |" in markdown
    pie = next(c for c in charts(render_html(markdown, "x")) if 'class="slice"' in c)
    assert "activations: 0.872 GB" in pie and "weights: 101 GB" in pie


def test_a_chart_drawn_offline_keeps_each_slice_inside_the_circle():
    # every slice end lies on the circle: (x - 170)^2 + (y - 170)^2 = 110^2
    pie = next(c for c in charts(page()[1]) if 'class="slice"' in c)
    for x, y in re.findall(r"0 [01] 1 ([\d.]+),([\d.]+) Z", pie):
        assert math.hypot(float(x) - 170, float(y) - 170) == pytest.approx(110, abs=0.02)


def test_a_mermaid_block_that_is_not_a_report_chart_shows_as_its_text():
    html = render_html("```mermaid\ngraph TD\n  A-->B\n```\n", "x")
    assert "<svg" not in html and "graph TD\n  A--&gt;B" in html


def test_a_plan_searched_for_a_goal_is_the_recommendation():
    text = render_report([memory_answer(), plan_answer()], DAY)
    recommendation = text.split("## Recommendation")[1].split("## Questions")[0]
    assert "| **what to rent** | 16× NVIDIA B200 SXM 180GB (question 2) |" in recommendation
    assert "| **where** | lambda (on-demand) at \\$5.90 per GPU-hour (question 2) |" \
        in recommendation
    assert "| **how many** | 2 nodes of 8 GPUs (question 2) |" in recommendation
    assert "| **time** | 30.0 days (question 2) |" in recommendation
    # 16 x $5.90 x 30 days x 24 h = $67,968
    assert "| **cost** | \\$67,968 for the run (question 2) |" in recommendation


def test_a_plan_searched_for_a_goal_outranks_a_later_memory_check():
    fits = memory_answer()
    fits.data["memory"]["fits"] = True
    text = render_report([plan_answer(), fits], DAY)
    recommendation = text.split("## Recommendation")[1].split("## Questions")[0]
    assert "| **what to rent** | 16× NVIDIA B200 SXM 180GB (question 1) |" in recommendation


def serving_plan_answer() -> Answer:
    # 2 B200 at $6.89 per GPU-hour x 730 h a month = $10,059.40
    rec = {**option("b200-sxm", 2, 1.0, 6.89), "nodes": 1, "gpus_per_node": 2,
           "training_days": None, "mfu": None, "tokens_per_s": 6333.0, "replicas": 1,
           "gpus_per_replica": 2, "cost_usd": 10059.4,
           "layout": {"tp": 2, "pp": 1}}
    return Answer(question="Plan a cluster to serve Llama 3 70B to 200 users at 30 tokens/s",
                  markdown="Rent 2 B200.", data={"plan": {"goal": "serve 200 users x 30 "
                                                          "tokens/s", "recommendation": rec,
                                                          "pareto": [rec]}})


def test_a_session_that_plans_training_and_serving_recommends_both():
    text = render_report([plan_answer(), serving_plan_answer()], DAY)
    recommendation = text.split("## Recommendation")[1].split("## Questions")[0]
    serving, training = recommendation.split("**Training**")
    assert serving.strip().startswith("**Serving**")
    assert "| **what to rent** | 2× NVIDIA B200 SXM 180GB (question 2) |" in serving
    assert "| **how many** | 1 node of 2 GPUs (question 2) |" in serving
    assert "| **throughput** | 6,333 tokens/s (question 2) |" in serving
    assert "| **cost** | \\$10,059 a month for 2 GPUs (question 2) |" in serving
    assert "| **time** | 30.0 days (question 1) |" in training
    assert "**The other answers**" not in recommendation  # both answers are in the tables


def test_old_prices_are_one_risk_a_question():
    stale = [f"p{n} h200-sxm on_demand at $2.{n}/GPU-h was verified on 2026-07-29, 127 days "
             "before 2026-12-02 (over 90): it may no longer be the price" for n in range(3)]
    answer = pricing_answer().model_copy(update={"warnings": [*stale, "spot capacity"]})
    text = render_report([answer], DAY)
    risks = text.split("**Risks**")[1].split("## Questions")[0]
    assert "- 3 prices quoted in the answer were verified over 90 days ago: check before " \
           "renting (question 1)" in risks
    assert "- spot capacity (question 1)" in risks and "p1 h200" not in risks
    # in full in its section, the kind in words
    assert "p1 h200-sxm on demand at $2.1/GPU-h" in text.split("## 1.")[1].replace("\\", "")
