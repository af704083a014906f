"""Text that can always be encoded: a lone surrogate (an undecodable byte that Python kept as
`\\udcxx`, or a stray `\\ud800` from a JSON client) cannot be written as UTF-8, so it would
break storing a question or answering over MCP. It becomes U+FFFD instead."""

from __future__ import annotations

from typing import Any


def without_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its text, keys included, replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_surrogates(v) for v in value]
    return value
