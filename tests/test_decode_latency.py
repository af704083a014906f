"""Time per output token at one sequence against measured runs: TensorRT-LLM 0.9.0's table
(the fixed costs were fitted on it) and NVIDIA NIM's (never fitted on: the held-out check).
The rows are in tests/data/decode_latency with their addresses."""

from __future__ import annotations

import csv
import statistics
from functools import cache
from pathlib import Path

import pytest

from clusterplan.tools.plan.serving_model import ServingModel
from tests.conftest import run_tool

DATA = Path(__file__).parent / "data" / "decode_latency"


def _rows(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="") as f:
        return list(csv.DictReader(f))


@cache
def _model(model: str, gpu: str, precision: str, context: int) -> ServingModel:
    return ServingModel({"model": model, "precision": precision}, gpu, 8, context)


def _predicted_ms(row: dict[str, str]) -> float:
    """One sequence, its KV cache half way through the output, at the run's TP."""
    prompt, out = int(row["input_tokens"]), int(row["output_tokens"])
    model = _model(row["model"], row["gpu"], row["precision"], prompt + out)
    replica = next(r for r in model.replicas() if r.tp == int(row["tp"]) and r.pp == 1)
    return model.decode(replica, 1, prompt + out // 2).total_s * 1e3


def _errors(rows: list[dict[str, str]]) -> list[float]:
    return [_predicted_ms(r) / float(r["time_per_output_token_ms"]) - 1 for r in rows]


def test_fixed_costs_by_hand_on_llama_3_70b_tp8():
    # 80 layers x (54 us of kernels + 2 all-reduces x 9 us over NVLink) = 5.76 ms
    model = _model("llama-3-70b", "h100-sxm", "bf16", 4096)
    tp8 = next(r for r in model.replicas() if r.tp == 8 and r.pp == 1)
    step = model.decode(tp8, 1, 4096)
    assert step.overhead_s == pytest.approx(80 * (54e-6 + 2 * 9e-6), rel=1e-9)
    assert step.total_s == pytest.approx(step.weights_s + step.kv_s + step.comm_s
                                         + step.overhead_s, rel=1e-9)


def test_pcie_all_reduces_cost_more_than_nvlink_ones():
    # L40S (PCIe 4) at TP 2: 80 x (54 + 2 x 37) us = 10.24 ms of fixed cost
    model = _model("llama-2-70b", "l40s", "fp8", 256)
    tp2 = next(r for r in model.replicas() if r.tp == 2 and r.pp == 1)
    assert model.decode(tp2, 1, 192).overhead_s == pytest.approx(80 * (54e-6 + 74e-6), rel=1e-9)


def test_fitted_runs_median_error_within_5_percent():
    # the fit's own data: its median error bounds how well the form fits, not how it predicts
    rows = _rows("trt_llm_0_9_0_batch1.csv")
    assert len(rows) == 99
    assert statistics.median(abs(e) for e in _errors(rows)) < 0.05


def test_held_out_nim_runs_short_prompts_within_10_percent():
    # 200-token prompts at TP 1-4: no term the model lacks (long-context attention, TP 8)
    rows = [r for r in _rows("nim_concurrency1.csv")
            if r["input_tokens"] == "200" and int(r["tp"]) <= 4]
    assert len(rows) == 27
    errors = _errors(rows)
    assert statistics.median(abs(e) for e in errors) < 0.10
    assert max(abs(e) for e in errors) < 0.21


def test_held_out_nim_runs_median_error_within_15_percent():
    # every row, long prompts and TP 8 included: the README's held-out figure
    errors = _errors(_rows("nim_concurrency1.csv"))
    assert len(errors) == 72
    assert statistics.median(abs(e) for e in errors) < 0.15


@pytest.mark.xfail(strict=True, reason="TP 8's all-reduces grow with the group and one "
                   "sequence's attention reads a long KV cache slowly; neither is modelled "
                   "(note serving-latency#decode-held-out)")
def test_held_out_nim_tp8_and_long_prompts_within_10_percent():
    rows = [r for r in _rows("nim_concurrency1.csv")
            if r["tp"] == "8" or r["input_tokens"] == "7000"]
    assert statistics.median(abs(e) for e in _errors(rows)) < 0.10


@pytest.mark.xfail(strict=True, reason="a large MoE across nodes runs many small kernels and "
                   "inter-node all-reduces a layer, beyond the dense per-layer fixed cost "
                   "(note serving-latency#moe-across-nodes)")
def test_deepseek_r1_on_two_h100_nodes_one_request_within_50_percent_of_measured():
    # https://github.com/sgl-project/sglang/issues/3656: DeepSeek-R1 on 2 x 8 H100 80GB,
    # --tp 16, one request: about 19 tokens/s with SGLang, 30 with vLLM. The model's figure
    # should at least land within 50% of the faster, 30.
    result = run_tool("parallelism", {"model": "deepseek-r1", "workload": "inference",
                                      "gpu": "h100-sxm", "gpus": 16, "concurrency": 1,
                                      "precision": "fp8", "top_k": 64})
    tp16 = [p for p in result["plans"] if p["tp"] * p["pp"] == 16]
    assert tp16
    assert float(tp16[0]["decode_tokens_per_s"]) == pytest.approx(30, rel=0.5)
