"""The tool registry served over the Model Context Protocol (stdio), for agents and editors.

Every registered tool becomes an MCP tool with its pydantic input schema; `ask` answers a
plain question through the assistant; the notes are resources at note://ID. A bad call is
an MCP tool error naming the field; the server keeps serving.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from clusterplan import __version__
from clusterplan.assistant.respond import respond
from clusterplan.knowledge.notes import notes_dir, shipped_notes
from clusterplan.mcp_transport import screened_stdio
from clusterplan.text import without_surrogates
from clusterplan.tools.contract import ToolError, ToolResult
from clusterplan.tools.registry import invoke, tools

ASK_TOOL = "ask"
ASK_SCHEMA = {
    "type": "object",
    "properties": {"question": {"type": "string", "description": "a planning question"}},
    "required": ["question"],
    "additionalProperties": False,
}


def tool_list() -> list[types.Tool]:
    """The registry's tools, plus `ask`, as MCP tool descriptions."""

    listed = [
        types.Tool(name=t.name, description=t.description,
                   input_schema=t.input_model.model_json_schema(),
                   output_schema=t.output_model.model_json_schema())
        for t in tools().values()
    ]
    listed.append(types.Tool(
        name=ASK_TOOL, input_schema=ASK_SCHEMA,
        description="Answer a GPU-cluster planning question in plain words: "
                    "markdown, the trace of every step, and the cited notes."))
    return listed


MAX_ARGUMENTS_CHARS = 100_000  # a question or a tool input is short; more is refused


def call(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """Run one tool; any problem becomes an error result, never an exception, so every
    request is answered. Text in and out is cleaned of lone surrogates (not encodable)."""
    try:
        arguments = without_surrogates(arguments)
        if len(json.dumps(arguments or {})) > MAX_ARGUMENTS_CHARS:
            raise ToolError(f"the arguments are over {MAX_ARGUMENTS_CHARS:,} characters")
        payload = _answer(arguments or {}) if name == ASK_TOOL else _invoke(name, arguments)
        payload = without_surrogates(payload)
    except (ToolError, ValueError) as exc:
        return _error(" ".join(str(exc).split()))
    except Exception as exc:  # the server keeps serving; the client gets a one-line error
        return _error(f"internal error ({type(exc).__name__}): {' '.join(str(exc).split())}")
    return types.CallToolResult(content=[types.TextContent(type="text", text=_render(payload))],
                                structured_content=payload)


def _error(text: str) -> types.CallToolResult:
    content = [types.TextContent(type="text", text=without_surrogates(text[:2000]))]
    return types.CallToolResult(content=content, is_error=True)


def _invoke(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    result: ToolResult = invoke(name, arguments or {})
    return result.model_dump(mode="json")


def _answer(arguments: dict[str, Any]) -> dict[str, Any]:
    question = arguments.get("question")
    extra = sorted(set(arguments) - {"question"})
    if not isinstance(question, str) or not question.strip() or extra:
        raise ToolError("tool 'ask' takes one field, `question`: a non-empty string"
                        + (f" (unknown: {', '.join(extra)})" if extra else ""))

    return respond(question).model_dump(mode="json")


def _render(payload: dict[str, Any]) -> str:
    """A short text rendering: the answer's markdown or the result's steps, then citations."""
    lines = [payload["markdown"]] if "markdown" in payload else [
        step_line(s) for s in payload.get("steps", [])]
    cites = payload.get("citations", [])
    if cites:
        lines.append("Sources:")
        lines += [f"[{i}] {c['title']} ({c['id']}) {c['address']}" for i, c in
                  enumerate(cites, 1)]
    return "\n".join(lines) or json.dumps(payload)[:2000]


def step_line(step: dict[str, Any]) -> str:
    result = step.get("result") or {}
    value = f" = {result.get('value')} {result.get('unit', '')}".rstrip() if result else ""
    return f"- {step['label']}{value}"


def note_resources() -> list[types.Resource]:
    return [types.Resource(name=n.id, title=n.title, uri=f"note://{n.id}",
                           mime_type="text/markdown") for n in shipped_notes().notes.values()]


def read_note(uri: str) -> types.ReadResourceResult:
    note_id = uri.removeprefix("note://")
    note = shipped_notes().notes.get(note_id)
    if note is None:
        raise MCPError(INVALID_PARAMS, f"unknown note {without_surrogates(note_id)[:200]!r}; "
                       "list the resources for valid ids")
    text = (notes_dir() / note.file).read_text(encoding="utf-8")
    return types.ReadResourceResult(contents=[types.TextResourceContents(
        uri=uri, mime_type="text/markdown", text=text)])


def build_server() -> Server[Any]:
    """The MCP server, with the registry and notes behind it."""

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return call(params.name, params.arguments)

    async def on_list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=note_resources())

    async def on_read_resource(ctx: Any, params: types.ReadResourceRequestParams
                               ) -> types.ReadResourceResult:
        return read_note(str(params.uri))

    return Server("clusterplan", version=__version__, on_list_tools=on_list_tools,
                  on_call_tool=on_call_tool, on_list_resources=on_list_resources,
                  on_read_resource=on_read_resource)


async def serve_stdio() -> None:
    """Serve until the client closes stdin; every malformed line gets an error reply."""

    server = build_server()
    async with screened_stdio() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
