"""Claim checks: verdicts come from the tools, disputes carry both numbers and the reason."""

from __future__ import annotations

import json

import pytest

import clusterplan.knowledge.notes as notes_module
from clusterplan.assistant.notes.check import check_all, check_claim
from clusterplan.knowledge.notes import load_notes
from tests.conftest import run_cli

NOTE = """---
id: probe
title: Checks of the notes tool
sources:
  - {{title: t, publisher: p, address: 'https://e.org', reviewed: 2026-12-02}}
claims:
{claims}
---
"""


def _claim(claim_id: str, tool: str, inp: dict, output: str, value: float) -> str:
    check = {"tool": tool, "input": inp, "output": output, "value": value, "unit": "notes"}
    return f"  - id: {claim_id}\n    text: a claim\n    check: {json.dumps(check)}\n"


# The notes tool's search step reports how many notes it returned; with limit 1 that is 1.
ONE_HIT = {"query": "pipeline parallelism", "limit": 1}
PROBES = "".join([
    _claim("agrees", "notes", ONE_HIT, "steps.0.result.value", 1),
    _claim("disagrees", "notes", ONE_HIT, "steps.0.result.value", 3),
    _claim("no-tool", "nosuch", ONE_HIT, "x", 1),
    _claim("bad-input", "notes", {"query": "x", "colour": 1}, "x", 1),
    _claim("no-path", "notes", ONE_HIT, "steps.9.result.value", 1),
    _claim("not-number", "notes", ONE_HIT, "notes.0.id", 1),
])


@pytest.fixture
def probe_notes(tmp_path):
    (tmp_path / "probe.md").write_text(NOTE.format(claims=PROBES), encoding="utf-8")
    loaded = load_notes(tmp_path)
    assert loaded.problems == []
    return loaded


def _outcome(notes, claim_id):
    return check_claim(notes.notes["probe"], claim_id)


def test_matching_value_agrees(probe_notes):
    outcome = _outcome(probe_notes, "agrees")
    assert (outcome.verdict, outcome.computed_value, outcome.reason) == ("agrees", 1, "")


def test_different_value_disagrees_with_both_numbers_and_the_step(probe_notes):
    outcome = _outcome(probe_notes, "disagrees")
    assert outcome.verdict == "disagrees"
    assert outcome.source_value == 3 and outcome.computed_value == 1
    assert outcome.reason.startswith("the source says 3 notes, but the notes tool computes 1 notes")
    assert "steps: search the notes" in outcome.reason
    assert outcome.reason.endswith(".") and outcome.reason.count(". ") == 0


@pytest.mark.parametrize(("claim_id", "reason"), [
    ("no-tool", "tool 'nosuch' is not registered"),
    ("bad-input", "the notes tool refused the input: invalid input for tool 'notes': colour"),
    ("no-path", "output path 'steps.9.result.value' is absent from the result (no '9')"),
    ("not-number", "output 'notes.0.id' is '"),  # the id of whichever note ranks first
])
def test_check_that_cannot_run_is_not_checkable_with_the_reason(probe_notes, claim_id, reason):
    outcome = _outcome(probe_notes, claim_id)
    assert outcome.verdict == "not checkable"
    assert outcome.computed_value is None
    assert outcome.reason.startswith(reason)
    if claim_id == "not-number":
        assert outcome.reason.split(", ")[-1].startswith("not a number")


def test_check_all_covers_every_checked_claim_in_order(probe_notes):
    assert [o.claim for o in check_all(probe_notes)] == [
        "agrees", "disagrees", "no-tool", "bad-input", "no-path", "not-number"]


def test_cli_prints_the_table_and_fails_when_a_check_cannot_run(probe_notes, monkeypatch):
    monkeypatch.setattr(notes_module, "shipped_notes", lambda: probe_notes)
    result = run_cli("notes", "check")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].split() == ["claim", "source", "computed", "verdict", "reason"]
    row = next(line for line in lines if line.startswith("probe#disagrees"))
    assert row.split()[1:6] == ["3", "notes", "1", "notes", "disagrees"]
    assert lines[-1] == "1 agrees, 1 disagrees, 4 not checkable"


