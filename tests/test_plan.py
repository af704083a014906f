"""Tool `plan`: the inverse question, checked against hand arithmetic and published prices."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from clusterplan.tools.registry import invoke


def _plan(payload: dict) -> dict:  # type: ignore[type-arg]
    return invoke("plan", payload).model_dump()


def test_7b_on_2t_tokens_in_30_days_on_h100() -> None:
    # Tokens/s needed: 2e12 / (30 x 86,400) = 771,604.9.
    # One H100 SXM at its dense BF16 peak 989.4 TFLOP/s (nvidia-h100-datasheet) and the
    # solver's 60% efficiency does at most 989.4e12 x 0.6 / (6 x 6.74e9) = 14,680 tokens/s,
    # so at least 771,605 / 14,680 = 52.6 -> 53 GPUs, 7 nodes of 8 = 56 GPUs.
    r = _plan({"model": "llama-2-7b", "tokens": "2T", "goal": "deadline", "deadline_days": 30,
               "gpus": ["h100-sxm"], "providers": ["coreweave"]})
    assert abs(r["needed_tokens_per_s"] - 771_604.9) < 1
    best = r["best"]
    assert best["gpus"] >= 56 and best["gpus"] % 8 == 0
    assert best["time_days"] <= 30
    # CoreWeave HGX H100: $49.24 per node-hour (coreweave-pricing-2026-09) = $6.155/GPU-h;
    # the run costs GPUs x 6.155 x days x 24.
    assert math.isclose(best["usd_per_gpu_hour"], 49.24 / 8, rel_tol=1e-6)
    assert math.isclose(best["cost_usd"], best["gpus"] * 6.155 * best["time_days"] * 24,
                        rel_tol=1e-3)


def test_multi_node_never_priced_on_a_single_gpu_offer() -> None:
    r = _plan({"model": "llama-2-7b", "tokens": "2T", "goal": "deadline", "deadline_days": 30})
    assert r["options"]
    for o in r["options"]:
        if o["gpus"] > 8:
            assert o["provider"] in {"coreweave", "aws", "azure"}
    # RunPod rents single-GPU pods only: restricted to RunPod the multi-node job has no host.
    only = _plan({"model": "llama-2-7b", "tokens": "2T", "goal": "deadline",
                  "deadline_days": 30, "providers": ["runpod"]})
    assert only["best"] is None
    assert any("multi-node" in k for k in only["rejected"])


def test_budget_too_small_says_by_how_much() -> None:
    # 2T tokens of a 7B model need at least 6 x 6.74e9 x 2e12 = 8.09e22 FLOPs; even a B200 at
    # 2,250 TFLOP/s x 0.6 takes 6.0e7 GPU-s = 16,600 GPU-h, far above $1,000 at any price.
    r = _plan({"model": "llama-2-7b", "tokens": "2T", "goal": "budget", "budget_usd": 1000})
    assert r["best"] is None
    assert "over the budget" in r["gap"]


def test_cli_and_bad_input_is_one_line() -> None:
    cmd = [str(Path(sys.executable).with_name("clusterplan")), "tool", "plan", "--input"]
    ok = subprocess.run(cmd + [json.dumps({"model": "llama-3-8b", "workload": "lora",
                                           "goal": "cheapest"})],
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    out = json.loads(ok.stdout)
    assert out["best"]["gpus"] >= 1 and out["best"]["cost_usd"] > 0
    bad = subprocess.run(cmd + ['{"model": "llama-2-7b", "goal": "deadline"}'],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_reserved_row_billed_for_its_whole_term() -> None:
    # Hyperstack H100 SXM (hyperstack-pricing-2026-08): $3.20 on demand, from $2.72 reserved,
    # stored with a one-month minimum (730 h, pricing-models#hours-per-month). A short LoRA run
    # on one GPU pays the on-demand rate for its hours but the reserved one for 730 h.
    r = _plan({"model": "llama-3-8b", "workload": "lora", "goal": "cheapest",
               "gpus": ["h100-sxm"], "providers": ["hyperstack"]})
    by_kind = {o["offer_kind"]: o for o in r["options"]}
    best = r["best"]
    assert best["offer_kind"] == "on_demand" and best["gpus"] == 1
    assert math.isclose(best["cost_usd"], 3.20 * best["billed_hours"], rel_tol=1e-3)
    reserved = [o for o in r["options"] if o["offer_kind"] == "reserved_1m"]
    for o in reserved:
        assert o["billed_hours"] >= 730
        assert math.isclose(o["cost_usd"], o["gpus"] * 2.72 * o["billed_hours"], rel_tol=1e-3)
    assert "on_demand" in by_kind


def _ask(question: str) -> str:
    exe = str(Path(sys.executable).with_name("clusterplan"))
    done = subprocess.run([exe, "ask", question], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_ask_routes_goal_questions_to_the_plan() -> None:
    # 2e12 / (30 x 86,400) = 771,604.9 tokens/s, shown in the answer.
    out = _ask("Plan a cluster to pretrain a 7B model on 2T tokens in 30 days")
    assert "771,605 tokens/s" in out and out.startswith("Rent ")
    for q in ("What cluster should I rent to fine-tune Llama 3 70B?",
              "LoRA on Llama 3 8B, cheapest option?"):
        assert _ask(q).startswith("Rent ")
