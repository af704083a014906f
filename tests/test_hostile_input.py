"""Hostile input at the tool boundary (issue 23): no arithmetic is evaluated, every size is
bounded, out-of-range numbers are one-line refusals naming the field and the limit."""

from __future__ import annotations

import json
import time

import pytest

from clusterplan.tools.units import MAX_QUANTITY_CHARS, UnitError, parse
from tests.conftest import run_cli


def _tool(name: str, payload: object) -> tuple[int, str]:
    started = time.monotonic()
    result = run_cli("tool", name, "--input", payload if isinstance(payload, str)
                     else json.dumps(payload))
    assert time.monotonic() - started < 10, "the call must not hang"
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.mark.parametrize("text", ["9**9**9 GB", "2**10 GB", "(1+1) GB", "1e999 GB", "nan GB",
                                  "inf GB", "1e308 TB", "9" * 400 + " GB", "GB", "140",
                                  "140 GB" + " " * 100, "140 GB * GB", "140 kg"])
def test_quantities_are_read_strictly(text):
    started = time.monotonic()
    with pytest.raises(UnitError):
        parse(text, "B")
    assert time.monotonic() - started < 1


def test_ordinary_quantities_still_read():
    assert parse("140 GB", "B").to("B").magnitude == 140e9
    assert parse("1,000 GB", "B").to("GB").magnitude == 1000
    assert parse("2 GiB", "B").to("B").magnitude == 2 * 2**30
    assert parse("400 Gb/s", "GB/s").to("GB/s").magnitude == 50
    assert parse("1.5e3 GB", "B").to("GB").magnitude == 1500


def test_power_in_a_convert_returns_at_once_with_one_line():
    code, output = _tool("interconnect", {"op": "convert", "value": "9**9**9 GB", "to": "GiB"})
    assert code != 0
    assert len(output.strip().splitlines()) == 1 and output.startswith("Error: ")


def test_power_in_the_target_unit_is_refused():
    code, output = _tool("interconnect", {"op": "convert", "value": "1 GB", "to": "GB**9**9"})
    assert code != 0 and "cannot read" in output


def test_nan_rate_is_refused_not_answered():
    code, output = _tool("interconnect", {"op": "convert", "value": "nan Gb/s", "to": "GB/s"})
    assert code != 0 and "nan" not in output.lower().replace("'nan gb/s'", "")


def test_huge_number_names_the_limit():
    code, output = _tool("interconnect", {"op": "convert", "value": "9" * 400 + " GB",
                                          "to": "GiB"})
    assert code != 0 and "at most" in output and "OverflowError" not in output
    assert len(output) < 400


def test_quantity_length_is_bounded():
    code, output = _tool("interconnect", {"op": "convert", "value": "1" * 10_000 + " GB",
                                          "to": "GiB"})
    assert code != 0 and str(MAX_QUANTITY_CHARS) in output


NINES = "9" * 400


@pytest.mark.parametrize("question, field", [
    (f"cheapest {NINES} H100 for a month?", "the count"),
    (f"can I serve llama 3 8b on {NINES} H100s?", "the count"),
    (f"fine-tune llama 3 8b with batch {NINES} on 8 H100", "the batch"),
    (f"what do 8 H100 cost for {NINES} hours?", "the duration"),
])
def test_long_numbers_are_a_one_line_refusal_naming_the_field_and_limit(question, field):
    result = run_cli("ask", question)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "OverflowError" not in lines[0] and "internal error" not in lines[0]
    assert lines[0].startswith(f"Error: {field} 9999...9999 (400 digits) is out of range")
    assert "at most 15 digits" in lines[0]


def test_a_long_run_of_digits_does_not_backtrack_for_seconds():
    started = time.monotonic()
    result = run_cli("ask", "1" * 2000 + " GB")
    assert time.monotonic() - started < 10
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name, payload, field", [
    ("pricing", {"egress_tb": 1e308, "egress_provider": "aws"}, "egress_tb"),
    ("pricing", {"gpu": "h100", "gpus": 8, "hours": 1e308}, "hours"),
    ("pricing", {"gpu": "h100", "gpus": 8, "hours": "NaN"}, "hours"),
    ("parallelism", {"model": "llama-3-8b", "gpu": "h100", "gpus": 8, "workload": "pretrain",
                     "efficiency": 1e-308}, "efficiency"),
])
def test_out_of_range_tool_inputs_are_refused_naming_the_field(name, payload, field):
    code, output = _tool(name, payload)
    assert code != 0 and field in output, output
    assert len(output.strip().splitlines()) == 1


def test_nan_and_inf_in_json_are_refused():
    code, output = _tool("pricing", '{"gpu": "h100", "gpus": 8, "hours": Infinity}')
    assert code != 0 and "hours" in output


def test_as_of_before_the_offers_gives_no_negative_age():
    code, output = _tool("pricing", {"gpu": "h100", "gpus": 8, "as_of": "2000-01-01"})
    assert "Traceback" not in output
    if code == 0:
        data = json.loads(output)
        assert all(o["age_days"] >= 0 for o in data["offers"])
        assert any("verified after as_of" in w for w in data["warnings"])


