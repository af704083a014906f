"""A model's architecture stated in words: "8192 dim * 80 layers", "hidden size 5120, 40 heads".

People who do their own KV-cache or activation arithmetic state the dimensions they used. A
question that gives a parameter count and these numbers is about that shape, not the Llama-like
one the memory tool assumes from the count alone, so the stated fields go to the tool with it.

A layer count on its own is not read: "40 layers on the GPU" is an offload split, not the
model's depth. The shape is read when a hidden size is stated, or two of layers, heads and KV
heads are.
"""

from __future__ import annotations

import re

from clusterplan.assistant.parsing.lazy_re import lazy

_I = re.IGNORECASE
_HIDDEN_WORD = r"(?:hidden[_ ]?(?:size|dim(?:ension)?)?|d_model|n_embd|model\s+dim(?:ension)?|" \
               r"embedding\s+(?:size|dim(?:ension)?)|dim(?:ension)?)"
HIDDEN = (
    lazy(r"(?<![\w_])(?<!head[_ ])" + _HIDDEN_WORD + r"\s*(?:of|=|:|is)?\s*(\d{3,6})\b", _I),
    lazy(r"(?<![\d.,])(\d{3,6})\s*(?:-\s*)?(?:hidden(?:[_ ]size)?|dim(?:ension)?s?|d_model)\b"
         r"(?!\s*per\s+head)", _I),
    lazy(r"hidden_size\W{0,4}(\d{3,6})\b", _I),
)
LAYERS = (
    lazy(r"(?<![\d.,])(\d{1,3})\s*(?:transformer\s+|decoder\s+)?layers\b", _I),
    lazy(r"\b(?:num_hidden_layers|num_layers|n_layers?)\W{0,4}(\d{1,3})\b", _I),
    lazy(r"(?<![\d.])(\d{1,3})\s*层", 0),
)
KV_HEADS = (
    lazy(r"(?<![\d.,])(\d{1,3})\s*(?:kv|key[- ]value)[\s_-]*heads\b", _I),
    lazy(r"\b(?:num_key_value_heads|n_kv_heads?|kv[_ ]heads)\W{0,4}(\d{1,3})\b", _I),
)
HEADS = (
    lazy(r"(?<![\d.,])(\d{1,3})\s*(?:attention\s+|query\s+)?heads\b", _I),
    lazy(r"\b(?:num_attention_heads|n_heads?)\W{0,4}(\d{1,3})\b", _I),
)
HEAD_DIM = lazy(r"\bhead[_ ]?dim(?:ension)?\W{0,4}(\d{2,3})\b", _I)


def read(text: str) -> dict[str, int]:
    """The architecture fields `text` states (layers, hidden, heads, kv_heads), or {}."""
    shape: dict[str, int] = {}
    for name, patterns in (("hidden", HIDDEN), ("layers", LAYERS), ("kv_heads", KV_HEADS)):
        value = _first(patterns, text)
        if value:
            shape[name] = value
    heads = _first(HEADS, _without(KV_HEADS, text))
    if heads:
        shape["heads"] = heads
    head_dim = _first((HEAD_DIM,), text)
    if head_dim and "heads" in shape and "hidden" not in shape:
        shape["hidden"] = head_dim * shape["heads"]
    return _plausible(shape)


def _first(patterns: tuple[object, ...], text: str) -> int | None:
    for pattern in patterns:
        m = pattern.search(text)  # type: ignore[attr-defined]
        if m and int(m[1]) > 0:
            return int(m[1])
    return None


def _without(patterns: tuple[object, ...], text: str) -> str:
    """`text` with the KV-head phrases blanked, so "8 KV heads" is not read as 8 query heads."""
    for pattern in patterns:
        text = pattern.sub(" ", text)  # type: ignore[attr-defined]
    return text


def _plausible(shape: dict[str, int]) -> dict[str, int]:
    """The stated fields worth using: a hidden size that is a multiple of 64 (as every published
    model's is), heads that divide it, KV heads that divide the heads; and only with a hidden
    size or two of the counts."""
    hidden, heads, kv = shape.get("hidden"), shape.get("heads"), shape.get("kv_heads")
    if hidden is not None and (hidden < 256 or hidden % 64):
        shape.pop("hidden")
    elif heads and hidden and hidden % heads:
        shape.pop("heads")
    if kv and shape.get("heads") and (kv > shape["heads"] or shape["heads"] % kv):
        shape.pop("kv_heads")
    counts = sum(k in shape for k in ("layers", "heads", "kv_heads"))
    return shape if "hidden" in shape or counts >= 2 else {}
