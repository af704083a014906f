"""KV cache bytes: per token for the whole model, and what one GPU holds of it."""

from __future__ import annotations

import math

from clusterplan.tools.memory.model_shape import ModelShape

# PagedAttention stores the cache in fixed blocks of tokens (kv-cache#paged-blocks).
PAGE_TOKENS = 16


def bytes_per_token(shape: ModelShape, kv_bytes: float) -> float:
    """2·layers·kv_heads·head_dim·bytes (K and V); MLA caches one latent of kv_latent_dim."""
    if shape.attention == "mla" and shape.kv_latent_dim:
        return shape.layers * shape.kv_latent_dim * kv_bytes
    return 2.0 * shape.layers * shape.kv_heads * shape.head_dim * kv_bytes


def formula(shape: ModelShape) -> str:
    """The per-token formula in words, for the step that shows it."""
    if shape.attention == "mla" and shape.kv_latent_dim:
        return "layers · kv_latent_dim · bytes (MLA caches one compressed latent per layer)"
    return "2 · layers · kv_heads · head_dim · bytes (K and V)"


def cached_tokens(sequences: int, context: int, paging: bool) -> int:
    """Tokens held: each sequence's context, rounded up to whole pages when paged."""
    if paging:
        context = PAGE_TOKENS * math.ceil(context / PAGE_TOKENS)
    return sequences * context


def per_gpu_share(shape: ModelShape, tp: int, pp: int) -> float:
    """The fraction of the whole cache one GPU holds under tensor and pipeline parallelism.

    TP splits KV heads; with more TP ranks than KV heads each rank keeps one head (replicas);
    an MLA latent is not split by heads, so every TP rank keeps all of it. PP splits layers.
    """
    stage = math.ceil(shape.layers / pp) / shape.layers
    if shape.attention == "mla" and shape.kv_latent_dim:
        return stage
    heads_held = shape.kv_heads / tp
    return stage * (heads_held if heads_held > 1.0 else 1.0) / shape.kv_heads
