"""What a person sees in a terminal: rendered answers, one line per tool, even price columns."""

from __future__ import annotations

import json
import re

import pytest

from clusterplan.commands import terminal
from tests.conftest import run_cli

QUESTION = "Can I QLoRA fine-tune llama-3-70b on a single H100 80GB?"


@pytest.fixture
def in_a_terminal(monkeypatch):
    monkeypatch.setattr(terminal, "is_terminal", lambda: True)


def test_ask_renders_text_without_markdown_marks():
    out = run_cli("ask", "--format", "text", QUESTION).output
    assert "52.4 GB per GPU" in out
    assert "**" not in out and "\\$" not in out and "\\_" not in out
    assert "master_weights" in out and "| ---" not in out


def test_ask_in_a_terminal_renders_and_piped_prints_markdown(in_a_terminal):
    rendered = run_cli("ask", QUESTION).output
    assert "**" not in rendered and "52.4 GB per GPU" in rendered
    markdown = run_cli("ask", "--markdown", QUESTION).output
    assert "**52.4 GB per GPU**" in markdown and "| --- |" in markdown


def test_ask_piped_prints_markdown_as_before():
    assert "**52.4 GB per GPU**" in run_cli("ask", QUESTION).output


def test_tool_list_is_one_line_per_tool_in_a_terminal(in_a_terminal):
    lines = run_cli("tool", "list").output.splitlines()
    assert [line.split(" - ")[0] for line in lines] == [
        "notes", "memory", "interconnect", "parallelism", "pricing", "plan"]
    listed = json.loads(run_cli("tool", "list", "--json").output)
    assert {"name", "input_schema", "output_schema"} <= set(listed[0])


def test_tool_list_piped_is_json():
    assert json.loads(run_cli("tool", "list").output)[0]["name"] == "notes"


def test_notes_search_has_no_bold_marks_when_piped():
    out = run_cli("notes", "search", "kv", "cache").output
    assert "kv-cache" in out and "**" not in out


def test_prices_list_shows_every_price_with_the_same_decimals():
    out = run_cli("prices", "list", "--gpu", "h200").output.splitlines()
    header, rows = out[0], [r for r in out[1:] if not r.startswith("warning")]
    start = header.index("$/GPU-h")
    gpu_h = [row[start: start + 7].strip() for row in rows]
    assert gpu_h and all(re.fullmatch(r"\d+\.\d{3}", p) for p in gpu_h), gpu_h
    node_h = [row.split()[4] for row in rows]
    assert all(re.fullmatch(r"[\d,]+\.\d{2}", p) for p in node_h), node_h


def test_a_tool_call_in_a_terminal_has_labelled_tables_and_no_chart_source():
    out = run_cli("ask", "--format", "text",
                  "/memory model=llama-3-8b workload=lora precision=bf16").output
    assert "GB per GPU" in out and "parameters (billions)" in out
    assert "mermaid" not in out and "params_b" not in out and "**" not in out
