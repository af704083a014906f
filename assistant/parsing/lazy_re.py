"""Regular expressions compiled on first use: one question needs only some of them, and
`clusterplan ask` starts in a fresh process, where compiling them all costs tens of ms."""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """Stands for `re.compile(pattern, flags)`; compiles when a method is first asked for."""

    def __init__(self, pattern: str, flags: int = 0):
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        # Called only for a missing attribute: the method is kept on the instance, so every
        # later use is a plain attribute lookup with no extra call.
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value


def lazy(pattern: str, flags: int = 0) -> Any:
    """A pattern compiled on its first search, match, sub or findall."""
    return LazyPattern(pattern, flags)
