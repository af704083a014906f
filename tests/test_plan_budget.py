"""Budget goals: the biggest catalog model a budget fine-tunes, and a fine-tune with no data
size answered with a plan. Checked by hand arithmetic from datasheets and model cards."""

from __future__ import annotations

import math

import pytest

from clusterplan.tools.catalog_lookup import active_catalog
from clusterplan.tools.registry import invoke
from tests.conftest import run_cli

SECONDS_PER_DAY = 86_400
B200_PEAK = 2250e12  # dense BF16, note nvidia-b200-datasheet


def test_the_biggest_model_100b_tokens_of_fine_tuning_affords_within_50k():
    result = invoke("plan", {"largest_model": True, "workload": "full_finetune",
                             "tokens": "100B", "budget_usd": 50_000})
    rec = result.recommendation
    assert rec is not None and rec.cost_usd <= 50_000
    # packet.ai bills whole hours (pricing-models#packet-no-minimum): the run's hours round up
    assert rec.provider == "packet-ai" and rec.billed_hours == math.ceil(rec.training_days * 24)
    assert math.isclose(rec.cost_usd, rec.billed_gpus * rec.usd_per_gpu_hour
                        * math.ceil(rec.training_days * 24), rel_tol=1e-4)
    # OPT-66B (note model-bloom-opt: 65.72e9 parameters) on one node of 8 B200 at $5.90 a
    # GPU-hour: $50,000 buys 50,000 / (8 x 5.90 x 24) = 44.1 days, and 6 x 65.72e9 x 1e11 FLOPs
    # in 44.1 days need 3.943e22 / (8 x 2250e12 x 44.1 x 86,400) = 57.5% MFU, above the 52%
    # of peak Megatron-LM's best runs reached (mfu-calibration#megatron-52). With a share of
    # peak that grows with the GEMMs (no longer a flat 60%) the plan search finds it over
    # budget, and the biggest model that fits the money is Qwen2 57B-A14B on the same node.
    assert 50_000 / (8 * 5.90 * 24) == pytest.approx(44.1, abs=0.05)
    assert 6 * 65.72e9 * 1e11 / (8 * B200_PEAK * 44.1 * SECONDS_PER_DAY) > 0.52
    opt = invoke("plan", {"model": "opt-66b", "workload": "full_finetune", "tokens": "100B",
                          "budget_usd": 50_000})
    assert opt.recommendation is None and "over the budget" in opt.summary
    assert result.model == "qwen2-57b-a14b" and rec.gpu == "b200-sxm" and rec.gpus == 8
    # the runner-up is the next size down, also within budget
    assert result.runner_up_model == "mixtral-8x7b" and result.runner_up.cost_usd <= 50_000
    assert "runner-up mixtral-8x7b" in result.summary


def test_a_fine_tune_with_no_data_size_gets_a_plan_with_the_assumed_size():
    result = invoke("plan", {"model": "llama-3-8b", "workload": "lora",
                             "objective": "cheapest"})
    assert result.recommendation is not None
    # Alpaca: 52,000 examples x 512 tokens x 3 epochs = 79,872,000 tokens
    assert "79,872,000 tokens" in " ".join(result.assumptions)
    assert "79,872,000 tokens" in result.goal


def test_budget_questions_are_answered_with_plans():
    out = run_cli("ask", "I have $50k, what's the biggest model I can fine-tune?")
    assert out.exit_code == 0, out.output
    assert "biggest model the goal affords" in out.output and "runner-up" in out.output
    assert "51,200" not in out.output and "context" not in out.output.split("\n")[0]
    out = run_cli("ask", "LoRA on Llama 3 8B, cheapest option?")
    assert out.exit_code == 0, out.output
    assert "Recommendation" in out.output and "79,872,000 tokens" in out.output


def affordable_rows(budget: float, **more) -> dict[tuple[str, float], object]:
    result = invoke("plan", {"largest_model": True, "workload": "full_finetune",
                             "budget_usd": budget, **more})
    return {(r.workload, r.tokens): r for r in result.affordable}


