"""Bits per weight of the quantised storage formats, derived from their block layouts.

A format stores a block of weights as packed low-bit codes plus the block's scale (and zero or
minimum). Its bits per weight are the block's bytes × 8 ÷ the weights in the block, so every
figure below is written as that division, from the struct sizes the note cites.
"""

from __future__ import annotations

from typing import NamedTuple


class BlockLayout(NamedTuple):
    """One storage type: bytes per block, weights per block, and the note stating the layout."""

    block_bytes: float
    block_weights: int
    note: str

    @property
    def bits(self) -> float:
        return self.block_bytes * 8 / self.block_weights


QK_K = 256  # weights in a k-quant / i-quant super-block (gguf-quant-types#k-blocks)
FP16 = 2    # bytes of a half-precision scale
_GGUF = "gguf-quant-types#block-sizes"

# ggml block structs: field sizes in bytes, summed (gguf-quant-types#block-sizes).
GGML_TYPES: dict[str, BlockLayout] = {
    "q4_0": BlockLayout(FP16 + 32 // 2, 32, _GGUF),                        # 18 B / 32
    "q4_1": BlockLayout(2 * FP16 + 32 // 2, 32, _GGUF),                    # 20 B / 32
    "q5_0": BlockLayout(FP16 + 4 + 32 // 2, 32, _GGUF),                    # 22 B / 32
    "q5_1": BlockLayout(2 * FP16 + 4 + 32 // 2, 32, _GGUF),                # 24 B / 32
    "q8_0": BlockLayout(FP16 + 32, 32, _GGUF),                             # 34 B / 32
    "q2_k": BlockLayout(QK_K // 16 + QK_K // 4 + 2 * FP16, QK_K, _GGUF),   # 84 B / 256
    "q3_k": BlockLayout(QK_K // 8 + QK_K // 4 + 12 + FP16, QK_K, _GGUF),   # 110 B / 256
    "q4_k": BlockLayout(2 * FP16 + 12 + QK_K // 2, QK_K, _GGUF),           # 144 B / 256
    "q5_k": BlockLayout(2 * FP16 + 12 + QK_K // 8 + QK_K // 2, QK_K, _GGUF),  # 176 B / 256
    "q6_k": BlockLayout(QK_K // 2 + QK_K // 4 + QK_K // 16 + FP16, QK_K, _GGUF),  # 210 B / 256
    "iq1_s": BlockLayout(FP16 + QK_K // 8 + QK_K // 16, QK_K, _GGUF),      # 50 B / 256
    "iq1_m": BlockLayout(QK_K // 8 + QK_K // 16 + QK_K // 32, QK_K, _GGUF),  # 56 B / 256
    "iq2_xxs": BlockLayout(FP16 + QK_K // 4, QK_K, _GGUF),                 # 66 B / 256
    "iq2_xs": BlockLayout(FP16 + QK_K // 4 + QK_K // 32, QK_K, _GGUF),     # 74 B / 256
    "iq2_s": BlockLayout(FP16 + QK_K // 4 + 2 * (QK_K // 32), QK_K, _GGUF),  # 82 B / 256
    "iq3_xxs": BlockLayout(FP16 + 3 * QK_K // 8, QK_K, _GGUF),             # 98 B / 256
    "iq3_s": BlockLayout(FP16 + QK_K // 4 + QK_K // 32 + QK_K // 8 + QK_K // 64, QK_K,
                         _GGUF),                                           # 110 B / 256
    "iq4_nl": BlockLayout(FP16 + 32 // 2, 32, _GGUF),                      # 18 B / 32
    "iq4_xs": BlockLayout(FP16 + 2 + QK_K // 64 + QK_K // 2, QK_K, _GGUF),  # 136 B / 256
    "tq1_0": BlockLayout((QK_K - 4 * QK_K // 64) // 5 + QK_K // 64 + FP16, QK_K,
                         _GGUF),                                           # 54 B / 256
    "tq2_0": BlockLayout(QK_K // 4 + FP16, QK_K, _GGUF),                   # 66 B / 256
}

# Formats outside ggml, each as one block: codes plus its shared constants.
OTHER_TYPES: dict[str, BlockLayout] = {
    # GPTQ / AWQ: per group of 128 weights one FP16 scale and one zero packed at the code width
    # (gptq-awq-formats#group-scales).
    "gptq4": BlockLayout((128 * 4 + 16 + 4) / 8, 128, "gptq-awq-formats#group-scales"),
    "gptq8": BlockLayout((128 * 8 + 16 + 8) / 8, 128, "gptq-awq-formats#group-scales"),
    "awq4": BlockLayout((128 * 4 + 16 + 4) / 8, 128, "gptq-awq-formats#group-scales"),
    # bitsandbytes NF4 with double quantisation: 64 four-bit codes, one 8-bit block constant,
    # and a share of one FP32 constant per 256 blocks (qlora-paper#double-quant).
    "nf4": BlockLayout((64 * 4 + 8 + 32 / 256) / 8, 64, "qlora-paper#double-quant"),
    # MXFP4: 32 FP4 (E2M1) codes share one 8-bit power-of-two scale (mxfp4-fp8#mxfp4-block).
    "mxfp4": BlockLayout((32 * 4 + 8) / 8, 32, "mxfp4-fp8#mxfp4-block"),
}


def bits_per_weight(storage_type: str) -> float:
    """Bits per weight of one storage type; 16/32 for the unquantised ones."""
    if storage_type in ("f16", "bf16"):
        return 16.0
    if storage_type == "f32":
        return 32.0
    layout = GGML_TYPES.get(storage_type) or OTHER_TYPES[storage_type]
    return layout.bits
