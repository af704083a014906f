"""The KV cache's own precision, when a question sets it apart from the weights'.

Serving engines keep the cache in the model's 16-bit type unless told otherwise
(kv-cache#cache-dtype-default); people who turn it down say so beside the cache: "fp8 kv-cache",
"--kv-cache-dtype fp8_e5m2", "KV cache in int8", llama.cpp's "-ctk q8_0". Q8_0 stores 8-bit
values (plus a scale per 32), counted here as int8.
"""

from __future__ import annotations

import re

from clusterplan.assistant.parsing.lazy_re import lazy

_I = re.IGNORECASE
_TYPE = r"(fp8(?:_e[45]m[23])?|fp16|bf16|fp32|int8|q8_0)"
_CACHE = r"kv[\s_-]*(?:cache)?"
PATTERNS = (
    lazy(r"(?<![\w])" + _TYPE + r"[\s_-]*(?:quantized\s+)?" + _CACHE + r"(?![a-z])", _I),
    lazy(_CACHE + r"[\s_-]*(?:dtype|type|precision)?\s*(?:=|:|in|as|at)?\s*" + _TYPE + r"\b", _I),
    lazy(r"(?:-ctk|--cache-type-k)\s*[= ]\s*" + _TYPE + r"\b", _I),
)
AS_TOOL = {"fp8": "fp8", "fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "int8": "int8",
           "q8_0": "int8"}


def _phrase(text: str) -> re.Match[str] | None:
    """The first cache-precision phrase in `text`, in the patterns' order."""
    return next((m for m in (p.search(text) for p in PATTERNS) if m), None)


def only_for_cache(text: str) -> bool:
    """Whether the precision word of the cache phrase appears nowhere else in `text`: then it
    says nothing of the weights ("--kv-cache-dtype fp8" on a BF16 model)."""
    m = _phrase(text)
    if m is None:
        return False
    rest = text[:m.start()] + " " + text[m.end():]
    return re.search(r"(?<![\w])" + re.escape(m[1]) + r"(?![\w])", rest, _I) is None


def read(text: str) -> str | None:
    """The KV cache precision stated, as the memory tool names it, or None."""
    m = _phrase(text)
    return AS_TOOL[m[1].lower().split("_e")[0]] if m else None
