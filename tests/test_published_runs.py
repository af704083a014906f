"""The step-time model against training runs published by others, on layouts and GPUs the
curve was not fitted on: BLOOM's layout benchmarks (one model, many layouts, A100) and
MosaicML's MPT runs on H100."""

from __future__ import annotations

import pytest

from clusterplan.assistant.respond import respond
from tests.conftest import run_tool

# bloom-topology-benchmarks#tp-sweep: 181B (72 layers, h = 14,336, 64 heads), s = 2,048, fp16,
# ZeRO-1, 384 A100 80GB. (DP, TP, PP, micro-batch, batch, measured seconds per iteration).
BLOOM_181B = [
    (8, 8, 6, 4, 2048, 114.11), (4, 8, 12, 4, 2048, 117.07), (8, 4, 12, 2, 2048, 110.48),
    (16, 4, 6, 2, 2048, 111.71), (16, 2, 12, 2, 2048, 112.50), (8, 2, 24, 1, 2048, 119.53),
    (4, 4, 24, 1, 2048, 130.60), (12, 8, 4, 4, 2016, 114.81),
    pytest.param((24, 8, 2, 2, 2016, 136.13), marks=pytest.mark.xfail(strict=True, reason=(
        "measured at 76 GB of 80 and 26% slower than the model: no term prices an allocator "
        "that full (bloom-topology-benchmarks#planner-check)"))),
]
BLOOM_VOCAB = 250880  # 250,680 padded to a multiple of 128 x TP, as Megatron-DeepSpeed pads


def _deepspeed_on_jean_zay(layers: int, hidden: int, **job) -> dict:
    """Jean Zay and Megatron-DeepSpeed as BLOOM ran them (bloom-topology-benchmarks): four
    100 Gb/s ports a node (priced as 100 Gb/s RoCE), fp16 without FP32 main gradients, ZeRO-1,
    full recompute, plain 1F1B with the gradients reduced after the backward pass, stages
    balanced against the output layer, attention scores in memory."""
    params = (12 * layers * hidden**2 + BLOOM_VOCAB * hidden) / 1e9
    return run_tool("parallelism", {
        "workload": "pretrain", "params_b": params, "layers": layers, "hidden": hidden,
        "heads": 64, "kv_heads": 64, "ffn_hidden": 4 * hidden, "vocab": BLOOM_VOCAB,
        "gpu": "a100", "gpus": 384, "seq_len": 2048, "zero_stages": [1], "recompute": ["full"],
        "sequence_parallel": False, "precision": "fp16", "inter_link": "roce-100",
        "nics_per_node": 4, "interleaved": False, "dp_overlap": False, "uneven_stages": True,
        "flash_attention": False, "top_k": 1000, **job})


@pytest.mark.parametrize("row", BLOOM_181B, ids=lambda r: f"dp{r[0]}-tp{r[1]}-pp{r[2]}")
def test_step_time_reproduces_blooms_layout_benchmarks_within_10_percent(row):
    dp, tp, pp, micro, batch, measured_s = row
    result = _deepspeed_on_jean_zay(72, 14336, global_batch=batch, micro_batches=[micro])
    plan = next(p for p in result["plans"] if (p["tp"], p["pp"]) == (tp, pp))
    assert plan["dp"] == dp
    assert plan["step_time_s"] == pytest.approx(measured_s, rel=0.10)


def test_without_tensor_parallelism_a_48_stage_pipeline_matches_bloom_too():
    # bloom-topology-benchmarks#tp1-pp48: 177B (96 layers, h = 12,288), DP 8, TP 1, PP 48,
    # micro-batch 1: 142.17 s. Two layers a stage plus a 250,880-word head (1.3 layers' worth)
    # would make the last stage the slowest; balanced, 47 stages of 3 layers leave it the head.
    result = _deepspeed_on_jean_zay(96, 12288, global_batch=2048, micro_batches=[1])
    plan = next(p for p in result["plans"] if (p["tp"], p["pp"]) == (1, 48))
    assert plan["step_time_s"] == pytest.approx(142.17, rel=0.10)


def test_tensor_parallel_4_beats_8_at_pipeline_12_as_bloom_measured():
    # At pipeline 12, TP 4 ran 110.48 s and TP 8 117.07 s (6% slower): the lesson of the sweep,
    # that a model which fits with less tensor parallelism runs faster with it.
    steps = {}
    for tp, micro in ((4, 2), (8, 4)):
        result = _deepspeed_on_jean_zay(72, 14336, global_batch=2048, micro_batches=[micro])
        steps[tp] = next(p for p in result["plans"] if (p["tp"], p["pp"]) == (tp, 12))
    assert steps[4]["step_time_s"] < steps[8]["step_time_s"]


