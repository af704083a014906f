"""Slash commands: direct tool calls with key=value, and the session commands."""

from __future__ import annotations

import pytest

from clusterplan.assistant.sessions.session import Assistant
from clusterplan.assistant.sessions.slash import parse_arguments
from clusterplan.tools.registry import invoke, tools


@pytest.fixture
def assistant(memory_store):
    return Assistant(memory_store, session="slash")


def test_values_are_read_as_json_where_they_are_json():
    assert parse_arguments('model=llama-3-8b gpus=8 fits=true zero_stages=[1,2] '
                           'note="two words" dp=null') == {
        "model": "llama-3-8b", "gpus": 8, "fits": True, "zero_stages": [1, 2],
        "note": "two words", "dp": None}


def test_words_without_a_key_continue_the_value_before_them():
    assert parse_arguments("model=llama 3 70b workload=lora") == {
        "model": "llama 3 70b", "workload": "lora"}
    with pytest.raises(ValueError, match="expected key=value, got 'llama'"):
        parse_arguments("llama model=x")


def test_a_direct_tool_call_becomes_an_answer_with_the_tools_steps_and_citations(assistant):
    answer = assistant.ask("/notes query=nvlink infiniband limit=2")
    direct = invoke("notes", {"query": "nvlink infiniband", "limit": 2})
    assert answer.error is None
    assert answer.data == {"notes": direct.model_dump(mode="json")}
    assert answer.trace[0].label == "call tool notes"
    assert {k: v.value for k, v in answer.trace[0].inputs.items()} == {
        "query": "nvlink infiniband", "limit": 2}
    assert answer.trace[1:] == direct.steps
    assert answer.citations == direct.citations and len(direct.citations) == 2
    assert answer.markdown.startswith("**notes** (query = nvlink infiniband, limit = 2)")
    assert "| id | title | address | snippet |" in answer.markdown


def test_an_unknown_key_is_one_line_naming_the_valid_keys(assistant):
    answer = assistant.ask("/notes colour=blue")
    assert answer.error == "/notes: unknown key 'colour'; valid keys: query, id, limit"
    assert "\n" not in answer.markdown


def test_a_bad_value_names_the_field_and_the_reason(assistant):
    answer = assistant.ask("/notes query=nvlink limit=0")
    assert answer.error is not None and "\n" not in answer.error
    assert answer.error.startswith("/notes: invalid input for tool 'notes': limit:")
    assert "greater than or equal to 1" in answer.error


def test_an_unknown_command_names_the_valid_ones(assistant):
    answer = assistant.ask("/nots query=x")
    assert answer.error is not None and "\n" not in answer.error
    assert answer.error.startswith("unknown command /nots; did you mean /notes? commands: ")
    for name in ["help", "report", "sources", "reset", "session", *tools()]:
        assert f"/{name}" in answer.error


def test_help_lists_the_session_commands_and_every_tool_with_its_keys(assistant):
    answer = assistant.ask("/help")
    for name in ["help", "report", "sources", "reset", "session"]:
        assert f"`/{name}`" in answer.markdown
    for tool in tools().values():
        keys = " ".join(f"{k}=" for k in tool.input_model.model_fields)
        assert f"`/{tool.name} {keys}`" in answer.markdown
    assert answer.intent is None and answer.error is None


def test_sources_numbers_the_notes_cited_in_the_session(assistant):
    first = assistant.ask("/notes query=nvlink infiniband limit=2")
    assistant.ask("/notes id=parallelism-strategies")
    answer = assistant.ask("/sources")
    cited = [*dict.fromkeys([r.id for r in first.citations] + ["parallelism-strategies"])]
    lines = [line for line in answer.markdown.splitlines() if line[:1].isdigit()]
    assert [line.split("(note ")[1].split(")")[0].split(";")[0] for line in lines] == cited
    assert lines[0].startswith("1. **") and "— <https://" in lines[0]


def test_report_writes_the_session_report_to_the_path(assistant, tmp_path):
    assistant.ask("/notes query=nvlink infiniband limit=2")
    target = tmp_path / "plan.md"
    answer = assistant.ask(f"/report {target}")
    assert answer.error is None and answer.data["path"] == str(target)
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Cluster planning report\n")
    assert "1. /notes query=nvlink infiniband limit=2" in text


