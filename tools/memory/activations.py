"""Activation memory of transformer layers, Korthikanti et al. 2022 (Table 2), per GPU.

s = sequence length, b = micro-batch, h = hidden size, a = attention heads, t = tensor
parallel degree, f = the MLP's width. Figures are bytes at 16-bit activations (with 1-byte
dropout masks). The paper's MLP is GPT's (two matrices, f = 4h: 16·s·b·h split by t); a gated
MLP (SwiGLU, GeGLU: three matrices) keeps 6·s·b·f instead (activation-memory#gated-mlp), and
grouped-query attention keeps narrower keys and values (activation-memory#grouped-query).
"""

from __future__ import annotations

import math

from clusterplan.tools.memory.model_shape import ModelShape

NOTE = "activation-memory"
# Serving engines prefill in chunks of a bounded token budget (kv-cache#chunked-prefill).
PREFILL_TOKENS = 8192
GPT_SPLIT = 24.0     # activation-memory#tensor-parallel: GPT's 8 (attention) + 16 (MLP), s·b·h
GATED_PER_F = 6.0    # activation-memory#gated-mlp: gate and up outputs, the product (6·s·b·f)
PLAIN_PER_F = 4.0    # activation-memory#per-layer: activation input and output (4·s·b·f)
# activation-memory#gated-mlp: a gated MLP has 3·h·f parameters a layer, a plain one 2·h·f.
GATED_ABOVE = 2.5


def split_units(shape: ModelShape) -> float:
    """The activations tensor parallelism splits, in units of s·b·h: attention's queries, keys,
    values and projection input, 4·(a + kv)·d/h (8 for GPT's a·d = h and kv = a), plus the
    MLP's, 4·f/h for a plain MLP (16 for GPT's f = 4h) or 6·f/h for a gated one, times the
    experts a token runs (activation-memory#gated-mlp, #grouped-query). Kept with the shape."""
    found = shape.derived.get("split activation units")
    if found is None:
        per_f = GATED_PER_F if gated_mlp(shape) else PLAIN_PER_F
        attention = 4.0 * (shape.heads + shape.kv_heads) * shape.head_dim / shape.hidden
        # A token of a mixture of experts runs experts_per_token MLPs of width f.
        runs = shape.experts_per_token if shape.is_moe else 1
        found = shape.derived["split activation units"] = \
            attention + per_f * runs * shape.ffn_hidden / shape.hidden
    return float(found)


def gated_mlp(shape: ModelShape) -> bool:
    """Whether the MLP has three matrices, told by the parameter count: the layers' share of
    the parameters over L·h·f is about 3 for a gated MLP and 2 for a plain one (the embedding
    counted once, attention as q, k, v, o). Mixtures of experts are gated."""
    found = shape.derived.get("gated mlp")
    if found is None:
        h = shape.hidden
        attention = 2 * h * shape.head_dim * (shape.heads + shape.kv_heads)
        mlp = shape.params - shape.vocab * h - shape.layers * attention
        found = shape.derived["gated mlp"] = shape.is_moe or \
            mlp / (shape.layers * h * shape.ffn_hidden) > GATED_ABOVE
    return bool(found)


def layer_bytes(s: int, b: int, h: int, a: int, t: int, sequence_parallel: bool,
                recompute: str, flash: bool, split: float) -> tuple[float, float]:
    """(bytes one layer keeps for the backward pass, the working set full recompute rebuilds
    once: one layer's full activations, else 0.0), by Table 2 of the paper with the part
    tensor parallelism splits, `split` (split_units), in place of its 24·s·b·h."""
    sbh = s * b * h
    linear = (10.0 + split) / t if sequence_parallel else 10.0 + split / t
    if recompute == "full":  # only each layer's input is kept
        return 2.0 * sbh, sbh * (linear + (0.0 if flash else 5.0 * a * s / (h * t)))
    # The a·s²·b attention scores (5as/h) are not kept by selective recompute or FlashAttention.
    scores = 0.0 if recompute == "selective" or flash else 5.0 * a * s / (h * t)
    return sbh * (linear + scores), 0.0


def per_layer_formula(sequence_parallel: bool, recompute: str, flash: bool,
                      split: float = GPT_SPLIT) -> str:
    """The Table 2 row in words, matching `layer_bytes`."""
    if recompute == "full":
        return "2·s·b·h (full recompute: only the layer input is kept)"
    if split == GPT_SPLIT:
        linear = "34/t" if sequence_parallel else "10 + 24/t"
    else:  # grouped-query attention or a gated or non-4h MLP: the split part written out
        linear = f"(10 + {split:.4g})/t" if sequence_parallel else f"10 + {split:.4g}/t"
    if recompute == "selective" or flash:
        why = "selective recompute" if recompute == "selective" else "FlashAttention"
        return f"s·b·h·({linear}) ({why}: no attention scores kept)"
    return f"s·b·h·({linear} + 5·a·s/(h·t))"


def training_bytes(s: int, b: int, h: int, a: int, t: int, sp: bool, recompute: str,
                   flash: bool, layers: int, pp: int, in_flight: int, scale: float,
                   split: float) -> float:
    """Activations on the busiest pipeline stage: its layers times the micro-batches it holds.

    Under full recompute one layer's full activations are rebuilt during backward, so that
    working set is added once.
    """
    kept, working = layer_bytes(s, b, h, a, t, sp, recompute, flash, split)
    return (kept * math.ceil(layers / pp) * in_flight + working) * scale


def inference_bytes(tokens: int, h: int, a: int, t: int, flash: bool, scale: float,
                    split: float) -> float:
    """Transient activations of one layer over one prefill chunk (nothing kept for backward)."""
    chunk = tokens if tokens < PREFILL_TOKENS else PREFILL_TOKENS  # min(), without its overhead
    return layer_bytes(chunk, 1, h, a, t, False, "none", flash, split)[0] * scale


def inference_bytes_by_tp(tokens: int, h: int, a: int, tps: tuple[int, ...], flash: bool,
                          scale: float, split: float) -> dict[int, float]:
    """`inference_bytes` for several tensor-parallel degrees at once (the layout search asks
    for each), term for term the same arithmetic."""
    chunk = tokens if tokens < PREFILL_TOKENS else PREFILL_TOKENS
    sbh = chunk * 1 * h
    out = {}
    for t in tps:
        scores = 0.0 if flash else 5.0 * a * chunk / (h * t)
        out[t] = sbh * (10.0 + split / t + scores) * scale
    return out
