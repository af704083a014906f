"""ZeRO-3 at scale against published FSDP runs, and where the search stops choosing it."""

from __future__ import annotations

import pytest

from tests.conftest import run_tool

# zero3-at-scale#fsdp-175b: minGPT-175B, vocabulary 50,000, s = 2,048 (GPT-3's shape: l = 96,
# h = 12,288, FFN 4h), full checkpointing, BF16, 2 Tb/s RoCE a node = ten 200 Gb/s ports.
GPT_175B = dict(params_b=(12 * 96 * 12288**2 + 50000 * 12288) / 1e9, layers=96, hidden=12288,
                heads=96, kv_heads=96, ffn_hidden=4 * 12288, vocab=50000)


def _fsdp(gpus: int, per_gpu: int) -> dict:
    result = run_tool("parallelism", {
        "workload": "train", **GPT_175B, "gpu": "a100", "gpus": gpus, "seq_len": 2048,
        "global_batch": gpus * per_gpu, "zero_stages": [3], "recompute": ["full"],
        "micro_batches": [per_gpu], "inter_link": "roce-200", "nics_per_node": 10,
        "top_k": 1000})
    return next(p for p in result["plans"] if p["tp"] == 1 and p["pp"] == 1)


def _tflops(plan: dict, per_gpu: int) -> float:
    # FSDP counts hardware FLOPs (55% of 312 for 173): Narayanan et al.'s per-iteration count
    # with recompute, 96·B·s·l·h²·(1 + s/6h + V/16lh), B = sequences per GPU here.
    h, s, lay, v = 12288, 2048, 96, 50000
    flops = 96 * per_gpu * s * lay * h**2 * (1 + s / (6 * h) + v / (16 * lay * h))
    return flops / plan["step_time_s"] / 1e12


@pytest.mark.parametrize("per_gpu, published", [(1, 173), (2, 186)])
def test_fsdp_175b_per_gpu_tflops_at_or_above_the_published_lower_bound(per_gpu, published):
    # Published as "more than 173 / 186" (zero3-at-scale#fsdp-175b): lower bounds, so the
    # planner must not predict less. Its curve, fitted on Megatron-LM's fused kernels, reads
    # 194 at both (these GEMMs sit at the curve's cap, the 1T row's shapes); FSDP ran minGPT in
    # eager PyTorch. Held within 12% above, the gap at one sequence a GPU.
    plan = _fsdp(512, per_gpu)
    assert published <= _tflops(plan, per_gpu) <= published * 1.12
    assert plan["zero_stage"] == 3 and plan["dp"] == 512


def test_fsdp_175b_scales_linearly_from_128_to_512_gpus_as_published():
    # zero3-at-scale#fsdp-linear: per-GPU TFLOPS flat at a fixed number of sequences a GPU.
    # A layer's gather, 12·h² x 2 B = 3.62 GB, is the same at every size and hides under the
    # layer's compute at both; only the ring latency grows (48 more steps of 2.7 us from 16 to
    # 64 nodes, still hidden), so the two agree within 1%.
    small, large = _fsdp(128, 1), _fsdp(512, 1)
    assert _tflops(large, 1) == pytest.approx(_tflops(small, 1), rel=0.01)


def _gpt_145b(**extra) -> dict:
    return run_tool("parallelism", {
        "workload": "train", "params_b": 145.6, "layers": 80, "hidden": 12288, "heads": 96,
        "kv_heads": 96, "vocab": 51200, "gpu": "a100", "gpus": 1536, "seq_len": 2048,
        "global_batch": 2304, "top_k": 1000, **extra})


def test_zero3_gathers_hide_on_a_port_per_gpu_and_not_on_one_port_per_node():
    # zero3-at-scale#why-zero3-ranks-first. TP 2, DP 768, one sequence per micro-batch: a
    # layer's gather is 145.6e9 / 80 / 2 x 2 B = 1.82 GB. With a 400 Gb/s (50 GB/s) NDR port
    # per GPU a node of 4 DP ranks pulls 1.82 GB x 191/192 through 4 ports: 9 ms, plus 5.7 ms
    # on NVLink and 1.6 ms of ring hops (767 x 2.7 us, less the 0.5 ms the hierarchical price
    # holds), under the layer's ~20 ms forward, so nothing is exposed. With one 400 Gb/s
    # port for the whole node it is 1.82 / 50 = 36 ms a gather, three collectives a layer
    # forward and backward: far more than the compute hides.
    fast = _gpt_145b(inter_link="ib-ndr")
    slow = _gpt_145b(inter_link="roce-400", nics_per_node=1)

    def zero3_tp2(result):
        return next(p for p in result["plans"] if (p["tp"], p["pp"], p["dp"], p["zero_stage"],
                                                   p["micro_batch"], p["recompute"])
                    == (2, 1, 768, 3, 1, "none"))

    assert zero3_tp2(fast)["dp_comm_s"] < 0.01 * zero3_tp2(fast)["compute_s"]
    exposed = zero3_tp2(slow)["dp_comm_s"]
    assert exposed > 0.8 * zero3_tp2(slow)["compute_s"]
    best = slow["plans"][0]
    assert (best["tp"], best["dp"]) != (2, 768)
    assert best["step_time_s"] < 0.6 * zero3_tp2(slow)["step_time_s"]


def test_a_ring_over_8192_ranks_pays_a_hop_a_rank_and_stops_hiding():
    # zero3-at-scale#planner-model. Llama 3 8B (8,030,261,248 parameters, 32 layers), one
    # 4,096-token sequence per H100, full recompute, ZeRO-3 over every GPU (HSDP off), NDR.
    def flat(gpus):
        result = run_tool("parallelism", {
            "workload": "train", "model": "llama-3-8b", "gpu": "h100", "gpus": gpus,
            "seq_len": 4096, "global_batch": gpus, "zero_stages": [3], "micro_batches": [1],
            "recompute": ["full"], "hybrid_sharding": False, "top_k": 1000})
        return next(p for p in result["plans"] if (p["tp"], p["pp"]) == (1, 1))

    plan = flat(8192)
    # A layer's gather: 8.03e9 x 2 B / 32 = 501.9 MB. Over 1,024 nodes of 8: the network leg
    # moves 1023/1024 / 8 of it through a 50 GB/s port (1.2537 ms), NVLink 7/8 of it at
    # 370.8 GB/s (1.1844 ms); a ring of 8,192 ranks waits 8,191 hops of 2.7 us (22.116 ms), of
    # which the hierarchical layout's own 1,023 x 2.7 + 7 x 0.6 us (2.7663 ms) are already in
    # its price. Reduce-scatter costs the same.
    size = 8_030_261_248 * 2 / 32
    gather = (1023 / 1024 / 8 * size / 50e9 + 1023 * 2.7e-6 + 7 / 8 * size / 370.8e9
              + 7 * 0.6e-6 + (8191 * 2.7e-6 - 1023 * 2.7e-6 - 7 * 0.6e-6))
    # With full recompute a layer's forward is a quarter of its compute, backward the rest.
    layer = plan["compute_s"] / 32
    exposed = 32 * ((gather - layer / 4) + (2 * gather - layer * 3 / 4))
    assert plan["dp_comm_s"] == pytest.approx(exposed, rel=0.005)  # 1 byte and 1/50e9 s left out
    assert plan["dp_comm_s"] > 2 * plan["compute_s"]
    # Over 512 ranks the hops are 511 x 2.7 us = 1.4 ms and the gathers hide again.
    assert flat(512)["dp_comm_s"] == 0