def test_nan_rate_question_is_not_answered_with_nan():
    result = run_cli("ask", "Convert nan Gb/s to GB/s")
    assert "nan GB/s" not in result.output


def test_no_result_carries_a_non_finite_number():
    from clusterplan.tools.registry import _non_finite

    assert _non_finite({"a": [1.0, {"b": float("inf")}]}) == "a.1.b"
    assert _non_finite({"a": [1.0, 2]}) is None


def test_deeply_nested_json_is_one_line():
    code, output = _tool("memory", "[" * 5000)
    assert code != 0 and "nested too deeply" in output


def test_a_binary_input_file_is_one_line(tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(b"\xff\xfe\x00\x81" * 100)
    code, output = _tool("memory", f"@{path}")
    assert code != 0 and "not UTF-8" in output


def test_an_oversized_input_is_refused_naming_the_limit():
    code, output = _tool("memory", '{"model": "' + "x" * 1_100_000 + '"}')
    assert code != 0 and "1,000,000" in output


HEADER = ("provider,gpu,gpus_per_node,kind,usd_per_gpu_hour,usd_per_node_hour,region,"
          "verified_on,status,source_note\n")


def test_a_price_file_with_a_huge_cell_is_one_line(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text(HEADER + '"' + "x" * 140_000 + '",h100,8,on_demand,1,,eu,2026-11-30,'
                    "available,n\n")
    result = run_cli("prices", "import", str(path))
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "field larger than field limit" in result.output


def test_a_nul_in_a_provider_name_is_refused(tmp_path):
    path = tmp_path / "nul.csv"
    path.write_text(HEADER + "ac\x00me,h100,8,on_demand,1,,eu,2026-11-30,available,n\n")
    result = run_cli("prices", "import", str(path))
    assert result.exit_code != 0 and "control characters" in result.output


def test_exported_cells_cannot_run_as_spreadsheet_formulas(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text(HEADER + '"=HYPERLINK(""http://x"")",h100,8,on_demand,1,,@eu,2026-11-30,'
                    "available,n\n")
    assert run_cli("prices", "import", str(path)).exit_code == 0
    exported = run_cli("prices", "export", "--origin", "user").output
    assert "'=HYPERLINK" in exported and ",'@eu," in exported


@pytest.mark.parametrize("name, arguments", [
    ("ask", {"question": "how much memory for llama 3 8b \ud800?"}),
    ("memory", {"model": "\ud800", "workload": "inference"}),
    ("ask", {"question": "x" * 200_000}),
    ("interconnect", {"op": "convert", "value": "9**9**9 GB", "to": "GiB"}),
])
def test_mcp_calls_always_answer_with_encodable_text(name, arguments, memory_store):
    from clusterplan.mcp_server import call

    result = call(name, arguments)
    dumped = result.model_dump_json()
    dumped.encode("utf-8")  # would raise on a lone surrogate
    if name != "ask" or len(arguments["question"]) > 1000:
        assert result.is_error


def test_mcp_unknown_note_is_an_invalid_params_error():
    from mcp.shared.exceptions import MCPError

    from clusterplan.mcp_server import read_note

    with pytest.raises(MCPError) as caught:
        read_note("note://no-such-note")
    assert caught.value.code == -32602


def test_a_report_command_in_a_batch_file_writes_nothing(tmp_path):
    target = tmp_path / "victim.txt"
    target.write_text("keep me")
    questions = tmp_path / "q.txt"
    questions.write_text(f"how much memory to serve llama 3 8b?\n/report {target}\n"
                         "/report ~/x.md\n")
    result = run_cli("batch", str(questions), "--format", "jsonl")
    assert target.read_text() == "keep me"
    items = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert [i["failed"] for i in items] == [False, True, True]
    assert "may not do" in items[1]["answer"]["error"]


def test_batch_lines_break_only_at_newlines(tmp_path):
    questions = tmp_path / "q.txt"
    questions.write_text("how much memory\x0cto serve llama 3 8b?\n"
                         "convert 400 Gb/s\u2028to GB/s\nconvert 400 Gb/s to GB/s\n")
    result = run_cli("batch", str(questions), "--format", "jsonl")
    lines = [json.loads(x)["line"] for x in result.output.split("\n") if x.startswith("{")]
    assert lines == [1, 2, 3]


def test_batch_failure_summary_counts_the_rest(tmp_path):
    questions = tmp_path / "q.txt"
    questions.write_text("/nosuch\n" * 12)
    result = run_cli("batch", str(questions), "--format", "jsonl")
    assert "12 of 12 questions failed" in result.output and "and 2 more" in result.output


def test_slash_arguments_are_length_capped():
    started = time.monotonic()
    result = run_cli("ask", "/memory model=" + "x " * 500_000)
    assert time.monotonic() - started < 10
    assert result.exit_code == 1 and "at most 4,000" in result.output


@pytest.mark.parametrize("question, said", [
    ("Convert 1e999 GB to GiB", "the number 1e999 is out of range"),
    ("cheapest 1e308 H100 for a month?", "the number 1e308 is out of range"),
    ("can I serve llama 3 8b on 1e308 H100s?", "the number 1e308 is out of range"),
    ("how much memory to serve llama 3 8b at 1e-308 utilisation?",
     "the number 1e-308 is out of range"),
    ("Convert 9**9**9 GB to GiB", "9**9**9 is arithmetic, which is not evaluated"),
    ("convert 2^10 GB to GiB", "2^10 is arithmetic, which is not evaluated"),
])
def test_numbers_in_exponent_form_or_arithmetic_are_refused_naming_the_range(question, said):
    # Before: 1e999 GB was read as 999 GB, 9**9**9 GB as 9 GB, 1e308 H100 as 1 GPU.
    result = run_cli("ask", question)
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert lines[0].startswith(f"Error: {said}")
    assert "below 10^15" in lines[0]


def test_a_number_in_exponent_form_in_range_is_read_whole():
    # 1.5e3 GB = 1500e9 B = 1500e9 / 2^30 GiB = 1396.98 GiB (was read as 3 GB)
    result = run_cli("ask", "Convert 1.5e3 GB to GiB")
    assert result.exit_code == 0 and "1500 GB = **1396.98 GiB**" in result.output


@pytest.mark.parametrize("name, payload, said", [
    ("memory", {"model": "llama-3-8b", "workload": "inference", "flash_attention": "yes"},
     'flash_attention: give true or false, not "yes"'),
    ("memory", {"model": "llama-3-8b", "workload": "inference", "gpus": "8"},
     'gpus: give a number, not "8"'),
    ("memory", {"model": "llama-3-8b", "workload": "inference", "gpus": True},
     "gpus: give a number, not true"),
    ("pricing", {"gpu": "h100", "hours": "10"}, 'hours: give a number, not "10"'),
])
def test_tool_inputs_are_not_coerced_from_what_a_user_could_mean_otherwise(name, payload, said):
    code, output = _tool(name, payload)
    assert code != 0 and said in output, output


def test_a_whole_number_given_as_a_float_is_still_a_count():
    code, output = _tool("memory", {"model": "llama-3-8b", "workload": "inference",
                                    "gpus": 8.0})
    assert code == 0, output


def test_serving_on_a_million_gpus_is_many_replicas_not_an_error():
    # Before: "125000 pipeline stages for 80 layers". Each replica is tp=8: Llama 3 70B's
    # 70.55e9 parameters x 2 bytes / 8 GPUs = 17.6 GB of weights per GPU.
    result = run_cli("ask", "serve llama 3 70b on 1,000,000 H100")
    assert result.exit_code == 0, result.output
    assert "| weights | 17.6 |" in result.output
    assert "the GPUs hold 125000 replicas" in result.output


def test_garbage_lines_in_a_batch_end_as_answers_or_plain_refusals(tmp_path):
    import random
    import string

    rng = random.Random(23)
    words = ["9**9**9 GB", "1e999", "nan", "-1", "\x00", "\x0c", "/nosuch", "/memory model=",
             "TP=", "$", "H100", "llama 3 70b", "GB", "cheapest", "serve", "tokens", "fp8"]
    lines = ["".join(rng.choice(string.printable[:-6]) for _ in range(rng.randint(1, 60)))
             if i % 2 else " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
             for i in range(300)]
    path = tmp_path / "garbage.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_cli("batch", str(path), "--format", "jsonl")
    items = [json.loads(x) for x in result.output.split("\n") if x.startswith("{")]
    assert len(items) > 250
    errors = [i["answer"]["error"] for i in items if i["failed"]]
    assert not [e for e in errors if "internal error" in e]
    assert all(len(e.splitlines()) == 1 for e in errors)


def test_a_report_command_over_mcp_writes_nothing(tmp_path, memory_store):
    from clusterplan.mcp_server import call

    target = tmp_path / "victim.md"
    result = call("ask", {"question": f"/report {target}"})
    assert not target.exists()
    result.model_dump_json().encode("utf-8")


def test_exported_cells_starting_with_plus_or_minus_are_quoted(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text(HEADER + "acme,h100,8,on_demand,1,,-eu,2026-11-30,available,+cmd\n")
    assert run_cli("prices", "import", str(path)).exit_code == 0
    exported = run_cli("prices", "export", "--origin", "user").output
    assert ",'-eu," in exported and ",'+cmd" in exported


@pytest.mark.parametrize("question", [
    # a zero rate on one of two GPU kinds: nothing to set the other against
    "Llama 3.1 405B on B200 0 tokens/s. I ran the same on H200 and I got 6,051 token per second",
    # vLLM's start-up log with a zero-token cache beside a refusal
    "with kv-cache-dtype fp8\nAvailable KV cache memory: 10.55 GiB\nGPU KV cache size: 0 tokens\n"
    "ValueError: To serve at least one request with the models's max seq len (221000), (10.12 "
    "GiB KV cache is needed, which is larger than the available KV cache memory (5.59 GiB).",
])
def test_zero_figures_in_a_pasted_measurement_are_answered_not_a_traceback(question):
    out = run_cli("ask", question)
    assert out.exit_code == 0 and "internal error" not in out.output
    assert "Traceback" not in out.output and "inf" not in out.output.split()
