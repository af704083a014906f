"""`clusterplan mcp` spoken to line by line, as a hostile or broken client would (issue 23):
every line gets one JSON-RPC reply with the standard error code, text with a lone surrogate
is answered, nothing reaches stderr, and the server keeps serving."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "wire-test", "version": "1"}}}
# (line sent, the id the reply must carry, its error code or None for a result)
HOSTILE = [
    ('{"id": 2, "method": "tools/list"}', 2, -32600),
    ('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": 5}', 3, -32602),
    ('{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "ask", '
     '"arguments": {"question": "how much memory to serve llama 3 8b \\ud800?"}}}', 4, None),
    ('{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "memory", '
     '"arguments": {"model": "\\ud800", "workload": "inference"}}}', 5, None),
    ('{"jsonrpc": "2.0", "id": 6, "method": "resources/read", '
     '"params": {"uri": "note://no-such-note"}}', 6, -32602),
    ("not json at all", None, -32700),
    ('{"jsonrpc": "2.0", "id": 7, "method": "no/such"}', 7, -32601),
    ("[1, 2]", None, -32600),
    ('{"jsonrpc": "1.0", "id": 8, "method": "tools/list"}', 8, -32600),
    ('{"jsonrpc": "2.0", "id": true, "method": "tools/list"}', None, -32600),
    ('{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": [1]}', 9, -32602),
    ("[" * 5000, None, -32700),
]


def _reply(proc: subprocess.Popen, timeout: float = 60) -> dict:
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no reply: the request was left unanswered"
    line = proc.stdout.readline()
    assert line, "the server closed its output"
    return json.loads(line)


def test_every_hostile_line_gets_one_reply_and_the_server_keeps_serving(tmp_path: Path):
    exe = shutil.which("clusterplan", path=str(Path(sys.executable).parent))
    assert exe
    proc = subprocess.Popen([exe, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={"CLUSTERPLAN_HOME": str(tmp_path), "PATH": os.environ["PATH"]})

    def send(line: str) -> None:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    try:
        send(json.dumps(INIT))
        assert _reply(proc)["id"] == 1
        send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        for line, request_id, code in HOSTILE:
            send(line)
            reply = _reply(proc)
            assert reply["jsonrpc"] == "2.0" and reply["id"] == request_id, (line, reply)
            if code is None:
                assert "result" in reply, (line, reply)
            else:
                assert reply["error"]["code"] == code, (line, reply)
        send('{"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "ask", '
             '"arguments": {"question": "Convert 400 Gb/s to GB/s"}}}')
        survived = _reply(proc)
        assert survived["id"] == 99 and "50 GB/s" in json.dumps(survived)  # 400 / 8
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.stderr.read() == "", "nothing on stderr: no traceback"


def test_a_screened_line_is_passed_on_whole_or_refused_with_its_id():
    from clusterplan.mcp_transport import Refused, screen

    message = screen('{"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": '
                     '{"name": "ask", "arguments": {"question": "x \\ud800"}}}')
    assert message.model_dump(by_alias=True)["params"]["arguments"]["question"] == "x \ufffd"
    assert screen("   ") is None
    with pytest.raises(Refused) as refused:
        screen('{"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": "x"}')
    assert (refused.value.code, refused.value.request_id) == (-32602, "b")
