"""Command palette entries: each tool (starts a slash command) and each example question."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from clusterplan.tui.examples import EXAMPLE_QUESTIONS


def _tool_descriptions() -> list[tuple[str, str]]:
    """(name, description) of every registered tool."""
    # lazy: the assistant and the catalog load after the first screen (~0.5 s)
    from clusterplan.assistant.lookups import tool_descriptions

    return tool_descriptions()


class AskingApp(Protocol):
    """What the palette needs of the app: fill a slash command, ask a question."""

    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...
    def start_slash_command(self, tool: str) -> None: ...
    async def ask(self, text: str) -> None: ...


class ToolsAndExamples(Provider):
    """Lists `/tool` commands and example questions; choosing one fills or asks it."""

    async def startup(self) -> None:
        # the registry imports the tool modules; do that off the event loop
        try:
            self._tools = await asyncio.to_thread(_tool_descriptions)
        except Exception:  # a broken tool module still leaves the examples usable
            self._tools = []

    def _entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = cast(AskingApp, self.app)
        entries: list[tuple[str, str, Callable[[], object]]] = [
            (f"/{name}", description, partial(app.call_later, app.start_slash_command, name))
            for name, description in self._tools
        ]
        entries += [(question, "example question", partial(app.call_later, app.ask, question))
                    for question in EXAMPLE_QUESTIONS]
        return entries

    async def discover(self) -> Hits:
        for text, help_text, command in self._entries():
            yield DiscoveryHit(text, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help_text, command in self._entries():
            score = matcher.match(f"{text} {help_text}")
            if score > 0:
                yield Hit(score, matcher.highlight(text), command, text=text, help=help_text)
