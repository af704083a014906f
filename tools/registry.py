"""The tool registry: every calculator by name, with its input and output JSON Schemas.

This is the public contract: the CLI, the assistant, the MCP server and the tests all call
tools through `invoke`, so they validate and behave the same way.
"""

from __future__ import annotations

import difflib
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import ValidationError

from clusterplan.tools.contract import ToolError, ToolInput, ToolResult
from clusterplan.validation import describe

# Each module defines TOOL; imported only when the registry is first used.
TOOL_MODULES = (
    "clusterplan.tools.notes_tool",
    "clusterplan.tools.memory",
    "clusterplan.tools.interconnect",
    "clusterplan.tools.parallelism",
    "clusterplan.tools.pricing",
)


@dataclass(frozen=True)
class Tool:
    """A named calculator: `run(input_model) -> output_model`, described for callers."""

    name: str
    description: str
    input_model: type[ToolInput]
    output_model: type[ToolResult]
    run: Callable[[Any], ToolResult]

    def schema(self) -> dict[str, Any]:
        """The tool as an LLM tool-calling API or MCP server describes it."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_model.model_json_schema(),
            "output_schema": self.output_model.model_json_schema(),
        }


@cache
def tools() -> dict[str, Tool]:
    """All registered tools by name."""
    found: dict[str, Tool] = {}
    for module_name in TOOL_MODULES:
        tool: Tool = importlib.import_module(module_name).TOOL
        found[tool.name] = tool
    return found


def get(name: str) -> Tool:
    """The tool called `name`, or ToolError naming the nearest registered ones."""
    registry = tools()
    if name in registry:
        return registry[name]
    nearest = difflib.get_close_matches(name, list(registry), n=3, cutoff=0.3) or list(registry)
    raise ToolError(f"unknown tool {name!r}; registered tools: {', '.join(nearest)}")


def validate(name: str, payload: Any) -> ToolInput:
    """Validate a tool's input; a problem becomes a ToolError naming the field and the reason."""
    tool = get(name)
    if not isinstance(payload, dict):
        raise ToolError(f"the input of tool {name!r} must be a JSON object, not {_kind(payload)}")
    try:
        return tool.input_model.model_validate(payload)
    except ValidationError as exc:
        raise ToolError(f"invalid input for tool {name!r}: {describe(exc)}") from None


def invoke(name: str, payload: Any) -> ToolResult:
    """Validate `payload` and run tool `name` on it."""
    return get(name).run(validate(name, payload))


def parse_json_input(text: str) -> Any:
    """Read a tool input given as JSON text; malformed JSON is a one-line ToolError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolError(f"the input is not valid JSON: {exc.msg} at line {exc.lineno} "
                        f"column {exc.colno}") from None


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )
