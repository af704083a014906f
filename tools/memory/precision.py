"""Bytes per stored number for each precision a user can name, and the note behind each."""

from __future__ import annotations

from typing import Literal

Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4"]

# 4-bit formats carry one block constant per 64 weights; double quantisation stores those
# constants in 8 bits with a second-level FP32 constant per 256 blocks (qlora-paper):
# 8/64 + 32/(64*256) = 0.127 bits per parameter on top of the 4 bits.
QUANT_CONSTANT_BITS = 8 / 64 + 32 / (64 * 256)

BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": (4 + QUANT_CONSTANT_BITS) / 8,
    "nf4": (4 + QUANT_CONSTANT_BITS) / 8,
}

NOTES: dict[str, str] = {
    "fp32": "zero-paper#mixed-precision-bytes",
    "bf16": "zero-paper#mixed-precision-bytes",
    "fp16": "zero-paper#mixed-precision-bytes",
    "fp8": "optimizer-states#fp8-bytes",
    "int8": "optimizer-states#fp8-bytes",
    "int4": "qlora-paper#double-quant",
    "nf4": "qlora-paper#double-quant",
}

TRAINING_PRECISIONS = ("fp32", "bf16", "fp16", "fp8")
QUANTISED = ("int4", "nf4")


def gradient_bytes(precision: str) -> float:
    """Gradients live at the compute precision, but never below 16 bits (FP8 recipes keep them
    in BF16: optimizer-states#fp8-bytes)."""
    return max(2.0, BYTES[precision]) if precision != "fp32" else 4.0


GRADIENT_BYTES: dict[str, float] = {p: gradient_bytes(p) for p in BYTES}
