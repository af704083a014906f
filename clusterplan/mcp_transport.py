"""MCP over stdio with every line screened first, so each malformed request gets a JSON-RPC
error reply instead of silence.

The SDK drops a line it cannot read as a JSON-RPC message (no `jsonrpc`, `params: 5`, text
that is not JSON, a lone surrogate such as `\\ud800`): the client waits forever. Here each
line is read as JSON first; a lone surrogate becomes U+FFFD (it cannot be encoded in a
reply); a line that is not a request, notification or response is answered with the
standard code (-32700 parse error, -32600 invalid request, -32602 invalid params) and the
request's id when it has one. Only well-formed messages reach the SDK.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR

from clusterplan.text import without_surrogates

MAX_LINE_CHARS = 1_000_000  # a request is a few kB; a longer line is refused, not parsed


class Refused(Exception):
    """A line that is not a JSON-RPC message: the error to send back, and to which id."""

    def __init__(self, code: int, message: str, request_id: Any = None):
        super().__init__(message)
        self.code, self.message = code, message
        self.request_id = request_id if _valid_id(request_id) else None


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def screen(line: str) -> types.JSONRPCMessage | None:
    """The message on `line` (None for a blank line), or Refused saying why it is not one."""
    if not line.strip():
        return None
    if len(line) > MAX_LINE_CHARS:
        raise Refused(INVALID_REQUEST, f"Invalid request: a message is at most "
                      f"{MAX_LINE_CHARS:,} characters")
    try:
        data = without_surrogates(json.loads(line))
    except (ValueError, RecursionError):
        raise Refused(PARSE_ERROR, "Parse error: the line is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(INVALID_REQUEST, "Invalid request: a message is one JSON object "
                      "(batches are not supported)")
    request_id = data.get("id")
    if data.get("jsonrpc") != "2.0":
        raise Refused(INVALID_REQUEST, "Invalid request: `jsonrpc` must be \"2.0\"", request_id)
    if "method" in data and "params" in data and not isinstance(data["params"], dict):
        raise Refused(INVALID_PARAMS, "Invalid params: `params` must be an object",
                      request_id)
    if "id" in data and not _valid_id(request_id):
        raise Refused(INVALID_REQUEST, "Invalid request: `id` must be a string or an integer")
    try:
        return types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValueError as exc:
        raise Refused(INVALID_REQUEST, "Invalid request: " + " ".join(str(exc).split())[:300],
                      request_id) from None


class _Screened:
    """The stdin lines the SDK reads: well-formed messages only; the others are answered
    here through the server's own write stream (one writer, so replies never interleave)."""

    def __init__(self, lines: Any):
        self.lines = lines
        self.replies: Any = None
        self.ready = anyio.Event()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self.lines:
            try:
                message = screen(line)
            except Refused as refused:
                await self.ready.wait()
                await self.replies.send(SessionMessage(types.JSONRPCError(
                    jsonrpc="2.0", id=refused.request_id,
                    error=types.ErrorData(code=refused.code, message=refused.message))))
                continue
            if message is not None:
                yield message.model_dump_json(by_alias=True, exclude_unset=True)


@asynccontextmanager
async def screened_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """`stdio_server()` with every incoming line screened (see the module's docstring)."""
    raw = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    screened = _Screened(raw)
    async with stdio_server(stdin=screened) as (read_stream, write_stream):  # type: ignore[arg-type]
        screened.replies = write_stream
        screened.ready.set()
        yield read_stream, write_stream