def test_report_to_a_missing_directory_is_one_line(assistant, tmp_path):
    answer = assistant.ask(f"/report {tmp_path / 'no' / 'such' / 'x.md'}")
    assert answer.error is not None and answer.error.startswith("cannot write the report to ")
    assert "\n" not in answer.error


def test_reset_clears_the_follow_up_context(assistant):
    assistant.ask("/notes query=nvlink")
    assert assistant.last_intent is not None
    answer = assistant.ask("/reset")
    assert assistant.last_intent is None and answer.error is None


def test_session_switches_and_lists(assistant):
    assistant.ask("/notes query=nvlink")
    answer = assistant.ask("/session other plans")
    assert assistant.session_name == "other plans"
    assert answer.markdown == "Now in session other plans (0 questions so far)."
    listing = assistant.ask("/session").markdown
    # the listing is made before "/session" itself is stored
    assert "- other plans — 1 question, last used " in listing
    assert "- slash — 1 question, last used " in listing
    assert listing.index("other plans") < listing.index("slash")


# Llama 3 8B: 8,030,261,248 parameters (Meta's model card rounds to 8.03 B). LoRA rank 16 on all
# seven linear layers of its 32 layers (hidden 4096, KV 1024, FFN 14336), parameters per layer:
# q, o: (4096+4096)x16 each; k, v: (4096+1024)x16 each; gate, up, down: (4096+14336)x16 each
# = 262,144 + 163,840 + 884,736 = 1,310,720; x 32 layers = 41,943,040 adapter parameters.
BASE, ADAPTERS = 8_030_261_248, 41_943_040


def test_memory_call_passes_every_key_to_the_tool(assistant):
    answer = assistant.ask("/memory model=llama-3-8b workload=lora precision=bf16")
    assert answer.error is None, answer.error
    breakdown = answer.data["memory"]["breakdown_gb"]
    # BF16 frozen base and BF16 adapters: 2 bytes each
    assert breakdown["weights"] == pytest.approx((BASE + ADAPTERS) * 2 / 1e9, abs=0.005)
    # only the adapters train: BF16 gradients, 12 bytes of AdamW state (FP32 master, m, v)
    assert breakdown["gradients"] == pytest.approx(ADAPTERS * 2 / 1e9, abs=0.0005)
    assert breakdown["optimizer"] == pytest.approx(ADAPTERS * 12 / 1e9, abs=0.0005)
    per_gpu = answer.data["memory"]["per_gpu_gb"]
    assert answer.markdown.startswith("**memory** (model = llama-3-8b, workload = lora, "
                                      f"precision = bf16): per GPU {per_gpu:.4g} GB")
    assert '"weights" : 16.14' in answer.markdown  # the Mermaid pie of the breakdown
    assert answer.intent.kind == "memory"


def test_a_follow_up_continues_a_direct_tool_call(assistant):
    first = assistant.ask("/memory model=llama-3-8b workload=lora precision=bf16")
    answer = assistant.ask("and what about on H200?")
    assert answer.error is None and answer.clarification is None, answer.markdown
    slots = answer.intent.slots
    assert (slots["model"], slots["workload"], slots["precision"]) == (
        "llama-3-8b", "lora", "bf16")
    assert slots["gpu"].startswith("h200")
    memory = next(v for k, v in answer.data.items() if k.startswith("memory"))
    # the same job on a bigger GPU: same bytes per GPU; an H200 labelled 141GB holds
    # 143,771 MiB as nvidia-smi reports it: 143,771 x 2^20 / 1e9 = 150.75 GB
    assert memory["per_gpu_gb"] == pytest.approx(first.data["memory"]["per_gpu_gb"], rel=1e-9)
    assert memory["fits"] is True
    h200_gb = 143_771 * 2**20 / 1e9
    assert memory["headroom_gb"] == pytest.approx(h200_gb - memory["per_gpu_gb"], abs=0.05)
