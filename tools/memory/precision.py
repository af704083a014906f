"""Bytes per stored number for each precision a user can name, and the note behind each."""

from __future__ import annotations

from typing import Literal

from clusterplan.tools.memory.model_shape import ModelShape
from clusterplan.tools.memory.quant_formats import bits_per_weight
from clusterplan.tools.memory.quant_mix import MIXES, file_bytes

Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4",
                    "q2_k", "q3_k_s", "q3_k_m", "q3_k_l", "q4_0", "q4_k_s", "q4_k_m", "q5_0",
                    "q5_k_s", "q5_k_m", "q6_k", "q8_0", "iq1_s", "iq1_m", "iq2_xxs", "iq2_xs",
                    "iq2_s", "iq3_xxs", "iq3_s", "iq4_nl", "iq4_xs", "gptq", "gptq-8bit", "awq",
                    "bnb-int8", "mxfp4", "1.58bit"]

# 4-bit formats carry one block constant per 64 weights; double quantisation stores those
# constants in 8 bits with a second-level FP32 constant per 256 blocks (qlora-paper):
# 8/64 + 32/(64*256) = 0.127 bits per parameter on top of the 4 bits.
QUANT_CONSTANT_BITS = 8 / 64 + 32 / (64 * 256)


def mix_nominal_bytes(fmt: str) -> float:
    """Bytes per weight of a format's bulk storage type (its headline bits per weight / 8)."""
    base = MIXES[fmt].base
    return (8.0 if base == "bnb_int8" else bits_per_weight(base)) / 8


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

# Storage formats (quant_mix): the nominal bytes of their bulk type; the memory tool counts a
# model's exact mix of types (embeddings and head kept wider) through Job.weight_bytes.
FORMATS = tuple(f for f in MIXES if f != "nf4")  # nf4 is named above, with QLoRA
BYTES.update({f: mix_nominal_bytes(f) for f in MIXES})
NOTES.update({f: MIXES[f].note for f in FORMATS})

TRAINING_PRECISIONS = ("fp32", "bf16", "fp16", "fp8")
QUANTISED = ("int4", "nf4", *FORMATS)


def gradient_bytes(precision: str) -> float:
    """Gradients live at the compute precision, but never below 16 bits (FP8 recipes keep them
    in BF16: optimizer-states#fp8-bytes)."""
    return max(2.0, BYTES[precision]) if precision != "fp32" else 4.0


GRADIENT_BYTES: dict[str, float] = {p: gradient_bytes(p) for p in BYTES}


def stored_bytes_per_param(precision: str, shape: ModelShape) -> float:
    """Bytes per parameter as the model is stored: a format's whole mix of storage types over
    this shape's tensors (kept with the shape), else the precision's bytes."""
    if precision not in MIXES:
        return BYTES[precision]
    key = ("stored bytes per param", precision)
    value = shape.derived.get(key)
    if value is None:
        value = shape.derived[key] = file_bytes(precision, shape) / shape.params
    return float(value)
