"""The memory tool takes a pasted config.json for a model outside the catalog.

Llama-2-13B's config (tests/data/configs, address in SOURCES.md): 40 layers, hidden 5120,
40 heads and no num_key_value_heads, so every head keeps K and V (MHA). The KV cache per
token is then 2 x 40 layers x 40 heads x 128 head_dim x 2 B = 819,200 B, five times what a
Llama 3-like GQA guess (8 KV heads) would give. Its weights: about 13.0e9 parameters x 2 B.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from clusterplan.tools.registry import invoke

CONFIGS = Path(__file__).parent / "data" / "configs"


def config(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text())


def test_a_pasted_config_gives_the_real_kv_cache(memory_store):
    result = invoke("memory", {"config": config("meta-llama--Llama-2-13b-hf.json"),
                               "workload": "inference"}).model_dump()
    assert result["kv_cache_bytes_per_token"] == 2 * 40 * 40 * 128 * 2
    assert result["breakdown_gb"]["weights"] == pytest.approx(13.0e9 * 2 / 1e9, rel=0.01)


def test_a_config_with_a_model_name_is_refused_in_one_line(memory_store):
    with pytest.raises(Exception, match="config: a config.json brings its own model"):
        invoke("memory", {"config": config("meta-llama--Llama-2-13b-hf.json"),
                          "model": "llama-3-8b"})


def test_an_unreadable_config_is_one_line_from_the_command_line(tmp_path):
    payload = json.dumps({"config": {"model_type": "llama"}, "workload": "inference"})
    done = subprocess.run([sys.executable, "-m", "clusterplan", "tool", "memory", "--input",
                           payload], capture_output=True, text=True, timeout=120,
                          env={"CLUSTERPLAN_DB": str(tmp_path / "s.db"), "PATH": ""})
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "config" in (done.stderr + done.stdout)


def test_a_config_pasted_into_a_question_is_the_model(memory_store):
    """Pasted whole into the chat, the same file gives the same MHA KV cache: at the default
    4,096-token context, 819,200 B x 4,096 = 3.355 GB."""
    from clusterplan.assistant.respond import respond

    pasted = json.dumps(config("meta-llama--Llama-2-13b-hf.json"))
    answer = respond(f"How much VRAM to serve this model? {pasted}")
    assert answer.clarification is None
    memory = answer.data["memory"]
    assert memory["kv_cache_bytes_per_token"] == 819_200
    assert memory["breakdown_gb"]["kv_cache"] == pytest.approx(819_200 * 4096 / 1e9, abs=0.001)
    assert "read the pasted config.json as the model's shape" in answer.intent.readings


def test_json_that_is_not_a_config_is_left_as_words(memory_store):
    from clusterplan.assistant.parsing.parse import pasted_config

    assert pasted_config('what is {"a": 1}?') == (None, 'what is {"a": 1}?')
