"""What a front end looks up beside answers: names to complete, the tools, a note by id.

The app reaches the catalog and the calculators only through the assistant, so these few
reads live here rather than in the app.
"""

from __future__ import annotations

from typing import Any

from clusterplan.db.active import catalog
from clusterplan.tools.registry import invoke, tools


def catalog_names() -> list[str]:
    """Model and GPU ids, then names, from the active catalog (ids are what people type)."""
    found = catalog()
    ids = [*found.models.ids(), *found.gpus.ids()]
    names = [row.name for table in (found.models, found.gpus) for row in table.rows.values()]
    return list(dict.fromkeys([*ids, *names]))


def tool_descriptions() -> list[tuple[str, str]]:
    """(name, description) of every registered tool."""
    return [(tool.name, tool.description) for tool in tools().values()]


def note(note_id: str) -> dict[str, Any]:
    """One note with its claims, as the `notes` tool shows it."""

    result: dict[str, Any] = invoke("notes", {"id": note_id}).model_dump()["note"]
    return result
