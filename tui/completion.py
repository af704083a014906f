"""Completing model and GPU names in the question box, from the catalog a person plans with."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from textual.suggester import Suggester

MIN_TYPED = 2  # one letter matches too much to be a useful suggestion


def catalog_names() -> list[str]:
    """Model and GPU ids, then names, from the active catalog (ids are what people type)."""
    # lazy: the assistant and the catalog load after the first screen (~0.5 s)
    from clusterplan.assistant.lookups import catalog_names as names

    return names()


def complete(value: str, names: Iterable[str]) -> str | None:
    """`value` with its last words completed to a name, keeping what was typed as typed.

    Tries the longest tail of the text first, so "serve Llama 3 7" completes the name
    "Llama 3 70B" and "on h1" completes "h100-sxm".
    """
    return complete_folded(value, folded(names))


def folded(names: Iterable[str]) -> list[tuple[str, str]]:
    """(casefolded, as written) for each name: folded once, not on every key."""
    return [(name.casefold(), name) for name in names]


def complete_folded(value: str, names: list[tuple[str, str]]) -> str | None:
    """`complete`, over names already folded."""
    for start in _word_starts(value):
        tail = value[start:].casefold()
        if len(tail) < MIN_TYPED:
            continue
        for fold, name in names:
            if fold.startswith(tail) and len(name) > len(tail):
                return value + name[len(tail):]
    return None


def _word_starts(value: str) -> list[int]:
    """Offsets where a word begins, first to last."""
    return [i for i, ch in enumerate(value)
            if not ch.isspace() and (i == 0 or value[i - 1].isspace())]


class CatalogSuggester(Suggester):
    """Suggests the rest of a model or GPU name; names are read once, when first needed, in a
    thread (the catalog may still be opening: the question box keeps taking keys meanwhile)."""

    def __init__(self, load_names: Callable[[], list[str]] = catalog_names) -> None:
        # case_sensitive: the suggestion keeps the person's own casing of what they typed
        super().__init__(use_cache=True, case_sensitive=True)
        self._load_names = load_names
        self._names: list[tuple[str, str]] | None = None  # folded, as written
        self._reading: asyncio.Task[list[tuple[str, str]]] | None = None

    async def get_suggestion(self, value: str) -> str | None:
        if self._names is None:
            if self._reading is None:  # the first key starts the one read; later keys wait
                self._reading = asyncio.create_task(asyncio.to_thread(self._read_names))
            self._names = await asyncio.shield(self._reading)
        return complete_folded(value, self._names)

    def _read_names(self) -> list[tuple[str, str]]:
        try:
            return folded(self._load_names())
        except Exception:  # a catalog that cannot be read means no completion, not a crash
            return []
