"""Serving layouts from the parallelism tool: the fewest GPUs per replica, and decode speed
bounded by HBM bandwidth, against datasheet figures and hand arithmetic."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli, run_tool

LLAMA_70B_BF16_GB = 70.55 * 2  # 70.55 B parameters x 2 bytes = 141.1 GB (model-llama-3)
LLAMA_405B_BF16_GB = 405.85 * 2  # 811.7 GB
H100_HBM_TB_S = 3.35  # NVIDIA H100 SXM datasheet
H100_BF16 = 989.4e12


def _serve(**payload):
    return run_tool("parallelism", {"workload": "inference", **payload})


def test_llama_3_70b_bf16_needs_at_least_two_h100_per_replica():
    # 141.1 GB of weights cannot sit in one H100 (81,559 MiB = 85.52 GB).
    result = _serve(model="llama-3-70b", gpu="h100", gpus=8)
    assert result["fits"] is True
    best = result["plans"][0]
    assert best["gpus_per_replica"] >= 2 and best["tp"] * best["pp"] == best["gpus_per_replica"]
    assert best["replicas"] == 8 // best["gpus_per_replica"]
    example = result["rejected_examples"]["weights and KV cache do not fit in GPU memory"]
    assert example["tp"] == 1 and example["per_gpu_gb"] > LLAMA_70B_BF16_GB
    assert all(p["gpus_per_replica"] >= 2 for p in result["plans"])


def test_405b_bf16_fits_one_8xh200_node():
    # 811.7 GB of weights against 8 x 143,771 MiB = 8 x 150.75 = 1,206 GB.
    result = _serve(model="llama-3.1-405b", gpu="h200", gpus=8)
    assert result["fits"] is True
    best = result["plans"][0]
    assert best["tp"] == 8 and best["pp"] == 1 and best["replicas"] == 1
    assert LLAMA_405B_BF16_GB / 8 < best["per_gpu_gb"] < 143_771 * 2**20 / 1e9


def test_405b_bf16_does_not_fit_one_8xh100_node():
    # 811.7 GB against 8 x 85.52 = 684.2 GB (81,559 MiB each): it needs more than 9 GPUs, so
    # two nodes (tp 8, pp 2).
    result = _serve(model="llama-3.1-405b", gpu="h100", gpus=8)
    assert result["fits"] is False and result["plans"] == []
    assert result["verdict"].startswith("does not fit")
    smallest = result["smallest_cluster"]
    assert smallest["gpus"] == 16 and smallest["nodes"] == 2
    assert smallest["layout"] == {"tp": 8, "pp": 2}


def test_decode_is_bounded_by_hbm_bandwidth():
    # One sequence on tp = 8: each GPU reads 141.1 / 8 = 17.64 GB of weights per token; at
    # 80% of 3.35 TB/s (the share weight reads reach, serving-latency#weights-read-efficiency)
    # that is 6.58 ms, the floor of the time per output token. Each of the 80 layers adds a
    # fixed 54 us of kernels and two small all-reduces of 9 us (serving-latency#layer-overhead,
    # #small-all-reduce): 5.76 ms. NVIDIA NIM measured 14.22 ms for this model and layout
    # (FP16, one request, 200 tokens in and out; tests/data/decode_latency).
    result = _serve(model="llama-3-70b", gpu="h100", gpus=8, concurrency=1)
    plan = next(p for p in result["plans"] if p["tp"] == 8)
    floor_ms = LLAMA_70B_BF16_GB / 8 / (H100_HBM_TB_S * 1e3 * 0.8) * 1e3
    assert floor_ms == pytest.approx(6.581, rel=1e-3)
    fixed_ms = 80 * (54 + 2 * 9) / 1e3
    assert plan["decode_overhead_ms"] == pytest.approx(fixed_ms, rel=1e-9)
    assert floor_ms + fixed_ms < plan["time_per_output_token_ms"] < 1.1 * (floor_ms + fixed_ms)
    assert plan["time_per_output_token_ms"] == pytest.approx(14.22, rel=0.1)
    assert plan["decode_bound"] == "memory bandwidth"
    assert plan["decode_tokens_per_s_per_replica"] < 1000 / floor_ms


def test_prefill_is_bounded_by_compute():
    # 8 GPUs at 989.4 TFLOP/s over 2 x 70.55e9 FLOPs a token: at most 56,094 tokens/s.
    result = _serve(model="llama-3-70b", gpu="h100", gpus=8)
    plan = next(p for p in result["plans"] if p["tp"] == 8)
    ceiling = 8 * H100_BF16 / (2 * 70.55e9)
    assert ceiling == pytest.approx(56094, rel=1e-4)
    assert 0.3 * ceiling < plan["prefill_tokens_per_s_per_replica"] < ceiling


def test_kv_cache_for_concurrency_and_context_grows_the_replica():
    # 64 sequences of 8,192 tokens at 327,680 bytes a token (2 x 80 x 8 x 128 x 2) is
    # 171.8 GB of KV cache on top of 141.1 GB of weights, 312.9 GB: more than 2 H100s but
    # within 4 x 81,559 MiB = 4 x 85.52 = 342.1 GB, so tp = 4 and 16 GPUs make 4 replicas.
    assert 2 * 81_559 * 2**20 / 1e9 < 171.8 + 141.1 < 4 * 81_559 * 2**20 / 1e9
    result = _serve(model="llama-3-70b", gpu="h100", gpus=16, concurrency=64, context_len=8192)
    assert result["plans"][0]["gpus_per_replica"] == 4
    assert result["plans"][0]["replicas"] == 4


def test_kv_capacity_counts_the_free_memory_of_the_replica():
    # tp = 8 on H100: capacity x 327,680 bytes fits in 8 x 81,559 MiB (the driver's total,
    # 85.52 GB each) less the weights.
    result = _serve(model="llama-3-70b", gpu="h100", gpus=8)
    plan = next(p for p in result["plans"] if p["tp"] == 8)
    most = (8 * 81_559 * 2**20 - LLAMA_70B_BF16_GB * 1e9) / 327_680
    assert 0.9 * most < plan["kv_capacity_tokens"] < most


def test_a_latency_target_pushes_to_more_tensor_parallelism():
    # 15 ms per token: tp = 4 reads 141.1 / 4 / (3.35 x 0.8) = 13.2 ms of weights and pays
    # 80 x (54 + 2 x 9) us = 5.8 ms of fixed cost, 19 ms; tp = 8 halves the read, about 13 ms.
    result = _serve(model="llama-3-70b", gpu="h100", gpus=8, target_latency_ms=15)
    assert [p["tp"] for p in result["plans"]] == [8]
    assert result["rejected"]["misses the per-token latency target"] >= 1


def test_a_throughput_target_names_the_gpus_it_needs():
    result = _serve(model="llama-3-70b", gpu="h100", gpus=8, concurrency=16,
                    target_tokens_per_s=5000)
    best = result["plans"][0]
    replicas = -(-5000 // best["decode_tokens_per_s_per_replica"])
    assert result["gpus_needed_for_target"] == replicas * best["gpus_per_replica"]


def test_serving_bad_input_is_one_line():
    result = run_cli("tool", "parallelism", "--input",
                     '{"model": "llama-3-70b", "gpu": "h100", "gpus": 8, '
                     '"workload": "inference", "concurrency": -1}')
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "concurrency" in lines[0]


@pytest.mark.parametrize(("sequences", "touched"), [(1, 2.0), (8, 8 * (1 - 0.75**8))])
def test_a_moe_decode_step_reads_the_experts_its_tokens_were_routed_to(sequences, touched):
    # Mixtral 8x7B (model-mixtral): 46.7e9 parameters, 12.9e9 active, 2 of 8 experts a token.
    # Routed experts hold (46.7 - 12.9) x 8/6 = 45.07e9, the rest 1.63e9. A step of c sequences
    # touches 8(1 - (6/8)^c) experts a layer (model-mixtral#decode-experts-read): 2 at c = 1,
    # 7.20 at c = 8. On 2 H100 (TP 2) each GPU reads 46.7 GB x (1.63/46.7 + 45.07/46.7 x t/8)
    # at 80% of 3.35 TB/s plus its half of the KV cache (131,072 B a token x 4,096 x c / 2) at
    # 50% of it (serving-latency#weights-read-efficiency, #kv-read-efficiency), and 32 layers
    # pay 54 us of kernels and two small all-reduces of 9 us (#layer-overhead,
    # #small-all-reduce); the TP all-reduces' bandwidth adds about 2%.
    experts = (46.7 - 12.9) * 8 / 6
    share = (46.7 - experts) / 46.7 + experts / 46.7 * touched / 8
    kv_gb = 131072 * 4096 * sequences / 2 / 1e9
    hand_ms = (46.7 * share / 0.8 + kv_gb / 0.5) / 3.35 + 32 * (54 + 2 * 9) / 1e3
    result = _serve(model="mixtral-8x7b", gpu="h100", gpus=2, concurrency=sequences,
                    context_len=4096)
    plan = result["plans"][0]
    assert (plan["tp"], plan["pp"]) == (2, 1)
    assert plan["time_per_output_token_ms"] == pytest.approx(hand_ms, rel=0.04)


def test_tp2_on_a_bridged_pair_all_reduces_over_the_bridge():
    # Two RTX 3090 joined by their NVLink bridge (GA102 whitepaper: 4 x 14.0625 = 56.25 GB/s
    # each way) against the same pair forced onto PCIe 4.0 x16 (31.5 GB/s line rate, 24 GB/s
    # usable): with 32 sequences of 2,048 tokens in flight each layer's two all-reduces carry
    # 32 x 4,096 x 2 B = 262 kB, so the bridge must give the shorter token time.
    job = {"model": "llama-3-8b", "gpu": "rtx-3090", "gpus": 2, "concurrency": 32,
           "context_len": 2048, "precision": "fp16"}
    bridged = {p["tp"]: p for p in _serve(**job)["plans"]}
    pcie = {p["tp"]: p for p in _serve(**job, intra_link="pcie-4")["plans"]}
    assert bridged[2]["time_per_output_token_ms"] < pcie[2]["time_per_output_token_ms"]


def test_a_prime_layer_count_is_served_in_unequal_stages_where_the_smallest_cluster_said():
    # DeepSeek-V3 has 61 layers, a prime: two pipeline stages hold 31 and 30, as serving engines
    # split them. Its FP8 weights, 671e9 x 1 B = 671 GB, over 16 H100 are 41.9 GB a GPU (the
    # 31-layer stage a little more): 16 GPUs serve it, as the smallest-cluster search says,
    # instead of "no layout fits" on the very cluster it names.
    result = _serve(model="deepseek-v3", gpu="h100", gpus=16, precision="fp8", concurrency=1)
    assert result["smallest_cluster"] is None or result["smallest_cluster"]["gpus"] == 16
    plan = result["plans"][0]
    assert (plan["tp"], plan["pp"]) == (8, 2)
    assert 671 / 16 < plan["per_gpu_gb"] < 85.5
