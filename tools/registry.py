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

# Each module defines TOOL; imported only when that tool is first used, so a process that
# calls one tool does not pay for importing (and building the models of) every other one.
TOOL_BY_NAME = {
    "notes": "clusterplan.tools.notes_tool",
    "memory": "clusterplan.tools.memory.tool",
    "interconnect": "clusterplan.tools.interconnect.tool",
    "parallelism": "clusterplan.tools.parallelism.tool",
    "pricing": "clusterplan.tools.pricing.tool",
    "plan": "clusterplan.tools.plan.tool",
}
TOOL_MODULES = tuple(TOOL_BY_NAME.values())


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
    return {name: _load(name) for name in TOOL_BY_NAME}


def get(name: str) -> Tool:
    """The tool called `name`, or ToolError naming the nearest registered ones."""
    if name in TOOL_BY_NAME:
        return _load(name)
    names = list(TOOL_BY_NAME)
    nearest = difflib.get_close_matches(name, names, n=3, cutoff=0.3) or names
    raise ToolError(f"unknown tool {name!r}; registered tools: {', '.join(nearest)}")


@cache
def _load(name: str) -> Tool:
    """Import the one module that defines tool `name`."""
    tool: Tool = importlib.import_module(TOOL_BY_NAME[name]).TOOL
    if tool.name != name:
        raise RuntimeError(f"{TOOL_BY_NAME[name]} defines tool {tool.name!r}, not {name!r}")
    return tool


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
