"""`clusterplan mcp` spoken to by the SDK's real stdio client, as an agent would."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import run_cli

pytestmark = pytest.mark.slow


def _server(home: Path) -> StdioServerParameters:
    exe = shutil.which("clusterplan", path=str(Path(sys.executable).parent))
    assert exe, "the clusterplan console script is installed beside the test interpreter"
    return StdioServerParameters(command=exe, args=["mcp"],
                                 env={"CLUSTERPLAN_HOME": str(home), "PATH": os.environ["PATH"]})


async def test_tools_resources_errors_and_survival(tmp_path):
    expected = {t["name"]: t for t in json.loads(run_cli("tool", "list").output)}
    async with stdio_client(_server(tmp_path)) as streams, ClientSession(*streams) as session:
        await session.initialize()
        listed = {t.name: t for t in (await session.list_tools()).tools}
        assert set(listed) == set(expected) | {"ask"}
        for name, tool in expected.items():
            assert listed[name].input_schema == tool["input_schema"]

        notes = await session.list_resources()
        assert "note://nvidia-h100-datasheet" in {str(r.uri) for r in notes.resources}
        read = await session.read_resource("note://nvidia-h100-datasheet")
        assert "id: nvidia-h100-datasheet" in read.contents[0].text

        bad = await session.call_tool("notes", {"query": "nvlink", "colour": "red"})
        assert bad.is_error
        assert "colour" in bad.content[0].text

        # Llama 3 70B has 70.55e9 parameters (its config); at 2 bytes each that is 141.1 GB.
        memory = await session.call_tool(
            "memory", {"model": "llama-3-70b", "workload": "inference", "precision": "bf16"})
        assert not memory.is_error
        assert memory.structured_content["breakdown_gb"]["weights"] == pytest.approx(141.1, 1e-3)
        assert "Sources:" in memory.content[0].text

        bad_memory = await session.call_tool("memory", {"model": "llama-3-70b", "workload": "x"})
        assert bad_memory.is_error and "workload" in bad_memory.content[0].text

        good = await session.call_tool("notes", {"id": "nvidia-h200-datasheet"})
        assert not good.is_error  # the server survived the bad calls
        assert good.structured_content["note"]["id"] == "nvidia-h200-datasheet"

        asked = await session.call_tool("ask", {"question": "Convert 400 Gb/s to GB/s"})
        assert not asked.is_error
        assert "50 GB/s" in asked.structured_content["markdown"]  # 400 / 8 bits per byte
        assert asked.structured_content["citations"]
        refused = await session.call_tool("ask", {"question": ""})
        assert refused.is_error and "question" in refused.content[0].text