def test_cli_disagreement_alone_exits_zero_and_json_has_every_field(probe_notes, monkeypatch):
    only = "".join(_claim(c, "notes", ONE_HIT, "steps.0.result.value", v)
                   for c, v in (("agrees", 1), ("disagrees", 3)))
    probe_notes.notes["probe"] = notes_module.parse_note(NOTE.format(claims=only), "probe.md")
    monkeypatch.setattr(notes_module, "shipped_notes", lambda: probe_notes)
    result = run_cli("notes", "check", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert [r["verdict"] for r in rows] == ["agrees", "disagrees"]
    assert set(rows[1]) >= {"note", "claim", "source_value", "computed_value", "verdict", "reason"}


def test_cli_unknown_note_is_a_one_line_error():
    result = run_cli("notes", "check", "no-such-note")
    assert result.exit_code == 2
    assert result.output.strip() == (
        "Error: unknown note 'no-such-note'; `clusterplan notes list` shows them")


# --- The shipped notes: disputes the calculators must raise, each with independent arithmetic.

def _shipped(key: str):
    from clusterplan.knowledge.notes import shipped_notes

    note_id, _, claim_id = key.partition("#")
    return check_claim(shipped_notes().notes[note_id], claim_id)


def _llama_params(layers: int, hidden: int, kv_dim: int, ffn: int, vocab: int) -> float:
    """Parameters from a Llama config.json: q,o + k,v + gated MLP per layer, untied embeddings."""
    per_layer = 2 * hidden * hidden + 2 * hidden * kv_dim + 3 * hidden * ffn
    return layers * per_layer + 2 * vocab * hidden


# Llama 3 70B config: 80 layers, hidden 8192, 8 KV heads x 128, FFN 28672, vocab 128256.
LLAMA_3_70B = _llama_params(80, 8192, 1024, 28672, 128256)
# Llama 3.1 405B config: 126 layers, hidden 16384, 8 KV heads x 128, FFN 53248, vocab 128256.
LLAMA_31_405B = _llama_params(126, 16384, 1024, 53248, 128256)


def test_full_finetune_of_70b_does_not_fit_one_8xh100_node(memory_store):
    # Mixed-precision AdamW holds 16 bytes per parameter (ZeRO paper, Rajbhandari et al. 2020,
    # section 3.1: 2 + 2 + 12 bytes for BF16 weights, gradients and FP32 master/momentum/
    # variance). Llama 3 70B has 70.55e9 parameters (its config.json), so
    # 70.55e9 x 16 B = 1,128.8 GB of model states against 8 H100s of 81,559 MiB each (what
    # nvidia-smi reports for the "80GB" part): 8 x 81,559 x 2^20 / 1e9 = 684.2 GB.
    states_gb = LLAMA_3_70B * 16 / 1e9
    h100_gb = 81_559 * 2**20 / 1e9
    assert states_gb == pytest.approx(1128.8, abs=0.5)
    assert states_gb > 8 * h100_gb
    outcome = _shipped("memory-sizing#70b-training-fits")
    assert (outcome.verdict, outcome.source_value, outcome.computed_value) == (
        "disagrees", True, False)
    assert "gpu_memory = 85.5208 GB" in outcome.reason


def test_nvlink_to_infiniband_is_9_to_1_per_direction_not_18(memory_store):
    # H100 NVLink 4: 900 GB/s counts both directions, so 450 GB/s one way (H100 datasheet);
    # NDR InfiniBand: 400 Gb/s one way = 400 / 8 = 50 GB/s. 450 / 50 = 9.
    assert (900 / 2) / (400 / 8) == 9
    outcome = _shipped("nvlink-vs-infiniband#ratio-18-to-1")
    assert outcome.verdict == "disagrees"
    assert outcome.source_value == 18 and outcome.computed_value == pytest.approx(9, rel=1e-9)
    assert "a = 450 GB/s, b = 50 GB/s" in outcome.reason


def test_b200_node_price_is_not_eight_times_the_gpu_price(memory_store):
    # The post: $3.75 per B200 GPU-hour and $47.2 for an 8-GPU node; 8 x 3.75 = $30.
    assert 8 * 3.75 == 30.0
    outcome = _shipped("gpu-prices-2026#packet-b200-node")
    assert (outcome.verdict, outcome.source_value) == ("disagrees", 47.2)
    assert outcome.computed_value == pytest.approx(30.0, abs=0.005)


def test_b200_post_192_gb_matches_the_driver_not_the_180_gb_label(memory_store):
    # DGX B200 datasheet: 1,440 GB over 8 GPUs = 180 GB each, a GiB-based label; nvidia-smi
    # reports 183,359 MiB = 183,359 x 2^20 / 1e9 = 192.27 GB, within 1% of the post's 192.
    outcome = _shipped("gpu-generations#b200-memory")
    assert outcome.verdict == "agrees"
    assert outcome.computed_value == pytest.approx(183_359 * 2**20 / 1e9)
    assert outcome.computed_value != pytest.approx(1440 / 8, rel=0.01)


def test_maverick_has_17b_active_parameters_not_400b(memory_store):
    # Meta's Llama 4 Maverick model card: 17B active parameters, 400B in all, 128 experts.
    outcome = _shipped("memory-sizing#maverick-400b-active")
    assert (outcome.verdict, outcome.computed_value) == ("disagrees", 17)


@pytest.mark.parametrize(("key", "independent"), [
    # 70.55e9 parameters x 2 bytes (BF16) = 141.1 GB, within 2% of the post's 140.
    ("memory-sizing#70b-bf16-weights", LLAMA_3_70B * 2 / 1e9),
    # 405.85e9 parameters x 2 bytes = 811.7 GB, within 2% of the post's 810.
    ("memory-sizing#405b-bf16-weights", LLAMA_31_405B * 2 / 1e9),
    # 400 Gb/s / 8 bits per byte = 50 GB/s.
    ("nvlink-vs-infiniband#ndr-50", 400 / 8),
])
def test_figures_the_tools_confirm_agree(memory_store, key, independent):
    outcome = _shipped(key)
    assert outcome.verdict == "agrees"
    assert outcome.computed_value == pytest.approx(independent, rel=2e-3)


def test_dispute_for_gives_the_reason_of_a_disputed_claim_only(memory_store):
    from clusterplan.assistant.notes.check import dispute_for

    reason = dispute_for("nvlink-vs-infiniband", "ratio-18-to-1")
    assert reason and reason.startswith("the source says 18")
    assert dispute_for("nvlink-vs-infiniband", "ndr-50") is None
    assert dispute_for("nvlink-vs-infiniband", None) is None
    assert dispute_for("no-such-note", "x") is None


def test_a_concept_answer_quoting_a_disputed_claim_shows_the_dispute(memory_store):
    from clusterplan.assistant.notes.concepts import explain

    answer = explain("How big is the bandwidth gap between NVLink and InfiniBand, 18 to 1?")
    ref = next(r for r in answer.citations if r.key == "nvlink-vs-infiniband#ratio-18-to-1")
    assert ref.dispute and "computes 9" in ref.dispute
    assert f"disputed: {ref.dispute}" in answer.markdown


def test_every_shipped_check_runs(memory_store):
    broken = [f"{o.key}: {o.reason}" for o in check_all() if o.verdict == "not checkable"]
    assert not broken, "\n".join(broken)


def test_the_notes_load_without_the_tools():
    # The tools cite the notes, so the notes (knowledge/) must not need the tools: reading and
    # searching notes loads no calculator. Checking a claim runs the calculators, which is why
    # that lives in the assistant, above both.
    import subprocess
    import sys

    code = ("import sys, clusterplan.knowledge.notes, clusterplan.knowledge.search; "
            "print(sorted(m for m in sys.modules if m.startswith('clusterplan.tools')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
