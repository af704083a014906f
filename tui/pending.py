"""The assistant the app works with, which may still be being built behind the first screen."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clusterplan.assistant.sessions.session import Assistant


class PendingAssistant:
    """An assistant given, or a way to build one later; a thread that needs it waits for it."""

    def __init__(self, given: Assistant | Callable[[], Assistant]) -> None:
        self._assistant: Assistant | None = None
        self._build: Callable[[], Assistant] | None = None
        self._settled = threading.Event()  # built, failed, or given up: no more waiting
        if callable(given):
            self._build = given
        else:
            self._assistant = given
            self._settled.set()

    @property
    def to_build(self) -> bool:
        """Whether it still has to be built (by `build`, in a thread no one else needs)."""
        return self._build is not None and not self._settled.is_set()

    @property
    def now(self) -> Assistant | None:
        """The assistant if it is ready, without waiting (what the event loop may ask)."""
        return self._assistant

    def build(self) -> Assistant:
        """Build the assistant; whoever waits for it is released even if this fails."""
        assert self._build is not None, "an assistant given ready-made is not built"
        try:
            self._assistant = self._build()
            return self._assistant
        finally:
            self._settled.set()

    def get(self) -> Assistant:
        """The assistant, once built; an error if it never will be."""
        self._settled.wait()
        if self._assistant is None:
            raise RuntimeError("the assistant could not be started")
        return self._assistant

    def give_up(self) -> None:
        """Release every wait (the app is closing); those not yet served get the error."""
        self._settled.set()
