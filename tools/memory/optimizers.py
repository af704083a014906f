"""Optimizer state bytes per trainable parameter (the ZeRO paper's K), optimizer by optimizer."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Optimizer = Literal["adamw", "adamw_8bit", "sgd_momentum", "adafactor", "lion"]

MASTER_COPY_BYTES = 4.0  # FP32 master weights under mixed precision (zero-paper#k-12)
MAIN_GRAD_BYTES = 4.0  # FP32 main gradients beside 16-bit ones (megatron-optimizer-memory#fp16)

# The states each optimizer keeps, as (what, bytes per parameter, note).
STATES: dict[str, tuple[tuple[str, float, str], ...]] = {
    "adamw": (("first moment (fp32)", 4.0, "zero-paper#k-12"),
              ("second moment (fp32)", 4.0, "zero-paper#k-12")),
    # Block-wise 8-bit states: 1 byte each, plus one FP32 constant per 2048-value block.
    "adamw_8bit": (("first moment (8-bit)", 1.0 + 4 / 2048, "optimizer-states#adam-8bit"),
                   ("second moment (8-bit)", 1.0 + 4 / 2048, "optimizer-states#adam-8bit")),
    "sgd_momentum": (("momentum (fp32)", 4.0, "optimizer-states#sgd-momentum"),),
    "lion": (("momentum (fp32)", 4.0, "optimizer-states#lion"),),
    # Adafactor (no first moment) keeps row and column sums of the second moment: for an
    # n x m matrix that is n + m numbers, about 2/hidden per parameter for h x h matrices.
    "adafactor": (("factored second moment (fp32)", 0.0, "optimizer-states#adafactor"),),
}


@dataclass(frozen=True, slots=True)
class OptimizerBytes:
    """Bytes per trainable parameter held by the optimizer, and what they are made of."""

    per_param: float
    parts: tuple[tuple[str, float, str], ...]

    @property
    def notes(self) -> list[str]:
        return list(dict.fromkeys(note for _, _, note in self.parts))

    def formula(self) -> str:
        return " + ".join(f"{b:g} ({what})" for what, b, _ in self.parts) or "0"


@lru_cache(maxsize=256)
def optimizer_bytes(optimizer: str, master_copy: bool, hidden: int,
                    main_grads: bool = False) -> OptimizerBytes:
    """K for `optimizer`: its states plus the FP32 master copy when one is kept, and the FP32
    main gradients Megatron-LM's fp16 optimizer keeps beside the model's 16-bit ones (a
    constant per optimizer, copy and hidden size, so kept: every training answer asks for it)."""
    parts = list(STATES[optimizer])
    if optimizer == "adafactor":
        parts = [(parts[0][0], 4.0 * 2 / hidden, parts[0][2])]
    if main_grads:
        parts.insert(0, ("main gradients (fp32)", MAIN_GRAD_BYTES,
                         "megatron-optimizer-memory#fp16"))
    if master_copy:
        parts.insert(0, ("master weights (fp32)", MASTER_COPY_BYTES, "zero-paper#k-12"))
    return OptimizerBytes(sum(b for _, b, _ in parts), tuple(parts))


def update_traffic_bytes(opt: OptimizerBytes, precision: str) -> float:
    """HBM bytes one optimizer step moves per trained parameter: it reads and writes the FP32
    weights (the master copy, or the weights themselves in FP32 training) and every state,
    reads the FP32 gradient, and under mixed precision writes the 16-bit weights back
    (optimizer-states#update-traffic). AdamW with a master copy: 2 x (4 + 8) + 4 + 2 = 30."""
    states = sum(b for what, b, _ in opt.parts
                 if not what.startswith(("master weights", "main gradients")))
    mixed = precision != "fp32"
    return 2 * (MASTER_COPY_BYTES + states) + 4.0 + (2.0 if mixed else 0.0)
