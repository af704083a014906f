"""`clusterplan ask` and `clusterplan report`: answers, JSON, sessions across processes."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.conftest import run_cli


def clusterplan(*args: str) -> subprocess.CompletedProcess[str]:
    """Run clusterplan in its own process, as a shell would (the data dir comes from the env)."""
    return subprocess.run([sys.executable, "-m", "clusterplan", *args], capture_output=True,
                          text=True, timeout=120)


def test_ask_prints_the_answer_markdown():
    result = run_cli("ask", "/notes query=nvlink infiniband limit=2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("**notes** (query = nvlink infiniband, limit = 2)")


def test_ask_json_prints_the_whole_answer():
    result = run_cli("ask", "--json", "/notes id=parallelism-strategies")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["question"] == "/notes id=parallelism-strategies"
    assert answer["intent"]["kind"] == "concept"
    assert answer["data"]["notes"]["note"]["id"] == "parallelism-strategies"
    assert answer["citations"][0]["id"] == "parallelism-strategies"
    assert set(answer) >= {"markdown", "trace", "assumptions", "warnings", "clarification"}


def test_ask_that_cannot_answer_exits_1_with_one_line_on_stderr():
    result = run_cli("ask", "/zzzz")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error: unknown command /zzzz; commands: /help")
    assert result.stderr.count("\n") == 1


def test_questions_are_stored_and_exported_by_report(tmp_path):
    run_cli("ask", "--session", "rack", "/notes query=nvlink infiniband limit=2")
    run_cli("ask", "--session", "rack", "/notes id=parallelism-strategies")
    out = tmp_path / "rack.md"
    result = run_cli("report", "--session", "rack", "--out", str(out), "--title", "Rack plan")
    assert result.exit_code == 0, result.output
    assert result.stderr == f"wrote the report of 2 questions to {out}\n"
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Rack plan\n\nPrepared ")
    assert "2 questions · session rack" in text
    assert "1. /notes query=nvlink infiniband limit=2\n2. /notes id=parallelism-strategies" in text


def test_report_without_a_session_exports_the_latest_kept_one_and_says_which():
    run_cli("ask", "--session", "old", "/notes query=nvlink")
    run_cli("ask", "/notes id=parallelism-strategies")  # one-off: not a session to export
    result = run_cli("report")
    assert result.exit_code == 0
    assert "session old" in result.stdout
    assert "/notes id=parallelism-strategies" not in result.stdout
    assert result.stderr.startswith("exporting the latest session: 'old'")


def test_report_of_an_unknown_session_names_the_nearest_sessions():
    assert run_cli("report").stderr == (
        'Error: no sessions yet; ask in the app, or clusterplan ask --session NAME "..."\n')
    run_cli("ask", "--session", "alpha", "/help")
    run_cli("ask", "--session", "rack-plan", "/help")
    result = run_cli("report", "--session", "rack plan")
    assert result.exit_code == 2
    assert result.stderr == "Error: no session named 'rack plan'; the nearest: 'rack-plan'\n"
    result = run_cli("report", "--session", "zzz")
    assert result.stderr == "Error: no session named 'zzz'; recent ones: 'rack-plan', 'alpha'\n"


HOSTILE = [
    "", " ", "/", "'; DROP TABLE sessions; --", "x" * 100_000, "\x1b[2J\x07", "🚀🔥" * 100,
    "# h\n| a |\n<script>", "how much memory for 1e999 PB at -3 Gb/s on 0 GPUs?", "/report /",
    "/session", "/notes limit=-1", "/memory model=", "\udcff\udcfe",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_never_raises(text):
    # run_cli does not catch exceptions: a traceback here fails the test
    result = run_cli("ask", "--json", "--", text)
    assert result.exit_code in (0, 1)
    assert "question" in json.loads(result.stdout)


@pytest.mark.slow
def test_a_named_session_carries_a_follow_up_to_the_next_process():
    first = clusterplan("ask", "--session", "p", "How much memory to serve Llama 3 70B?")
    assert first.returncode in (0, 1) and "Traceback" not in first.stderr
    second = clusterplan("ask", "--session", "p", "--json", "what about FP8?")
    assert "Traceback" not in second.stderr
    intent = json.loads(second.stdout)["intent"]
    assert intent["slots"]["model"] == "llama-3-70b"  # kept from the first process's question
    assert intent["slots"]["precision"] == "fp8"
    alone = json.loads(clusterplan("ask", "--json", "what about FP8?").stdout)
    assert "model" not in (alone["intent"] or {}).get("slots", {})


@pytest.mark.slow
def test_hostile_arguments_in_a_real_process_print_no_traceback():
    for text in ["\udcff", "-", "--", "%s%n", "$(echo hi)", "x" * 50_000]:
        result = clusterplan("ask", "--", text)
        assert "Traceback" not in result.stderr, text
        assert result.returncode in (0, 1), (text, result.stderr)


def test_control_characters_never_reach_the_terminal():
    result = run_cli("ask", "/notes query=\x1b[2J\x9b6n nvlink limit=1")
    assert result.exit_code == 0
    assert "\x1b" not in result.stdout and "\x9b" not in result.stdout
    failed = run_cli("ask", "/\x1b[2Jnope")
    assert failed.exit_code == 1 and "\x1b" not in failed.stderr


def test_405b_on_16k_h100_trains_in_the_published_time_at_the_published_mfu():
    # Llama 3 405B on 16,384 H100: 38-43% BF16 MFU (mfu-calibration#llama3-mfu); 15T tokens at
    # that MFU are 65-74 days of uninterrupted training (llama3-405b-days-arithmetic) and the
    # model card's 30.84M GPU-hours are 78 days. The question names no architecture, so the
    # answer takes a Llama-3-like 405B shape and the default batch scaled to the cluster (16M
    # tokens, Llama 3's own). Before: 185 days at 14.7% MFU (a 4M-token batch, plain 1F1B).
    result = run_cli("ask", "--json", "405B on 15T tokens on 16,384 H100")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    found = answer["data"]["parallelism"]
    assert found["global_batch"] * found["seq_len"] == 16 * 1024 * 1024
    best = found["plans"][0]
    # At Meta's own layout the planner reads 2.2-2.3 points under its figures
    # (mfu-calibration#efficiency-held-back), so 35.5% is the floor of an honest answer.
    assert 0.355 <= best["mfu"] <= 0.45
    assert 54 * 0.75 <= found["training_days"] <= 78  # at most Meta's wall time with restarts
    # Tensor parallelism stays inside the node: Meta ran 8; with NCCL's rings sharing a
    # node's eight ports (collective-algorithms#rings-per-port) sharded data parallelism at
    # tp 4 reads within 3% of it, a tie at this model's precision.
    assert best["tp"] in (4, 8)
    # Sharded data parallelism and pipelines land within a few percent of each other; the
    # pipelined layouts run the interleaved schedule, never the plain 1F1B of 185 days.
    piped = next(p for p in found["plans"] if p["pp"] > 1)
    assert piped["virtual_stages"] > 1
    assert piped["step_time_s"] <= 1.05 * best["step_time_s"]


def test_a_batch_no_layout_splits_becomes_a_nearby_workable_one_and_says_so():
    # 16,000,000 tokens at 8,192 are 1,953 sequences, an odd number: no data parallelism above
    # 1 divides it, so no layout of 16,384 GPUs does. 2,048 sequences (4.9% more) split every
    # power of two; 1,952 = 32 x 61 would cap data parallelism at 32.
    result = run_cli("ask", "--json", "405B on 15T tokens on 16,384 H100, global batch of "
                     "16,000,000 tokens at sequence length 8192")
    answer = json.loads(result.output)
    found = answer["data"]["parallelism"]
    assert found["plans"] and found["global_batch"] == 2048
    said = [w for w in answer["warnings"] if w.startswith("global batch: 1,953 sequences")]
    assert said and "using 2,048" in said[0]


def test_an_mfu_question_gets_the_layout_search_not_a_serving_fit():
    # "What MFU does it reach" names a model and a cluster but no token budget: the answer is
    # the best training layout and its MFU (before: "serving ... does not fit").
    result = run_cli("ask", "--json", "What MFU does Llama 3 405B reach on 16384 H100?")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["intent"]["kind"] == "layout"
    best = answer["data"]["parallelism"]["plans"][0]
    assert 0.3 < best["mfu"] < 0.5
    assert f"MFU {100 * best['mfu']:.1f}%" in answer["markdown"]
    assert "does not fit" not in answer["markdown"].splitlines()[0]


def test_a_fewest_count_below_the_gpus_asked_says_the_model_must_be_split():
    # 13B full fine-tuning with ZeRO-1 on 8 A100 80GB: every GPU keeps the BF16 weights and
    # gradients, 13e9 x 2 B = 26 GB each, beside 13e9 x 12 B / 8 = 19.5 GB of optimizer states
    # and the activations: over 85.9 GB. Four GPUs hold it only with the model split (TP 4),
    # which the answer has to say, or "8 do not fit, 4 do" reads as a contradiction.
    result = run_cli("ask", "--markdown", "How much memory per GPU for full fine-tuning a 13B "
                     "model on 8 A100 80GB with ZeRO-1?")
    lead = result.output.splitlines()[0]
    assert lead.startswith("No, it does not fit")
    assert "The fewest NVIDIA A100 SXM 80GB that hold it: **4** when tensor or pipeline " \
        "parallelism splits the model" in lead


def test_fp32_gradients_are_megatrons_main_gradients_not_fp32_weights():
    # "fp32 gradients" names the gradients' type on a training job: BF16 weights, FP32
    # gradients (megatron-optimizer-memory#bf16). 7e9 parameters sharded over 8 GPUs (ZeRO-3,
    # assumed and said): weights 7e9 x 2 / 8 = 1.75 GB, gradients 7e9 x 4 / 8 = 3.5 GB,
    # optimizer 7e9 x 12 / 8 = 10.5 GB. Before: "serving a 7B-parameter model in FP32".
    result = run_cli("ask", "--json", "With Megatron and fp32 gradients, how much memory does "
                     "a 7B model need per GPU on 8 A100?")
    answer = json.loads(result.output)
    assert answer["intent"]["slots"]["fp32_main_grads"] is True
    parts = answer["data"]["memory"]["breakdown_gb"]
    assert (parts["weights"], parts["gradients"], parts["optimizer"]) == (1.75, 3.5, 10.5)
    assert "in BF16" in answer["markdown"].splitlines()[0]


def test_kv_room_on_many_replicas_is_said_per_replica():
    # 16,384 H100 serving Llama 3.1 405B are 1,024 replicas of 16 GPUs (tp 8, pp 2): a request
    # sees one replica's room, so the headline gives that and the sum beside it, 1,024 times
    # it; a token's cache is 126 layers x 8 KV heads x 128 x 2 (K and V) x 2 B = 516,096 bytes.
    result = run_cli("ask", "--markdown", "serve Llama 3 405B on 16384 H100")
    lead = result.output.splitlines()[0]
    room = re.search(r"about \*\*([\d,]+) more tokens\*\* of KV cache in each of the 1,024 "
                     r"replicas \(([\d,]+) in all; 516,096 bytes per token\)", lead)
    assert room
    each, total = (int(g.replace(",", "")) for g in room.groups())
    assert each == total // 1024
