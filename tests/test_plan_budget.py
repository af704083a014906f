"""Budget goals: the biggest catalog model a budget fine-tunes, and a fine-tune with no data
size answered with a plan. Checked by hand arithmetic from datasheets and model cards."""

from __future__ import annotations

import math

from clusterplan.tools.registry import invoke
from tests.conftest import run_cli

SECONDS_PER_DAY = 86_400
B200_PEAK = 2250e12  # dense BF16, note nvidia-b200-datasheet


def test_the_biggest_model_100b_tokens_of_fine_tuning_affords_within_50k():
    result = invoke("plan", {"largest_model": True, "workload": "full_finetune",
                             "tokens": "100B", "budget_usd": 50_000})
    rec = result.recommendation
    assert rec is not None and rec.cost_usd <= 50_000
    # OPT-66B (note model-bloom-opt: 65.72e9 parameters) on 8 B200 at MFU 60%: the matmul
    # FLOPs alone, 6 x 65.72e9 x 1e11 / (8 x 2250e12 x 0.6) = 42.3 days
    assert result.model == "opt-66b" and rec.gpu == "b200-sxm"
    floor_days = 6 * 65.72e9 * 1e11 / (rec.gpus * B200_PEAK * rec.mfu) / SECONDS_PER_DAY
    assert 42.2 < floor_days < 42.4 and floor_days <= rec.training_days <= floor_days * 1.05
    assert math.isclose(rec.cost_usd, rec.billed_gpus * rec.usd_per_gpu_hour
                        * rec.training_days * 24, rel_tol=1e-4)
    # the next size up, Llama 2 70B (68.98e9): 42.3 x 68.98 / 65.72 = 44.4 days at least on the
    # same 8 GPUs at $5.90, over $50,000 -- and the plan search agrees no cluster affords it
    over = floor_days * 68.98 / 65.72 * 24 * 8 * rec.usd_per_gpu_hour
    assert over > 50_000
    bigger = invoke("plan", {"model": "llama-2-70b", "workload": "full_finetune",
                             "tokens": "100B", "budget_usd": 50_000})
    assert bigger.recommendation is None and "over the budget" in bigger.summary
    # the runner-up is the next size down, also within budget
    assert result.runner_up_model == "llama-65b" and result.runner_up.cost_usd <= 50_000
    assert "runner-up llama-65b" in result.summary


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
