"""Quantised storage formats against the sizes of real published checkpoints and hand arithmetic
from the block layouts (knowledge/notes/gguf-quant-types.md). GB = 1e9 bytes throughout."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli, run_tool


def weights_gb(model: str, precision: str, **extra) -> float:
    result = run_tool("memory", {"model": model, "workload": "inference",
                                 "precision": precision, **extra})
    assert result["checkpoint_gb"] == result["breakdown_gb"]["weights"]  # one GPU: whole file
    return result["checkpoint_gb"]


# https://huggingface.co/TheBloke/Llama-2-7B-GGUF, "Provided files": each file's size in GB
# (Hugging Face lists 1e9 bytes, rounded to 0.01 GB, so the tolerance is half of that plus
# the few MB of metadata and tokenizer a GGUF carries).
THEBLOKE_LLAMA_2_7B_GGUF = {
    "q2_k": 2.83, "q3_k_s": 2.95, "q3_k_m": 3.30, "q3_k_l": 3.60, "q4_0": 3.83, "q4_k_s": 3.86,
    "q4_k_m": 4.08, "q5_0": 4.65, "q5_k_s": 4.65, "q5_k_m": 4.78, "q6_k": 5.53, "q8_0": 7.16,
}


@pytest.mark.parametrize(("fmt", "file_gb"), sorted(THEBLOKE_LLAMA_2_7B_GGUF.items()))
def test_gguf_mixes_match_thebloke_llama_2_7b_file_sizes(fmt, file_gb):
    assert weights_gb("llama-2-7b", fmt) == pytest.approx(file_gb, abs=0.008)


def test_q4_k_m_is_q4_k_with_half_the_v_and_ffn_down_layers_in_q6_k():
    # Hand arithmetic, Llama 2 7B (6.74e9 params, 32 layers, hidden 4096, FFN 11008, vocab
    # 32000). Q4_K = 144 B per 256 weights, Q6_K = 210 B per 256 (ggml-common.h).
    # Everything but the head in Q4_K, the head (32000 x 4096) in Q6_K, then 16 of 32 layers
    # (use_more_bits) raise V (4096^2) and FFN down (4096 x 11008) from Q4_K to Q6_K.
    head = 32000 * 4096
    raised = 16 * (4096 * 4096 + 4096 * 11008)
    expected = ((6.74e9 - head) * 144 / 256 + head * 210 / 256
                + raised * (210 - 144) / 256) / 1e9
    assert weights_gb("llama-2-7b", "q4_k_m") == pytest.approx(expected, rel=0.001)


@pytest.mark.parametrize(("fmt", "block_bytes"), [("iq2_xxs", 66), ("iq3_xxs", 98),
                                                  ("iq4_xs", 136), ("iq1_s", 50)])
def test_i_quants_are_their_block_size_per_256_weights_with_a_q6_k_head(fmt, block_bytes):
    # IQ2_XXS: FP16 scale + 32 uint16 codes = 66 B; IQ3_XXS: 2 + 96 = 98 B; IQ4_XS: 2 + 2 + 4 +
    # 128 = 136 B; IQ1_S: 2 + 32 + 16 = 50 B, each per 256 weights; the head in Q6_K (210 B).
    head = 32000 * 4096
    expected = ((6.74e9 - head) * block_bytes / 256 + head * 210 / 256) / 1e9
    assert weights_gb("llama-2-7b", fmt) == pytest.approx(expected, rel=0.001)


def test_gptq_4bit_group_128_matches_thebloke_llama_2_7b_gptq():
    # https://huggingface.co/TheBloke/Llama-2-7B-GPTQ, branch main (4 bits, group size 128,
    # act order): 3.90 GB. Hand check: block weights x (4 + 20/128) bits, embedding and
    # lm_head (2 x 32000 x 4096) at 2 bytes: 6.478e9 x 0.5195 + 0.524e9 = 3.89 GB; act
    # order's 32-bit group index per input channel (~5 MB) is not counted, hence 0.5%.
    assert weights_gb("llama-2-7b", "gptq") == pytest.approx(3.90, rel=0.005)


def test_awq_has_the_same_bytes_as_gptq_at_group_128():
    # AWQ GEMM: FP16 scale and packed 4-bit zero per 128 weights, like GPTQ: same bits.
    assert weights_gb("llama-2-7b", "awq") == weights_gb("llama-2-7b", "gptq")


def test_gpt_oss_120b_mxfp4_is_its_60_8_gib_checkpoint():
    # OpenAI's gpt-oss model card, Table 1: gpt-oss-120b checkpoint 60.8 GiB = 65.28e9 bytes.
    # MoE experts at (32 x 4 + 8)/32 = 4.25 bits, the rest BF16. The catalog splits the
    # 116.83B parameters into experts and the rest from the config's shape (115.3B experts),
    # the card as 114.71B MLP + 2.12B other, which moves the total by 1.5%: hence 2%.
    assert weights_gb("gpt-oss-120b", "mxfp4") == pytest.approx(60.8 * 2**30 / 1e9, rel=0.02)


def test_ternary_is_tq1_0_with_16_bit_embeddings_and_head():
    # TQ1_0: 48 B of base-3 packed codes + 4 B + FP16 scale = 54 B per 256 weights; embedding
    # and head (2 x 32000 x 4096) at 2 bytes.
    ends = 2 * 32000 * 4096
    expected = ((6.74e9 - ends) * 54 / 256 + ends * 2) / 1e9
    assert weights_gb("llama-2-7b", "1.58bit") == pytest.approx(expected, rel=0.001)


def test_a_4_bit_full_finetune_is_answered_as_a_frozen_base_with_adapters():
    result = run_tool("memory", {"model": "llama-2-7b", "workload": "full_finetune",
                                 "precision": "q4_k_m"})
    assert result["workload"] == "qlora"
    assert any("qlora-style" in a for a in result["assumptions"])
    # The frozen base is the 4.08 GB Q4_K_M file plus 16-bit adapters: rank 16 on all seven
    # matrices, 16 x ((4096 + 4096) x 4 + (4096 + 11008) x 3) x 32 layers = 40.0M params,
    # 0.080 GB; their gradients are as many bytes.
    assert result["breakdown_gb"]["weights"] == pytest.approx(4.08 + 0.080, abs=0.006)
    assert result["breakdown_gb"]["gradients"] == pytest.approx(0.080, abs=0.001)


def test_an_unknown_format_is_one_line_naming_the_field():
    out = run_cli("tool", "memory", "--input", json.dumps(
        {"model": "llama-2-7b", "workload": "inference", "precision": "q4_k_xl"}))
    assert out.exit_code == 2
    assert out.output.startswith("Error:") and "precision:" in out.output
    assert out.output.count("\n") == 1 and "Traceback" not in out.output


@pytest.mark.parametrize(("question", "fmt"), [
    ("How much VRAM for llama 2 7b in Q5_K_S?", "q5_k_s"),
    ("can I run Llama-2-13B GPTQ 8-bit on a 4090", "gptq-8bit"),
    ("llama 2 13b awq on a T4?", "awq"),
    ("does gpt-oss-120b mxfp4 fit on one H100", "mxfp4"),
    ("memory for a 70B 1.58-bit model", "1.58bit"),
    ("llama 2 7b iq2_xxs size", "iq2_xxs"),
])
def test_ask_reads_the_format_and_answers_with_its_weights(question, fmt):
    out = run_cli("ask", "--json", question)
    answer = json.loads(out.output)
    assert answer["intent"]["slots"]["precision"] == fmt
    memory = answer["data"]["memory"]
    assert memory["breakdown_gb"]["weights"] > 0