def test_a_budget_fine_tune_is_compared_by_method_and_data_size():
    rows = affordable_rows(50_000)
    # full, LoRA and QLoRA x Alpaca's 52,000 x 512 x 3 = 79,872,000 tokens, 1B and 10B
    alpaca = 52_000 * 512 * 3
    assert set(rows) == {(w, t) for w in ("full_finetune", "lora", "qlora")
                         for t in (alpaca, 1e9, 1e10)}
    assert all(r.model is not None and r.cost_usd <= 50_000 for r in rows.values())
    full = rows[("full_finetune", 1e9)]
    # CoreWeave bills the exact hours (no increment on record): an HGX B200 node is $68.80 an
    # hour (note coreweave-pricing-2026-09), so the run costs GPUs x 68.80 / 8 x days x 24
    assert full.provider == "coreweave"
    # 1e-4: the days are rounded to 6 places (of about 0.04 days) and the cost to the cent
    assert full.cost_usd == pytest.approx(full.gpus * 68.80 / 8 * full.training_days * 24,
                                          rel=1e-4)
    # the same cluster and layout train ten times the data in ten times the steps; the step
    # count rounds up, so 10B tokens take at most 10x the time of 1B
    ten = rows[("full_finetune", 1e10)]
    assert (ten.model, ten.gpus, ten.gpu) == (full.model, full.gpus, full.gpu)
    assert 9.9 <= ten.training_days / full.training_days <= 10.0


def test_a_tight_budget_affords_a_smaller_model_on_more_data():
    rows = affordable_rows(500)
    small, big = rows[("full_finetune", 52_000 * 512 * 3)], rows[("full_finetune", 1e10)]
    assert small.cost_usd <= 500 and big.cost_usd <= 500
    # 10B tokens of full fine-tuning cost at least 6 x N x 1e10 FLOPs; at the B200's dense
    # 2,250 TFLOP/s and the step-time model's ceiling of 0.84 x 10.8 / (10.8 + 4.5) = 59.3% of
    # peak (note mfu-calibration#efficiency-curve) and the cheapest B200 on record ($5.90 an
    # hour at packet.ai), $500 buys at most 500 / 5.90 x 3,600 x 2,250e12 x 0.593 FLOPs, so
    # N <= that / (6 x 1e10) = 6.8e9 active parameters even on the cheapest GPU-hour
    ceiling = 500 / 5.90 * 3600 * 2250e12 * 0.84 * 10.8 / 15.3 / (6 * 1e10)
    assert ceiling == pytest.approx(6.8e9, rel=0.01)
    assert active_catalog().models.rows[big.model].active_params_b * 1e9 <= ceiling
    # 80M tokens need 125 times less: the same $500 then affords a far larger model
    assert big.model != small.model


def test_the_answer_shows_the_comparison_table():
    out = run_cli("ask", "--markdown", "I have $50k, what's the biggest model I can fine-tune?")
    assert out.exit_code == 0, out.output
    assert "| method | tokens | largest model | cluster | provider | time | cost |" in out.output
    assert "| QLoRA | 1,000,000,000 |" in out.output and "| full | 79,872,000 |" in out.output
    assert "data sizes compared: 79,872,000, 1,000,000,000, 10,000,000,000 tokens" in out.output


def test_a_budget_the_fewest_gpus_miss_is_met_by_more_gpus():
    # Kimi K2 LoRA on the Alpaca-sized set on B200: the fewest GPUs that hold it (16) run a
    # squeezed layout and cost more than 48 do, so a budget between the two is met with 48,
    # not refused after the first count over it.
    few = invoke("plan", {"model": "kimi-k2", "workload": "lora", "gpus": ["b200"],
                          "max_gpus": 16, "objective": "cheapest"})
    more = invoke("plan", {"model": "kimi-k2", "workload": "lora", "gpus": ["b200"],
                           "budget_usd": 28})
    assert few.recommendation.gpus == 16 and few.recommendation.cost_usd > 28
    rec = more.recommendation
    assert rec is not None and rec.gpus > 16 and rec.cost_usd <= 28
    assert more.failed.get("over budget", 0) >= 1  # 16 GPUs and the counts up to 48
    # the cost is what the offer bills: GPUs x $/GPU-h x billed hours, to the cent (the cost
    # is rounded to cents and the hours to six decimals, a few thousandths of a dollar here)
    assert math.isclose(rec.cost_usd, rec.billed_gpus * rec.usd_per_gpu_hour * rec.billed_hours,
                        abs_tol=0.01)


def test_the_budget_answer_speaks_in_words_and_model_names():
    # The tool's goal keeps ids for scripts ("full_finetune", "kimi-k2"); the answer a person
    # reads names the method and the models as the rest of the answer does.
    out = run_cli("ask", "--markdown", "I have $50k, what's the biggest model I can fine-tune?")
    lead = out.output.splitlines()[0]
    assert lead.startswith("Goal: largest model: full fine-tuning on 79,872,000 tokens")
    assert "full_finetune" not in lead
    model = active_catalog().models.rows
    named = [row.name for row in model.values() if f"**{row.name}**" in lead]
    assert named, lead  # the recommended model by its catalog name, in bold
