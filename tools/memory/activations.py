"""Activation memory of transformer layers, Korthikanti et al. 2022 (Table 2), per GPU.

s = sequence length, b = micro-batch, h = hidden size, a = attention heads, t = tensor
parallel degree, f = the MLP's width. Figures are bytes at 16-bit activations (with 1-byte
dropout masks). The paper's MLP is GPT's (two matrices, f = 4h: 16·s·b·h split by t); a gated
MLP (SwiGLU, GeGLU: three matrices) keeps 6·s·b·f instead (activation-memory#gated-mlp).
"""

from __future__ import annotations

import math

from clusterplan.tools.memory.model_shape import ModelShape

NOTE = "activation-memory"
# Serving engines prefill in chunks of a bounded token budget (kv-cache#chunked-prefill).
PREFILL_TOKENS = 8192
GPT_MLP = 16.0       # activation-memory#per-layer: 4·f/h with f = 4h, in units of s·b·h
GATED_PER_F = 6.0    # activation-memory#gated-mlp: gate and up outputs, the product (6·s·b·f)
PLAIN_PER_F = 4.0    # activation-memory#per-layer: activation input and output (4·s·b·f)
# activation-memory#gated-mlp: a gated MLP has 3·h·f parameters a layer, a plain one 2·h·f.
GATED_ABOVE = 2.5


def mlp_units(shape: ModelShape) -> float:
    """The MLP activations that tensor parallelism splits, in units of s·b·h: 4·f/h for a
    plain MLP (16 for GPT's f = 4h), 6·f/h for a gated one. Kept with the shape."""
    found = shape.derived.get("mlp activation units")
    if found is None:
        per_f = GATED_PER_F if gated_mlp(shape) else PLAIN_PER_F
        found = shape.derived["mlp activation units"] = per_f * shape.ffn_hidden / shape.hidden
    return float(found)


def gated_mlp(shape: ModelShape) -> bool:
    """Whether the MLP has three matrices, told by the parameter count: the layers' share of
    the parameters over L·h·f is about 3 for a gated MLP and 2 for a plain one (the embedding
    counted once, attention as q, k, v, o). Mixtures of experts are gated."""
    if shape.is_moe:
        return True
    h = shape.hidden
    attention = 2 * h * shape.head_dim * (shape.heads + shape.kv_heads)
    mlp = shape.params - shape.vocab * h - shape.layers * attention
    return mlp / (shape.layers * h * shape.ffn_hidden) > GATED_ABOVE


def layer_bytes(s: int, b: int, h: int, a: int, t: int, sequence_parallel: bool,
                recompute: str, flash: bool, mlp: float) -> tuple[float, float]:
    """(bytes one layer keeps for the backward pass, the working set full recompute rebuilds
    once: one layer's full activations, else 0.0), by Table 2 of the paper with the MLP's
    split part `mlp` (mlp_units) in place of its 16·s·b·h."""
    sbh = s * b * h
    split = 8.0 + mlp  # attention's 8·s·b·h (Q, K, V, projection input) and the MLP's
    linear = (10.0 + split) / t if sequence_parallel else 10.0 + split / t
    if recompute == "full":  # only each layer's input is kept
        return 2.0 * sbh, sbh * (linear + (0.0 if flash else 5.0 * a * s / (h * t)))
    # The a·s²·b attention scores (5as/h) are not kept by selective recompute or FlashAttention.
    scores = 0.0 if recompute == "selective" or flash else 5.0 * a * s / (h * t)
    return sbh * (linear + scores), 0.0


def per_layer_formula(sequence_parallel: bool, recompute: str, flash: bool,
                      mlp: float = GPT_MLP) -> str:
    """The Table 2 row in words, matching `layer_bytes`."""
    if recompute == "full":
        return "2·s·b·h (full recompute: only the layer input is kept)"
    if mlp == GPT_MLP:
        linear = "34/t" if sequence_parallel else "10 + 24/t"
    else:  # a gated or non-4h MLP: its split part written out
        linear = f"(18 + {mlp:.4g})/t" if sequence_parallel else f"10 + (8 + {mlp:.4g})/t"
    if recompute == "selective" or flash:
        why = "selective recompute" if recompute == "selective" else "FlashAttention"
        return f"s·b·h·({linear}) ({why}: no attention scores kept)"
    return f"s·b·h·({linear} + 5·a·s/(h·t))"


def training_bytes(s: int, b: int, h: int, a: int, t: int, sp: bool, recompute: str,
                   flash: bool, layers: int, pp: int, in_flight: int, scale: float,
                   mlp: float) -> float:
    """Activations on the busiest pipeline stage: its layers times the micro-batches it holds.

    Under full recompute one layer's full activations are rebuilt during backward, so that
    working set is added once.
    """
    kept, working = layer_bytes(s, b, h, a, t, sp, recompute, flash, mlp)
    return (kept * math.ceil(layers / pp) * in_flight + working) * scale


def inference_bytes(tokens: int, h: int, a: int, t: int, flash: bool, scale: float,
                    mlp: float) -> float:
    """Transient activations of one layer over one prefill chunk (nothing kept for backward)."""
    chunk = tokens if tokens < PREFILL_TOKENS else PREFILL_TOKENS  # min(), without its overhead
    return layer_bytes(chunk, 1, h, a, t, False, "none", flash, mlp)[0] * scale


def inference_bytes_by_tp(tokens: int, h: int, a: int, tps: tuple[int, ...], flash: bool,
                          scale: float, mlp: float) -> dict[int, float]:
    """`inference_bytes` for several tensor-parallel degrees at once (the layout search asks
    for each), term for term the same arithmetic."""
    chunk = tokens if tokens < PREFILL_TOKENS else PREFILL_TOKENS
    sbh = chunk * 1 * h
    split = 8.0 + mlp
    out = {}
    for t in tps:
        scores = 0.0 if flash else 5.0 * a * chunk / (h * t)
        out[t] = sbh * (10.0 + split / t + scores) * scale
    return out
