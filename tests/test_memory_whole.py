"""Whole-model totals of the memory tool and of the answers: the figures real questions quote.

Every expected number is hand arithmetic written here; GB = 1e9 bytes.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli, run_tool


def test_model_states_of_a_round_72b_are_16_bytes_per_parameter():
    # zero-paper: mixed-precision Adam holds 2 (bf16 weights) + 2 (grads) + 12 (fp32 master,
    # m, v) = 16 bytes per parameter: 72e9 x 16 = 1152 GB, of which 72e9 x 12 = 864 GB optimizer.
    whole = run_tool("memory", {"params_b": 72, "workload": "full_finetune",
                                "gpus": 8})["whole_model_gb"]
    assert whole["model_states"] == pytest.approx(1152.0, abs=0.01)
    assert whole["optimizer"] == pytest.approx(864.0, abs=0.01)
    assert whole["weights"] == pytest.approx(144.0, abs=0.01)


def test_the_totals_do_not_depend_on_how_many_gpus_share_them():
    one = run_tool("memory", {"params_b": 13, "workload": "full_finetune"})["whole_model_gb"]
    many = run_tool("memory", {"params_b": 13, "workload": "full_finetune",
                               "gpus": 32})["whole_model_gb"]
    assert one == many
    assert one["model_states"] == pytest.approx(13 * 16, abs=0.01)  # 208 GB


def test_weights_at_common_precisions_of_a_round_70b():
    # 70e9 x 4 B = 280 GB (fp32), x 2 B = 140 GB (bf16), x 1 B = 70 GB (fp8); GGUF Q8_0 stores
    # 32 weights in 34 bytes (8.5 bits, gguf-quant-types): 70e9 x 8.5 / 8 = 74.4 GB, within
    # 1 % as its embeddings and head are kept at other types.
    found = run_tool("memory", {"params_b": 70, "workload": "inference"})[
        "weights_by_precision_gb"]
    assert found["fp32"] == pytest.approx(280.0, abs=0.01)
    assert found["bf16"] == pytest.approx(140.0, abs=0.01)
    assert found["fp8"] == pytest.approx(70.0, abs=0.01)
    assert found["q8_0"] == pytest.approx(74.4, rel=0.01)
    # Q4_K_M is about 4.85 bits per weight over a Llama-like model (gguf-quant-mixes):
    # 70e9 x 4.85 / 8 = 42.4 GB; 4 % covers the mix's share of 6-bit layers.
    assert found["q4_k_m"] == pytest.approx(42.4, rel=0.04)
    assert found["fp32"] > found["bf16"] > found["q8_0"] > found["q4_k_m"] > found["int4"]


def test_cluster_memory_is_the_gpus_memory_summed():
    # The catalog holds the H100 SXM 80GB at the 85,520,809,984 bytes its driver reports
    # (gpu-driver-memory#h100-80gb): 8 x 85.52 GB = 684.17 GB.
    result = run_tool("memory", {"params_b": 70, "workload": "inference", "gpu": "h100-sxm",
                                 "gpus": 8})
    assert result["cluster_memory_gb"] == pytest.approx(684.17, abs=0.01)


def test_a_fit_answer_states_the_model_states_and_the_cluster_memory():
    # "can I full fine-tune a 72B model on 8 A100 80GB": 72e9 x 16 B = 1152 GB of model states.
    out = json.loads(run_cli("ask", "--json",
                             "can I full fine-tune a 72B model on 8 A100 80GB?").stdout)
    assert "1,152" in out["markdown"] or "1152" in out["markdown"]
    assert "model states" in out["markdown"]
    assert "GPU memory of all 8 GPUs" in out["markdown"]