# mfu-calibration#hopper-scale: MosaicML's MPT on H100 80GB, FSDP full sharding, s = 2,048.
# (d_model, layers, heads, parameters, GPUs, micro-batch, batch, checkpointing, MFU %).
MPT_H100 = [
    (2048, 24, 16, 1315950592, 8, 14, 112, False, 41.82),
    (2560, 32, 20, 2651837440, 16, 10, 480, False, 43.73),
    (4096, 32, 32, 6658859008, 8, 6, 48, False, 46.44),
    (5120, 40, 40, 12853954560, 8, 2, 16, False, 39.79),
    (5120, 40, 40, 12853954560, 64, 2, 128, False, 39.86),
    (7168, 48, 64, 29975214080, 32, 14, 1344, True, 43.92),
    (7168, 48, 64, 29975214080, 8, 3, 504, True, 38.11),
    (8192, 80, 64, 64862437376, 64, 8, 2048, True, 42.57),
    (8192, 80, 64, 64862437376, 32, 2, 1024, True, 36.15),
]


def _mpt_mfu(run: tuple, gpu: str, peak: float, **cluster) -> tuple[float, dict]:
    """The planner's MFU for one of MosaicML's runs (FSDP full sharding, TP 1, PP 1, s = 2,048),
    as MosaicML defines it: tokens/s x (6·N + 12·l·h·s) / (GPUs x dense peak)."""
    h, layers, heads, params, gpus, micro, batch, ckpt, _ = run
    result = run_tool("parallelism", {
        "workload": "pretrain", "params_b": params / 1e9, "layers": layers, "hidden": h,
        "heads": heads, "kv_heads": heads, "ffn_hidden": 4 * h, "vocab": 50368, "gpu": gpu,
        "gpus": gpus, "seq_len": 2048, "global_batch": batch, "zero_stages": [3],
        "micro_batches": [micro], "recompute": ["full" if ckpt else "none"],
        "hybrid_sharding": False, "top_k": 1000, **cluster})
    plan = next(p for p in result["plans"] if (p["tp"], p["pp"]) == (1, 1))
    tokens_per_s = batch * 2048 / plan["step_time_s"]
    return 100 * tokens_per_s * (6 * params + 12 * layers * h * 2048) / (gpus * peak), result


@pytest.mark.parametrize("run", MPT_H100, ids=lambda r: f"{r[3] / 1e9:.0f}B-{r[4]}gpus")
def test_h100_mfu_lands_near_mosaicmls_measured_runs(run):
    # The Hopper factor was fitted on these nine runs; its worst residual is 11.2% (the 13B
    # runs at micro-batch 2), so 12% holds them and catches a model that drifts.
    mfu, result = _mpt_mfu(run, "h100-sxm", 989.4e12)
    assert mfu == pytest.approx(run[-1], rel=0.12)
    assert any("x 0.86 on NVIDIA H100" in a for a in result["assumptions"])


# mfu-calibration#mosaicml-a100: the same table's A100 80GB runs (8 x 200 Gb/s RoCE a node),
# s = 2,048. Nothing was fitted on them: the A100 curve comes from Megatron-LM's Table 1.
MPT_A100 = [
    (2048, 24, 16, 1315950592, 8, 14, 448, False, 59.86),
    (2560, 32, 20, 2651837440, 8, 10, 160, False, 62.11),
    (4096, 32, 32, 6658859008, 8, 6, 96, False, 64.23),
    (5120, 40, 40, 12853954560, 8, 2, 48, False, 59.57),
    (7168, 48, 64, 29975214080, 8, 3, 504, True, 55.30),
    (8192, 80, 64, 64862437376, 64, 8, 2048, True, 53.33),
    (8192, 80, 64, 64862437376, 32, 2, 1024, True, 48.56),
]


@pytest.mark.parametrize("run", MPT_A100, ids=lambda r: f"{r[3] / 1e9:.0f}B-{r[4]}gpus")
def test_a100_mfu_of_runs_the_curve_never_saw(run):
    # Without activation checkpointing the model lands within 4% (1B to 13B); with it, it is
    # slower than measured by 4-16%: MosaicML's checkpointed runs reach 71-74% of peak in
    # executed FLOPs, above the 62% the curve holds at its largest fitted GEMMs.
    mfu, _ = _mpt_mfu(run, "a100", 312e12, inter_link="roce-200", nics_per_node=8)
    published, ckpt = run[-1], run[-2]
    if ckpt:
        assert published * 0.84 <= mfu <= published
    else:
        assert mfu == pytest.approx(published, rel=0.05)


def test_nanogpt_reproduction_of_gpt2_124m_takes_about_four_days_on_8_a100_40gb(memory_store):
    # karpathy/nanoGPT README: train.py reproduces GPT-2 (124M) on OpenWebText "on a single
    # 8XA100 40GB node in about 4 days"; config/train_gpt2.py: 600,000 steps of 491,520 tokens
    # (pretraining-tokens#nanogpt-gpt2). "About 4 days" is read as 3.5 to 4.5: within 15%.
    answer = respond("how long to pretrain gpt2 on 8x A100 40GB?")
    assert answer.intent.slots["model"] == "gpt2-124m"
    days = answer.data["parallelism"]["training_days"]
    assert days == pytest.approx(4.0, rel=0.15)
    # GPT-2's context is 1,024 tokens: the assumed sequence never exceeds it
    assert answer.intent.assumed["seq_len"] == 1024
