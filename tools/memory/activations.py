"""Activation memory of transformer layers, Korthikanti et al. 2022 (Table 2), per GPU.

s = sequence length, b = micro-batch, h = hidden size, a = attention heads, t = tensor
parallel degree. Figures are bytes at 16-bit activations (with 1-byte dropout masks).
"""

from __future__ import annotations

import math

NOTE = "activation-memory"
# Serving engines prefill in chunks of a bounded token budget (kv-cache#chunked-prefill).
PREFILL_TOKENS = 8192


def layer_bytes(s: int, b: int, h: int, a: int, t: int, sequence_parallel: bool,
                recompute: str, flash: bool) -> tuple[float, float]:
    """(bytes one layer keeps for the backward pass, the working set full recompute rebuilds
    once: one layer's full activations, else 0.0), by Table 2 of the paper."""
    sbh = s * b * h
    linear = 34.0 / t if sequence_parallel else 10.0 + 24.0 / t
    if recompute == "full":  # only each layer's input is kept
        return 2.0 * sbh, sbh * (linear + (0.0 if flash else 5.0 * a * s / (h * t)))
    # The a·s²·b attention scores (5as/h) are not kept by selective recompute or FlashAttention.
    scores = 0.0 if recompute == "selective" or flash else 5.0 * a * s / (h * t)
    return sbh * (linear + scores), 0.0


def per_layer_formula(sequence_parallel: bool, recompute: str, flash: bool) -> str:
    """The Table 2 row in words, matching `layer_bytes`."""
    if recompute == "full":
        return "2·s·b·h (full recompute: only the layer input is kept)"
    linear = "34/t" if sequence_parallel else "10 + 24/t"
    if recompute == "selective" or flash:
        why = "selective recompute" if recompute == "selective" else "FlashAttention"
        return f"s·b·h·({linear}) ({why}: no attention scores kept)"
    return f"s·b·h·({linear} + 5·a·s/(h·t))"


def training_bytes(s: int, b: int, h: int, a: int, t: int, sp: bool, recompute: str,
                   flash: bool, layers: int, pp: int, in_flight: int, scale: float) -> float:
    """Activations on the busiest pipeline stage: its layers times the micro-batches it holds.

    Under full recompute one layer's full activations are rebuilt during backward, so that
    working set is added once.
    """
    kept, working = layer_bytes(s, b, h, a, t, sp, recompute, flash)
    return (kept * math.ceil(layers / pp) * in_flight + working) * scale


def inference_bytes(tokens: int, h: int, a: int, t: int, flash: bool, scale: float) -> float:
    """Transient activations of one layer over one prefill chunk (nothing kept for backward)."""
    chunk = tokens if tokens < PREFILL_TOKENS else PREFILL_TOKENS  # min(), without its overhead
    return layer_bytes(chunk, 1, h, a, t, False, "none", flash)[0] * scale


def inference_bytes_by_tp(tokens: int, h: int, a: int, tps: tuple[int, ...], flash: bool,
                          scale: float) -> dict[int, float]:
    """`inference_bytes` for several tensor-parallel degrees at once (the layout search asks
    for each), term for term the same arithmetic."""
    chunk = tokens if tokens < PREFILL_TOKENS else PREFILL_TOKENS
    sbh = chunk * 1 * h
    out = {}
    for t in tps:
        scores = 0.0 if flash else 5.0 * a * chunk / (h * t)
        out[t] = sbh * (10.0 + 24.0 / t + scores) * scale
    return out
