"""The Markdown planning report: golden file, escaping, Mermaid pie, trace and sources."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from clusterplan.assistant.answer import Answer, Clarification, Intent
from clusterplan.assistant.report.document import direct_answer, render_report, select
from clusterplan.assistant.report.tables import cell, escape, fmt
from clusterplan.assistant.sessions.slash import call_tool
from clusterplan.tools.contract import NoteRef, Step, q

DAY = dt.date(2026, 12, 2)


class MarkdownSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    _file_extension = "md"


@pytest.fixture
def snapshot_md(snapshot):
    return snapshot.use_extension(MarkdownSnapshot)


def memory_answer() -> Answer:
    """Llama 3 70B served at BF16: weights 70.6e9 params x 2 bytes = 141.2 GB (hand arithmetic);
    KV cache 327,680 bytes/token x 4096 tokens x 8 sequences = 10.74 GB."""
    return Answer(
        question="How much memory to serve Llama 3 70B in BF16?",
        intent=Intent(kind="memory", slots={"model": "llama-3-70b", "workload": "inference"}),
        markdown="Serving Llama 3 70B at BF16 takes **153.4 GB**: it needs 2 H100 80GB.\n\n"
                 "| term | GB |\n| --- | --- |\n| weights | 141.2 |\n\n**Sources**\n1. x",
        data={"memory": {
            "per_gpu_gb": 153.4, "total_gb": 153.4, "fits": False, "headroom_gb": -73.4,
            "breakdown_gb": {"weights": 141.2, "gradients": 0.0, "optimizer": 0.0,
                             "activations": 0.0, "kv_cache": 10.74, "overhead": 1.46},
            "min_gpus": {"h100-sxm": 2, "h200": 2},
            "steps": [], "citations": [],
        }},
        trace=[
            Step(label="weights", formula="parameters x bytes per parameter",
                 inputs={"parameters": q(70.6e9), "bytes per parameter": q(2, "B")},
                 result=q(141.2, "GB"), notes=["precision-bytes#bf16"]),
            Step(label="KV cache", formula="2 x layers x kv_heads x head_dim x bytes x tokens",
                 inputs={"tokens": q(32768)}, result=q(10.74, "GB"),
                 notes=["kv-cache", "precision-bytes"]),
        ],
        citations=[
            NoteRef(id="precision-bytes", claim="bf16", title="Bytes per number format",
                    address="https://example.org/formats"),
            NoteRef(id="kv-cache", title="The KV cache | per token",
                    address="https://example.org/kv", dispute="the source says 320 KB"),
        ],
        assumptions=["assumed context length: 4096 tokens (not given in the question)"],
        warnings=["does not fit one H100 80GB: 153.4 GB > 80 GB"],
    )


def layout_answer() -> Answer:
    return Answer(
        question="How should I split a 70B model across 16 H100s in 2 nodes?",
        intent=Intent(kind="layout"),
        markdown="Use **TP 8 x PP 2 x DP 1**: tensor parallel inside each node.",
        data={"parallelism": {
            "plans": [
                {"tp": 8, "pp": 2, "dp": 1, "zero_stage": 1, "per_gpu_gb": 61.25,
                 "step_time_s": 7.5, "mfu": 0.41},
                {"tp": 4, "pp": 4, "dp": 1, "zero_stage": 1, "per_gpu_gb": 58.0,
                 "step_time_s": 8.125, "mfu": 0.38},
            ],
            "rejected": {"tp crosses the node boundary": {"count": 12,
                                                          "example": "tp=16 pp=1 dp=1"}},
        }},
        citations=[NoteRef(id="kv-cache", title="The KV cache | per token",
                           address="https://example.org/kv")],
    )


def pricing_answer() -> Answer:
    """8 x H200 at $50.44 per node-hour = $6.305 per GPU-hour; x 730 h = $36,821.20 a month."""
    return Answer(
        question="What does an 8xH200 node cost per month?",
        intent=Intent(kind="pricing"),
        markdown="About **$36,821 a month** on demand.",
        data={"pricing": {
            "offers": [{"provider": "lambda", "gpu": "h200", "kind": "on_demand",
                        "usd_per_gpu_hour": 6.305, "usd_per_node_hour": 50.44,
                        "verified_on": "2026-09-01", "stale": False}],
            "monthly_usd": 36821.2,
        }},
    )


def clarifying_answer() -> Answer:
    return Answer(
        question="does it fit?",
        intent=Intent(kind="fit", missing=["model"]),
        markdown="Which model do you mean?",
        clarification=Clarification(question="Which model do you mean?", missing=["model"],
                                    choices=["llama-3-70b", "llama-3-8b"]),
    )


def failed_answer() -> Answer:
    return Answer(question="/memroy x=1", markdown="unknown command", error="unknown command "
                  "/memroy; commands: /help, /memory")


def all_answers() -> list[Answer]:
    return [memory_answer(), layout_answer(), pricing_answer(), clarifying_answer(),
            failed_answer()]


def test_report_matches_the_golden_file(snapshot_md):
    assert render_report(all_answers(), DAY, "Planning report", session="team a") == snapshot_md


def test_the_same_answers_and_date_give_the_same_report():
    assert render_report(all_answers(), DAY) == render_report(all_answers(), DAY)
    assert "Prepared 2026-12-02 · 5 questions" in render_report(all_answers(), DAY)


def test_report_opens_with_the_recommendation_then_the_questions():
    text = render_report(all_answers(), DAY, author="ana")
    assert text.startswith("# Cluster planning report\n\nPrepared 2026-12-02 by ana · 5 questions")
    recommendation = text.split("## Recommendation")[1].split("## Questions")[0]
    # the plan is the layout answer (question 2); its best layout and MFU as a percentage
    assert "| **layout** | TP 8 × PP 2 × DP 1, ZeRO stage 1: 7.50 s per step, MFU 41% " \
           "(question 2) |" in recommendation
    assert "- **Question 1:** Serving Llama 3 70B at BF16 takes 153.4 GB: it needs 2 H100 " \
           "80GB." in recommendation
    assert "- not answered: does it fit? (question 4)" in recommendation
    questions = text.split("## Questions")[1].split("## 1.")[0]
    assert "1. How much memory to serve Llama 3 70B in BF16?" in questions


def test_memory_breakdown_per_gpu_and_its_pie_carry_the_figures():
    text = render_report([memory_answer()], DAY)
    assert "### Memory per GPU on 1× h100-sxm" not in text  # the GPU is named, not its id
    assert "| part | GB per GPU |" in text
    assert "| weights | 141 |" in text and "| kv cache | 10.7 |" in text
    assert "| total per GPU | 153 |" in text
    assert "It does not fit: 153 GB per GPU." in text
    pie = re.search(r"```mermaid\npie showData\n(.*?)```", text, re.S)
    assert pie is not None
    # zero terms are left out of the pie; the others keep six figures (so the HTML legend
    # rounds them as the table does); the unit rides in a comment GitHub ignores
    assert pie.group(1).splitlines()[1:] == [
        "    %% unit: GB", '    "weights" : 141.2', '    "kv cache" : 10.74',
        '    "overhead" : 1.46']


def test_layouts_and_offers_are_tables_with_labelled_units():
    text = render_report([layout_answer(), pricing_answer()], DAY)
    assert "| rank | TP | PP | DP | ZeRO stage | memory (GB per GPU) | step time (s) | " \
           "MFU (%) |" in text
    assert "| 1 | 8 | 2 | 1 | 1 | 61.2 | 7.50 | 41% |" in text
    assert "| 2 | 4 | 4 | 1 | 1 | 58.0 | 8.12 | 38% |" in text
    assert "| tp crosses the node boundary | 12 |" in text
    assert "| rank | provider | product | kind | USD per GPU-hour | USD per node-hour | " \
           "GPUs per node | price verified |" in text
    # $50.44 a node-hour / 8 GPUs = $6.305 a GPU-hour: the tenth of a cent is kept
    assert "| 1 | lambda | h200 | on-demand | \\$6.305 | \\$50.44 | - | 2026-09-01 |" in text
    assert "| cost (USD/month) | \\$36,821 |" in text
    assert 'title "Cost against time (USD, the monthly cost month by month)"' in text


def test_trace_is_folded_in_details_with_source_numbers():
    text = render_report([memory_answer()], DAY)
    block = text.split("## Trace")[1].split("<details>")[1].split("</details>")[0]
    assert block.startswith("\n<summary>Question 1: 2 steps</summary>\n\n")
    assert ("1. **weights** — parameters x bytes per parameter · parameters = 70,600,000,000, "
            "bytes per parameter = 2 B → 141.2 GB \\[1\\]") in block
    assert "→ 10.74 GB \\[1\\], \\[2\\]" in block


def test_nothing_is_escaped_twice_and_no_raw_field_name_shows():
    conclusion = Step(label="conclusion", result=q("It needs **49.0 GB per GPU** at \\$2.5"))
    answer = memory_answer().model_copy(update={"trace": [conclusion]})
    text = render_report([answer, layout_answer(), pricing_answer()], DAY)
    assert "\\*\\*" not in text and "\\\\" not in text
    assert "→ It needs 49.0 GB per GPU at \\$2.5" in text
    tables = [line for line in text.splitlines() if line.startswith("| ")]
    for raw in ("params_b", "per_gpu_gb", "headroom_gb", "usd_per_gpu_hour", "mfu |",
                "monthly_usd", "zero_stage", "billed"):
        assert not any(raw in line.replace("\\_", "_") for line in tables), raw
    assert not re.search(r"\| 0\.\d+ \|", text.split("## Trace")[0])  # no MFU as a fraction


def test_a_training_section_shows_the_run_cost_not_one_node_a_month():
    training = layout_answer().model_copy(update={"data": {
        **layout_answer().data, "pricing": {**pricing_answer().data["pricing"],
                                            "billed_gpus": 1, "run_usd": 123456.0}}})
    text = render_report([training], DAY)
    assert "| cost of the run (USD) | \\$123,456 |" in text
    assert "GPUs billed" not in text and "USD/month" not in text


def test_sources_are_numbered_once_with_claims_addresses_and_disputes():
    text = render_report([memory_answer(), layout_answer()], DAY)
    sources = text.split("## Sources")[1]
    assert ("1. **Bytes per number format** (note precision-bytes; claims bf16) — "
            "<https://example.org/formats>") in sources
    assert ("2. **The KV cache \\| per token** (note kv-cache) — <https://example.org/kv> — "
            "**disputed:** the source says 320 KB") in sources
    assert "3." not in sources


def test_markdown_injection_in_a_question_stays_text():
    hostile = "# title\n| a | b |\n<script>alert(1)</script> [x](javascript:1) *bold*"
    text = render_report([Answer(question=hostile, markdown="ok")], DAY)
    heading = next(line for line in text.splitlines() if line.startswith("## 1."))
    assert heading == ("## 1. \\# title \\| a \\| b \\| \\<script\\>alert(1)\\</script\\> "
                       "\\[x\\](javascript:1) \\*bold\\*")
    assert "<script>" not in text


def test_table_cells_escape_pipes_and_newlines():
    assert cell("a|b\nc") == "a\\|b<br>c"
    assert cell("\x1b[2Jx\x9by\x00") == "\\[2Jxy"  # no control character survives
    assert fmt(36821.2) == "36,821"
    assert fmt(0.41) == "0.41"
    assert fmt(True) == "yes"


def test_clarification_shows_its_choices():
    text = render_report([clarifying_answer()], DAY)
    assert "Choices: llama-3-70b, llama-3-8b" in text


def test_a_report_with_no_questions_says_so():
    text = render_report([], DAY, "Empty")
    assert text == "# Empty\n\nPrepared 2026-12-02 · 0 questions\n\nNo questions were asked in " \
                   "this session.\n"


def test_a_real_tool_answer_renders_its_note_results_and_citations(memory_store):
    answer = call_tool("/notes query=nvlink infiniband limit=2", "notes",
                       "query=nvlink infiniband limit=2")
    assert answer.error is None
    text = render_report([answer], DAY)
    assert "**Notes**" in text
    assert "| id | title | address | snippet |" in text
    for n, ref in enumerate(answer.citations, 1):
        assert f"{n}. **{escape(ref.title)}" in text.split("## Sources")[1]
    assert direct_answer(answer).startswith("**notes** (query = nvlink infiniband, limit = 2)")


def test_the_best_layouts_show_their_step_time_parts_as_a_chart():
    plan = {"rank": 1, "tp": 8, "pp": 1, "dp": 128, "ep": 1, "zero_stage": 3, "micro_batch": 1,
            "num_microbatches": 8, "recompute": "none", "per_gpu_gb": 69.3, "headroom_gb": 10.7,
            "step_time_s": 26.5, "compute_s": 24.2, "comm_s": 2.3, "tp_comm_s": 2.3,
            "bubble_s": 0.0, "mfu": 0.548, "tokens_per_s": 158134, "training_days": None}
    text = render_report([Answer(question="q", markdown="m",
                                 data={"parallelism": {"plans": [plan]}})], DAY)
    header = next(line for line in text.splitlines() if line.startswith("| rank"))
    # ep is 1 everywhere and training_days is empty: both left out
    assert header == ("| rank | TP | PP | DP | ZeRO stage | micro-batch (sequences) | recompute "
                      "| memory (GB per GPU) | step time (s) | MFU (%) | throughput (tokens/s) |")
    chart = text.split("```mermaid\nxychart-beta\n")[1].split("```")[0]
    assert '    x-axis ["#1 TP 8 × PP 1 × DP 128"]' in chart
    assert "    bar [26.5]\n    bar [26.5]\n    bar [24.2]" in chart
    assert "#1 TP 8 × PP 1 × DP 128: compute 24.2 s, communication 2.30 s, bubble 0 s" in text


def test_dropped_and_repeated_questions_leave_the_report():
    typo = Answer(question="How much memroy to serve Llama 3 70B in BF16", markdown="Which model?",
                  error="not understood")
    again = memory_answer().model_copy(update={"question": "How much memory to serve "
                                               "Llama 3 70B in BF16?"})
    answers = [typo, memory_answer(), layout_answer(), pricing_answer(), again]
    kept, numbers = select(answers, drop=[3])
    assert numbers == [4, 5]  # 1 is a typo repeated by 2, 2 is asked again as 5, 3 dropped
    text = render_report(kept, DAY, numbers=numbers)
    assert "- **4.** What does an 8xH200 node cost per month?" in text
    assert "## 5. How much memory to serve Llama 3 70B in BF16?" in text
    assert "## 1." not in text and "## 3." not in text


def test_a_titled_list_is_summarised_by_its_title_and_first_point():
    answer = Answer(question="What is pipeline parallelism?",
                    markdown="**Parallelism strategies** (note `p`)\n- Layers go to different "
                             "GPUs.\n- Second point.\n\n**Sources**\n1. p")
    assert direct_answer(answer) == ("**Parallelism strategies** (note `p`) — Layers go to "
                                     "different GPUs.")
    section = render_report([answer], DAY).split("## 1. What is pipeline parallelism?")[1]
    assert section.startswith("\n\n**Parallelism strategies** (note `p`)\n- Layers go to "
                              "different GPUs.\n- Second point.\n\n")
    assert "**Sources**" not in section
