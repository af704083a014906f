"""The memory tool against figures from papers, model configs and hand arithmetic.

Every expected number is written here with where it comes from; none is copied from the
tool's own output. GB = 1e9 bytes throughout.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli, run_tool


def memory(**payload) -> dict:
    return run_tool("memory", payload)


# --- weights -----------------------------------------------------------------------------

def test_llama_3_70b_bf16_weights_are_about_141_gb():
    # Llama 3 70B has 70.6B parameters (Meta's model card, rounded); 70.6e9 x 2 bytes = 141.2 GB.
    result = memory(model="Llama 3 70B", workload="inference", precision="bf16")
    assert result["breakdown_gb"]["weights"] == pytest.approx(141.2, rel=0.002)


def test_a_round_70b_at_bf16_is_the_source_notes_140_gb():
    # memory-sizing: "70B x 2 bytes = 140 GB".
    result = memory(params_b=70, workload="inference", precision="bf16")
    assert result["breakdown_gb"]["weights"] == pytest.approx(140.0, abs=0.001)


def test_names_a_person_types_find_the_same_model():
    ids = {memory(model=name, workload="inference")["model"]
           for name in ("Llama 3 70B", "llama-3-70b", "llama3 70b")}
    assert ids == {"llama-3-70b"}


# --- ZeRO (Rajbhandari et al. 2019, Figure 1: Psi = 7.5B, Nd = 64, K = 12) ----------------

@pytest.mark.parametrize(("stage", "paper_gb"), [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_paper_example_model_states_per_gpu(stage, paper_gb):
    # (2 + 2 + 12) x 7.5 = 120; 4 x 7.5 + 12 x 7.5/64 = 31.4; 2 x 7.5 + 14 x 7.5/64 = 16.6;
    # 16 x 7.5/64 = 1.875, printed as 1.9 in the paper.
    result = memory(params_b=7.5, workload="pretrain", precision="fp16", optimizer="adamw",
                    dp=64, zero_stage=stage)
    assert result["model_states_gb"] == pytest.approx(paper_gb, abs=0.05)


def test_70b_full_finetune_needs_about_16_bytes_per_parameter_and_does_not_fit_8_h100():
    # ZeRO's 2 + 2 + 12 = 16 bytes/param: 16 x 70.6e9 = 1.13 TB of model states, against
    # 8 x 81,559 MiB = 8 x 85.52 = 684.2 GB on one H100 node (nvidia-smi's total; the source
    # note claims training fits there).
    result = memory(model="llama-3-70b", workload="full_finetune", optimizer="adamw",
                    gpu="h100", gpus=8)
    assert result["model_states_gb"] * 8 == pytest.approx(16 * 70.6, rel=0.002)
    assert result["total_gb"] > 8 * 81_559 * 2**20 / 1e9
    assert result["fits"] is False and result["headroom_gb"] < 0


def test_checkpoint_writes_weights_and_optimizer_states():
    # BF16 weights (2) + FP32 master, m, v (12) = 14 bytes/param x 70.6e9 = 988 GB.
    result = memory(model="llama-3-70b", workload="full_finetune", gpus=8)
    assert result["checkpoint_gb"] == pytest.approx(14 * 70.6, rel=0.002)


@pytest.mark.parametrize(("optimizer", "k_bytes"), [
    ("adamw", 12.0),                     # ZeRO paper K = 12
    ("adamw_8bit", 4 + 2 * (1 + 4 / 2048)),  # master 4 + two 8-bit states, FP32 per 2048 block
    ("sgd_momentum", 8.0),               # master 4 + momentum 4
    ("lion", 8.0),                       # master 4 + one momentum 4 (Chen et al. 2023)
])
def test_optimizer_states_per_parameter(optimizer, k_bytes):
    # One GPU, 1B parameters: optimizer GB = K bytes x 1e9 / 1e9 = K.
    result = memory(params_b=1, workload="pretrain", optimizer=optimizer, zero_stage=0)
    assert result["breakdown_gb"]["optimizer"] == pytest.approx(k_bytes, abs=0.001)


def test_adafactor_keeps_a_factored_second_moment():
    # Hidden 4096: factored stats 4 bytes x 2/4096 per parameter, plus the FP32 master 4.
    result = memory(params_b=1, hidden=4096, workload="pretrain", optimizer="adafactor",
                    zero_stage=0)
    assert result["breakdown_gb"]["optimizer"] == pytest.approx(4 + 8 / 4096, abs=0.001)


# --- KV cache ----------------------------------------------------------------------------

def test_llama_3_70b_kv_cache_per_token_at_bf16():
    # 2 (K and V) x 80 layers x 8 KV heads x 128 head_dim x 2 bytes = 327,680 bytes.
    result = memory(model="llama-3-70b", workload="inference")
    assert result["kv_cache_bytes_per_token"] == 327_680


def test_kv_cache_of_a_batch_on_one_gpu():
    # 327,680 bytes x 8 sequences x 8,192 tokens = 21.47 GB.
    result = memory(model="llama-3-70b", workload="inference", batch=8, context_len=8192)
    assert result["breakdown_gb"]["kv_cache"] == pytest.approx(21.475, abs=0.001)


def test_deepseek_v3_mla_caches_one_576_wide_latent():
    # 61 layers x (512 + 64) x 2 bytes = 70,272 bytes (DeepSeek-V3 config, MLA).
    result = memory(model="deepseek-v3", workload="inference", kv_precision="bf16")
    assert result["kv_cache_bytes_per_token"] == 70_272


def test_gpt_3_multi_head_attention_keeps_every_head():
    # 2 x 96 layers x 96 heads x 128 x 2 bytes = 4,718,592 bytes.
    assert memory(model="gpt-3-175b", workload="inference")["kv_cache_bytes_per_token"] \
        == 4_718_592


# --- MoE ---------------------------------------------------------------------------------

def test_moe_stores_every_expert_and_ep_divides_them():
    # Mixtral 8x7B: 46.7B total, 12.9B active, 8 experts, 2 per token (Jiang et al. 2024).
    # All weights: 46.7 x 2 = 93.4 GB. Expert parameters X: 46.7 - 12.9 = X x (1 - 2/8), so
    # X = 45.07B and dense 1.63B; with ep = 8: (1.63 + 45.07/8) x 2 bytes = 14.53 GB.
    whole = memory(model="mixtral 8x7b", workload="inference")
    spread = memory(model="mixtral 8x7b", workload="inference", dp=8, ep=8)
    assert whole["breakdown_gb"]["weights"] == pytest.approx(93.4, abs=0.01)
    assert spread["breakdown_gb"]["weights"] == pytest.approx(14.53, abs=0.01)


# --- QLoRA (Dettmers et al. 2023) ------------------------------------------------------------

LLAMA_65B = dict(params_b=65.2, layers=80, hidden=8192, heads=64, kv_heads=64,
                 ffn_hidden=22016, vocab=32000)  # LLaMA paper, Table 2


def test_qlora_fine_tunes_65b_on_one_48_gb_gpu():
    # The paper's headline; r = 64 on all linear layers, 16-bit adapters, checkpointing.
    result = memory(**LLAMA_65B, workload="qlora", lora_rank=64, master_weights=False,
                    seq_len=512, recompute="full", gpu="l40s", gpus=1)
    assert result["fits"] is True
    # NF4 with double-quantised constants, (4 + 0.127)/8 bytes, on every linear layer; the
    # embedding and the head (2 x 32000 x 8192 = 0.524B) stay at 2 bytes, as bitsandbytes
    # leaves them: 64.676 x 0.5159 + 0.524 x 2 = 34.41 GB of frozen base.
    ends = 2 * 32000 * 8192 / 1e9
    base_gb = (65.2 - ends) * (4 + 0.127) / 8 + ends * 2
    # Adapters: per layer 64 x (4 x (8192 + 8192) + 3 x (8192 + 22016)) = 9,994,240
    # parameters, x 80 layers = 0.7995B, at 2 bytes = 1.6 GB.
    assert result["breakdown_gb"]["weights"] == pytest.approx(base_gb + 0.7995 * 2, abs=0.01)
    assert result["breakdown_gb"]["optimizer"] == pytest.approx(0.7995 * 8, abs=0.01)


def test_qlora_defaults_to_gradient_checkpointing_and_says_so():
    result = memory(model="llama-3-70b", workload="qlora")
    assert any(a.startswith("recompute: full") for a in result["assumptions"])
    # 2·s·b·h per layer: 2 x 4096 x 8192 x 80 layers = 5.37 GB, plus one layer rebuilt with
    # FlashAttention, s·b·h·(10 + 4·(a + kv)·d/h + 6·f/h): grouped-query attention with a = 64,
    # kv = 8, d = 128 gives 4 x 72 x 128/8192 = 4.5, Llama's gated MLP (f = 28672 = 3.5h)
    # 6 x 3.5 = 21: 35.5 x 4096 x 8192 = 1.19 GB.
    expected = (2 * 4096 * 8192 * 80 + 35.5 * 4096 * 8192) / 1e9
    assert result["breakdown_gb"]["activations"] == pytest.approx(expected, abs=0.002)


def test_16_bit_lora_of_65b_does_not_fit_48_gb():
    # 65.2e9 x 2 bytes = 130 GB of frozen BF16 base alone.
    result = memory(**LLAMA_65B, workload="lora", gpu="l40s", gpus=1)
    assert result["fits"] is False


# --- activations (Korthikanti et al. 2022, Table 2) ------------------------------------------

# GPT-3 175B (Brown et al. 2020): s = 2048, h = 12288, a = 96, 96 layers; b = 1, t = 8.
# s·b·h = 25,165,824; 5·a·s/h = 5 x 96 x 2048 / 12288 = 80.
SBH, LAYERS = 2048 * 12288, 96


@pytest.mark.parametrize(("settings", "per_layer"), [
    ({"tp": 1, "flash_attention": False}, SBH * (34 + 80)),
    ({"tp": 8, "flash_attention": False}, SBH * (10 + 24 / 8 + 80 / 8)),
    ({"tp": 8, "flash_attention": False, "sequence_parallel": True}, SBH * (34 / 8 + 80 / 8)),
    ({"tp": 8, "flash_attention": False, "recompute": "selective"}, SBH * (10 + 24 / 8)),
    ({"tp": 8, "flash_attention": False, "recompute": "selective", "sequence_parallel": True},
     SBH * 34 / 8),
    ({"tp": 8, "flash_attention": True}, SBH * (10 + 24 / 8)),
])
def test_activation_variants_by_hand(settings, per_layer):
    result = memory(model="gpt-3-175b", workload="pretrain", seq_len=2048, micro_batch=1,
                    **settings)
    assert result["breakdown_gb"]["activations"] == pytest.approx(per_layer * LAYERS / 1e9,
                                                                   abs=0.002)


# Llama 2 7B (its config.json): h = 4096, f = 11008, a = 32, 32 layers; s = 4096, b = 1.
# Its MLP is gated (SwiGLU: gate, up, down), so the MLP keeps 2·s·b·h (input) + s·b·h (dropout
# mask) unsplit and 6·s·b·f split: 6 x 11008/4096 = 16.125 in units of s·b·h, against GPT's
# 16 for a 4h GELU MLP. Per layer: unsplit 10, split 8 + 16.125 = 24.125; 5·a·s/h = 160.
L2_SBH, L2_LAYERS = 4096 * 4096, 32


@pytest.mark.parametrize(("settings", "per_layer"), [
    ({"tp": 1, "flash_attention": False}, L2_SBH * (10 + 24.125 + 160)),
    ({"tp": 4, "flash_attention": True}, L2_SBH * (10 + 24.125 / 4)),
    ({"tp": 4, "flash_attention": False, "sequence_parallel": True},
     L2_SBH * (34.125 / 4 + 160 / 4)),
    ({"tp": 4, "recompute": "selective", "sequence_parallel": True}, L2_SBH * 34.125 / 4),
])
def test_swiglu_activations_of_llama_2_7b_by_hand(settings, per_layer):
    result = memory(model="llama-2-7b", workload="pretrain", seq_len=4096, micro_batch=1,
                    **settings)
    assert result["breakdown_gb"]["activations"] == pytest.approx(
        per_layer * L2_LAYERS / 1e9, abs=0.002)  # the tool rounds GB to 3 places


def test_swiglu_width_shows_in_the_activation_step():
    # Qwen2.5 7B's MLP is 18944 wide on h = 3584: 6 x 18944/3584 = 31.714 per s·b·h; its
    # attention has a = 28 query and kv = 4 key/value heads of d = 128: 4 x 32 x 128/3584 =
    # 4.571 (GPT's 8 with a = kv). One layer keeps s·b·h·(10 + 36.29/t) with FlashAttention,
    # 1.5 times GPT's 24/t; at tp = 1, s = 4096: 46.286 x 4096 x 3584 x 28 layers = 19.03 GB.
    result = memory(model="qwen2.5-7b", workload="pretrain", seq_len=4096, micro_batch=1)
    split = 4 * 32 * 128 / 3584 + 6 * 18944 / 3584
    assert result["breakdown_gb"]["activations"] == pytest.approx(
        (10 + split) * 4096 * 3584 * 28 / 1e9, abs=0.002)
    [act] = [s for s in result["steps"] if s["label"] == "activations"]
    assert "36.29" in act["formula"] and "activation-memory#gated-mlp" in act["notes"]


def test_full_recompute_keeps_layer_inputs_plus_one_rebuilt_layer():
    # 2·s·b·h per layer x 96, plus one layer rebuilt during backward: s·b·h·(10 + 24/8 + 80/8).
    result = memory(model="gpt-3-175b", workload="pretrain", seq_len=2048, tp=8,
                    flash_attention=False, recompute="full")
    expected = (2 * SBH * LAYERS + SBH * 23) / 1e9
    assert result["breakdown_gb"]["activations"] == pytest.approx(expected, abs=0.002)


def test_pipeline_first_stage_holds_pp_micro_batches():
    # 1F1B: 96/4 = 24 layers x 4 micro-batches in flight = 96 layers' worth (default), or
    # 24 layers x 1 when the caller says one micro-batch is in flight.
    per_layer = SBH * 13  # t = 8, FlashAttention: 10 + 24/8
    full = memory(model="gpt-3-175b", workload="pretrain", tp=8, pp=4)
    one = memory(model="gpt-3-175b", workload="pretrain", tp=8, pp=4, microbatches_in_flight=1)
    assert full["breakdown_gb"]["activations"] == pytest.approx(per_layer * 96 / 1e9, abs=0.002)
    assert one["breakdown_gb"]["activations"] == pytest.approx(per_layer * 24 / 1e9, abs=0.002)


def test_first_pipeline_stage_holds_the_input_embedding():
    # GPT-3 175B (tied embedding, vocabulary 50,257 x hidden 12,288 = 617,558,016 parameters)
    # at tp 8, pp 8, dp 1: the first stage holds 12 of the 96 layers and the embedding whole,
    # (175e9 - 617,558,016) x 12/96 + 617,558,016 parameters, split over 8 GPUs by tp:
    # 2,734,375,000 + 67,545,408 = 2,801,920,408 a GPU, x 16 bytes (2 weights + 2 gradients +
    # 12 AdamW with master weights) = 44.831 GB; an even 1/64 gave 43.750 GB, 1.08 GB less.
    # At pp 1 there is nothing to move: 175e9/8 x 16 = 350 GB.
    staged = memory(model="gpt-3-175b", workload="pretrain", precision="bf16", optimizer="adamw",
                    tp=8, pp=8, dp=1)
    assert staged["model_states_gb"] == pytest.approx(2_801_920_408 * 16 / 1e9, abs=0.001)
    whole = memory(model="gpt-3-175b", workload="pretrain", precision="bf16", optimizer="adamw",
                   tp=8, pp=1, dp=1)
    assert whole["model_states_gb"] == pytest.approx(175e9 / 8 * 16 / 1e9, abs=0.001)


# --- fit, fewest GPUs, defaults, citations --------------------------------------------------

def test_fewest_gpus_for_llama_3_70b_bf16_inference():
    # 141.1 GB of weights, with KV cache, activations and overhead about 151.3 GB: over one
    # H100 (81,559 MiB = 85.52 GB) and, by half a GB, one H200 (143,771 MiB = 150.75 GB);
    # half of it fits an H100; a B200 (183,359 MiB = 192.27 GB) holds it alone.
    result = memory(model="llama-3-70b", workload="inference")
    assert result["min_gpus"]["h100-sxm"] == 2
    assert result["min_gpus"]["h200-sxm"] == 2
    assert result["min_gpus"]["b200-sxm"] == 1


def test_fewest_gpus_for_llama_3_1_405b_bf16_inference():
    # 405.85B x 2 bytes = 811.7 GB. Split 8 ways that is 101.5 GB a GPU: too much for an
    # H100 (85.52 GB as the driver reports it), so 16; within an H200 (150.75 GB), B200
    # (192.27 GB) and MI300X (206.14 GB), so 8; split 4 ways (203 GB of weights, more once KV
    # and overhead are added) it fits none of them.
    found = memory(model="llama 3.1 405b", workload="inference")["min_gpus"]
    assert (found["h100-sxm"], found["h200-sxm"], found["b200-sxm"], found["mi300x"]) == \
        (16, 8, 8, 8)


def test_defaults_are_listed_as_assumptions():
    said = " | ".join(memory(model="llama-3-8b")["assumptions"])
    for default in ("workload: inference", "batch: 1", "context_len: 4096", "precision: bf16",
                    "CUDA context", "fragmentation"):
        assert default in said


def test_flash_attention_and_paging_defaults_are_stated():
    said = " | ".join(memory(model="llama-3-8b", workload="inference")["assumptions"])
    assert "flash_attention: on" in said and "paging: on" in said


def test_paging_rounds_each_sequence_up_to_16_token_pages():
    # Llama 3 8B: 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 bytes per token.
    # 100 tokens occupy 7 pages of 16 = 112 tokens; 4 sequences: 4 x 112 x 131,072 bytes.
    paged = memory(model="llama-3-8b", workload="inference", batch=4, context_len=100)
    flat = memory(model="llama-3-8b", workload="inference", batch=4, context_len=100,
                  paging=False)
    assert paged["breakdown_gb"]["kv_cache"] == pytest.approx(4 * 112 * 131_072 / 1e9, abs=1e-3)
    assert flat["breakdown_gb"]["kv_cache"] == pytest.approx(4 * 100 * 131_072 / 1e9, abs=1e-3)


def test_custom_moe_without_active_count_estimates_it_and_says_so():
    # A Mixtral-like shape: experts hold 32 layers x 8 x 3 x 4096 x 14336 = 45.10B parameters
    # of 47B, so 1.90B are dense. With ep = 8 a GPU keeps 1.90 + 45.10/8 = 7.54B, 15.07 GB
    # at BF16; the active count (47 - 45.10 x 6/8 = 13.18B) is an assumption it states.
    experts_b = 32 * 8 * 3 * 4096 * 14336 / 1e9
    result = memory(params_b=47, layers=32, hidden=4096, ffn_hidden=14336, experts=8,
                    experts_per_token=2, workload="inference", dp=8, ep=8)
    expected_gb = ((47 - experts_b) + experts_b / 8) * 2
    assert result["breakdown_gb"]["weights"] == pytest.approx(expected_gb, abs=0.01)
    assert any("active_params_b" in a for a in result["assumptions"])


def test_params_b_alone_states_the_assumed_llama_like_shape():
    result = memory(params_b=13, workload="inference")
    assert any("Llama 3-like shape" in a for a in result["assumptions"])
    assert result["steps"][0]["notes"] == ["model-llama-3#assumed-shape"]


def test_a_fully_given_architecture_cites_no_model_note():
    result = memory(**LLAMA_65B, workload="inference")
    assert result["steps"][0]["notes"] == []
    assert all(c["id"] for c in result["citations"])


def test_every_step_with_a_formula_cites_notes_that_resolve():
    result = memory(model="mixtral 8x22b", workload="lora", gpu="h100", gpus=16, ep=8)
    cited = [s for s in result["steps"] if s["formula"] and s["label"] != "per GPU"]
    assert cited and all(s["notes"] for s in cited)
    assert all(c["title"] != "(missing note)" for c in result["citations"])


def test_unused_training_fields_are_warned_about_for_inference():
    result = memory(model="llama-3-8b", workload="inference", optimizer="adamw")
    assert any("optimizer" in w and "ignored" in w for w in result["warnings"])


def test_memory_is_listed_with_its_schema():
    listed = {t["name"]: t for t in json.loads(run_cli("tool", "list").output)}
    props = listed["memory"]["input_schema"]["properties"]
    assert {"model", "params_b", "workload", "zero_stage", "microbatches_in_flight"} <= set(props)
    assert "breakdown_gb" in listed["memory"]["output_schema"]["properties"]


# --- bad input: one line, exit 2, naming the field and the valid range ----------------------

def one_line_error(payload: dict) -> str:
    result = run_cli("tool", "memory", "--input", json.dumps(payload))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


@pytest.mark.parametrize(("payload", "words"), [
    ({"params_b": -7}, ["params_b", "above 0", "10,000"]),
    ({"params_b": 0}, ["params_b", "above 0"]),
    ({"params_b": 70_000}, ["params_b", "70,000", "10 trillion"]),  # "70 trillion"
    ({"params_b": 2_000}, []),  # a 2-trillion model is large but answered
    ({"model": "llama-3-8b", "batch": 0}, ["batch", "1 to 1,000,000"]),
    ({"model": "llama-3-8b", "context_len": -5}, ["context_len", "valid range"]),
    ({"model": "llama-3-8b", "workload": "pretrain", "zero_stage": 4}, ["zero_stage", "0, 1, 2"]),
    ({"model": "llama-3-8b", "tp": 3}, ["tp", "32 attention heads", "valid: 1, 2, 4, 8"]),
    ({"model": "qwen2.5-7b", "tp": 7, "dp": 1}, ["tp", "KV heads"]),
    ({"model": "llama-3-80b"}, ["model", "unknown model", "llama-3-70b"]),
    ({"model": "llama-3-8b", "gpu": "h1000"}, ["gpu", "unknown GPU", "h100"]),
    ({"model": "llama-3-8b", "workload": "inference", "precision": "fp9"}, ["precision"]),
    ({"model": "llama-3-8b", "params_b": 8}, ["exactly one"]),
    ({"model": "llama-3-8b", "pp": 64}, ["pp", "1 to 32"]),
    ({"model": "llama-3-8b", "ep": 2}, ["ep", "dense"]),
])
def test_bad_input_is_one_line_naming_the_field(payload, words):
    if not words:
        assert run_cli("tool", "memory", "--input", json.dumps(payload)).exit_code == 0
        return
    line = one_line_error(payload)
    assert "Traceback" not in line
    for word in words:
        assert word in line, line


@pytest.mark.parametrize("precision, zero, dp, per_param", [
    # megatron-optimizer-memory: Megatron-LM's table of bytes a parameter, d = 8 ranks.
    ("fp16", 0, 1, 20), ("bf16", 0, 1, 18), ("fp32", 0, 1, 16),
    ("fp16", 1, 8, 4 + 16 / 8), ("bf16", 1, 8, 6 + 12 / 8), ("fp32", 1, 8, 8 + 8 / 8),
])
def test_fp32_main_grads_count_the_bytes_megatron_lm_tabulates(precision, zero, dp, per_param):
    # 7e9 parameters: weights + gradients + optimizer states = 7e9 x per_param bytes.
    # By hand for fp16 without sharding: 2 + 2 + (4 master + 4 main gradients + 8 Adam) = 20.
    result = run_tool("memory", {"params_b": 7.0, "workload": "pretrain", "precision": precision,
                                 "zero_stage": zero, "dp": dp, "fp32_main_grads": True,
                                 "seq_len": 1, "micro_batch": 1})
    parts = result["breakdown_gb"]
    states = parts["weights"] + parts["gradients"] + parts["optimizer"]
    assert states == pytest.approx(7.0 * per_param, rel=1e-9)


def test_without_fp32_main_grads_the_zero_papers_16_bytes_stand():
    # zero-paper#k-12: 2 + 2 + 12 = 16 bytes a parameter under mixed precision.
    result = run_tool("memory", {"params_b": 7.0, "workload": "pretrain", "precision": "bf16",
                                 "zero_stage": 0, "seq_len": 1, "micro_batch": 1})
    parts = result["breakdown_gb"]
    assert parts["weights"] + parts["gradients"] + parts["optimizer"] == pytest.approx(112.0)


def test_serving_on_more_gpus_than_layers_sizes_each_replica_to_fit():
    # Llama 3.1 405B in BF16: 405.85e9 x 2 B = 811.7 GB of weights. One node (tp 8) holds
    # 101 GB a GPU, more than an H100's 85.5 GB; two nodes (tp 8, pp 2) about 51 GB plus the
    # first stage's embedding. 16,384 GPUs are far more stages than 126 layers, so they are
    # replicas: each the fewest nodes that hold it, 16,384 / 16 = 1,024 of them.
    result = run_tool("memory", {"model": "llama-3.1-405b", "workload": "inference",
                                 "gpu": "h100", "gpus": 16384})
    assert result["layout"]["tp"] == 8 and result["layout"]["pp"] == 2
    assert result["layout"]["dp"] == 1024
    assert result["fits"] is True
    assert any("pp=2 across nodes" in a and "1024 replicas" in a for a in result["assumptions"])


def test_bits_per_weight_sets_the_weights_bytes_and_only_for_serving():
    # gptq-awq-formats#exl2-bpw: Llama 2 70B (68.98e9 parameters) at 4.65 bits per weight is
    # 68.98e9 x 4.65 / 8 = 40.09 GB by hand; a training job refuses an average bit width.
    result = run_tool("memory", {"model": "llama-2-70b", "bits_per_weight": 4.65})
    assert result["whole_model_gb"]["weights"] == pytest.approx(68.98e9 * 4.65 / 8 / 1e9,
                                                                rel=0.002)
    refused = run_cli("tool", "memory", "--input", json.dumps(
        {"model": "llama-2-70b", "bits_per_weight": 4.65, "workload": "lora"}))
    assert refused.exit_code != 0 and "bits_per_weight" in refused.output
