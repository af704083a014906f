"""Calibrating the step-time model on a user's own measurement, through the command line.

A measured step time (or achieved TFLOP/s per GPU) at a stated layout scales every layout's
compute efficiency by one factor so that layout takes exactly the measured time; the training
time of the budget follows by hand arithmetic.
"""

from __future__ import annotations

import pytest

from tests.conftest import run_cli, run_tool

# Llama 3 8B on 64 H100, 512 sequences of 4,096 tokens a step, a 1T-token budget:
# ceil(1e12 / (512 x 4,096)) = ceil(476,837.16) = 476,838 steps.
BASE = {"model": "llama-3-8b", "gpu": "h100-sxm", "gpus": 64, "seq_len": 4096,
        "global_batch": 512, "tokens": "1T", "zero_stages": [1], "recompute": ["none"],
        "micro_batches": [1, 2]}
STEPS = 476_838


def _layout(plan: dict) -> dict:
    return {k: plan[k] for k in ("tp", "pp", "micro_batch", "zero_stage", "recompute")}


def _at(result: dict, layout: dict) -> dict:
    return next(p for p in result["plans"] if _layout(p) == layout)


@pytest.fixture(scope="module")
def model_alone() -> dict:
    return run_tool("parallelism", {**BASE, "top_k": 1000})


def test_a_step_measured_twice_the_model_doubles_the_training_time(model_alone):
    best = model_alone["plans"][0]
    assert model_alone["training_steps"] == STEPS
    measured = 2 * best["step_time_s"]
    result = run_tool("parallelism", {**BASE, "top_k": 1000, "measured_step_s": measured,
                                      "measured_layout": _layout(best)})
    at = _at(result, _layout(best))
    # The factor is bisected to 2^-60 of its bracket: the step matches to far under 0.1%.
    assert at["step_time_s"] == pytest.approx(measured, rel=1e-6)
    assert at["training_days"] == pytest.approx(STEPS * measured / 86_400, rel=1e-6)
    assert at["training_days"] == pytest.approx(2 * best["training_days"], rel=1e-6)
    said = next(a for a in result["assumptions"] if a.startswith("calibration:"))
    assert "measured" in said and f"{measured:g} s per step" in said
    assert any(s["label"] == "calibration on your measurement" for s in result["steps"])
    cited = {(c["id"], c["claim"]) for c in result["citations"]}
    assert ("mfu-calibration", "user-calibration") in cited


def test_measured_tflops_per_gpu_is_what_the_layout_then_achieves(model_alone):
    # Half the model's TFLOP/s at the same layout is twice its step time: model FLOPs of a
    # step are fixed by the layout, so TFLOP/s = FLOPs / (GPUs x step time).
    best = model_alone["plans"][0]
    half = best["tflops_per_gpu"] / 2
    result = run_tool("parallelism", {**BASE, "measured_tflops_per_gpu": half})
    at = _at(result, _layout(best))  # no layout given: the best one is the one measured
    assert at["tflops_per_gpu"] == pytest.approx(half, rel=1e-6)
    assert at["step_time_s"] == pytest.approx(2 * best["step_time_s"], rel=1e-6)


def test_a_measurement_faster_than_the_peak_is_refused_in_one_line(model_alone):
    # H100 SXM's dense BF16 peak is 989.4 TFLOP/s (datasheet): 2,000 per GPU cannot be.
    out = run_cli("tool", "parallelism", "--input",
                  '{"model": "llama-3-8b", "gpu": "h100-sxm", "gpus": 64, '
                  '"measured_tflops_per_gpu": 2000}')
    assert out.exit_code != 0
    assert "faster than h100-sxm can run" in out.output
    assert "Traceback" not in out.output and len(out.output.strip().splitlines()) == 1


def test_both_measurements_at_once_are_refused():
    out = run_cli("tool", "parallelism", "--input",
                  '{"model": "llama-3-8b", "gpu": "h100-sxm", "gpus": 64, '
                  '"measured_tflops_per_gpu": 150, "measured_step_s": 4.2}')
    assert out.exit_code != 0 and "not both" in out.output


def test_the_largest_micro_batch_that_fits_at_the_best_layout():
    # Llama 3 8B (config.json: h = 4096, 32 layers, a = 32, kv = 8, d = 128, f = 14336) at
    # tp 1, pp 1, dp 64, ZeRO-3, no recompute, FlashAttention, s = 4,096. One sequence keeps
    # s·h·(10 + 4·(32 + 8)·128/4096 + 6·14336/4096) = 4096 x 4096 x (10 + 5 + 21) bytes a
    # layer, x 32 layers = 19.327 GB; model states 8.03e9 x 16 bytes / 64 = 2.008 GB. With
    # the 0.5 GB CUDA context and 5% fragmentation, b sequences take
    # (19.327·b + 2.008) x 1.05 + 0.5 GB: b = 4 is 83.78 GB, b = 5 is 104.1 GB, and an
    # H100 SXM has 85,520,809,984 bytes (driver) = 85.52 GB. So 4.
    result = run_tool("parallelism", {**BASE, "zero_stages": [3], "micro_batches": [1]})
    best = result["plans"][0]
    assert (best["tp"], best["pp"], best["dp"]) == (1, 1, 64)
    per_sequence = 4096 * 4096 * 36 * 32 / 1e9
    for b in (4, 5):
        need = (per_sequence * b + 8.03e9 * 16 / 64 / 1e9) * 1.05 + 0.5
        assert (need <= 85.52) == (b == 4)
    assert result["largest_micro_batch"] == 4
    assert any(s["label"] == "largest micro-batch that fits" for s in result["steps"])
