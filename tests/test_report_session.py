"""A realistic session exported as a report: training, serving, pricing and a disputed source,
through the command line as a user runs it (Markdown and HTML)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import run_cli

QUESTIONS = [
    "Pretrain llama-3-70b on 15T tokens with 256 H100s: layout and time?",
    "Serve Llama 3.1 405B on 8x H200 - does it fit?",
    "What does an 8xH200 node cost per month?",
    "Does a 70B model fit for full fine-tuning on one 8xH100 node?",
    "Does a 70B model fit for full fine-tuning on one 8xH100 node?",  # asked twice
]


@pytest.fixture
def session() -> None:
    for question in QUESTIONS:
        assert run_cli("ask", "--session", "plan", question).exit_code == 0


def test_the_report_reads_as_a_plan(session):
    text = run_cli("report", "--session", "plan", "--author", "ana").output
    assert re.match(r"# Cluster planning report\n\nPrepared \d{4}-\d\d-\d\d by ana · "
                    r"4 questions · session plan\n\n## Recommendation\n", text)
    recommendation = text.split("## Recommendation")[1].split("## Questions")[0]
    assert "| **what to rent** | 256× NVIDIA H100 SXM 80GB (question 1) |" in recommendation
    assert "| **how many** | 32 nodes of 8 GPUs (question 1) |" in recommendation
    assert re.search(r"\| \*\*layout\*\* \| TP \d+ × PP \d+ × DP \d+, ZeRO stage \d.*MFU "
                     r"[\d.]+% \(question 1\) \|", recommendation)
    assert re.search(r"\| \*\*cost\*\* \| \\\$[\d,]+ for the run \(question 1\) \|",
                     recommendation)
    assert "**Risks**" in recommendation and "does not fit" in recommendation
    # the repeated question appears once, under its later number
    assert "## 4." not in text and "## 5. Does a 70B model fit" in text
    assert "## Disputed sources" in text and "memory-sizing" in text.split("## Sources")[1]
    assert "\\*\\*" not in text


def test_every_table_labels_its_units_and_mfu_is_a_percentage(session):
    text = run_cli("report", "--session", "plan").output.split("## Assumptions")[0]
    tables = [line for line in text.splitlines() if line.startswith("| ")]
    assert tables
    for line in tables:
        assert not re.search(r"[a-z]\\_[a-z]", line), line  # no raw field name in a table
    assert "| rank | TP | PP | DP | ZeRO stage |" in text and "MFU (%)" in text
    mfu = [line.split(" | ")[9] for line in tables if re.match(r"\| [1-5] \| \d+ \| \d+ \|", line)]
    assert mfu and all(value.endswith("%") for value in mfu), mfu
    # the memory pie is per GPU of the layout asked about, and says so
    assert "title Memory per GPU on 8× NVIDIA H200 SXM 141GB (GB)" in text
    assert "| part | GB per GPU |" in text
    assert "xychart-beta" in text  # step-time parts, cost over months


def test_drop_leaves_questions_out_keeping_their_numbers(session):
    text = run_cli("report", "--session", "plan", "--drop", "2,3").output
    assert "## 1. Pretrain" in text and "## 5. Does a 70B" in text
    assert "## 2." not in text and "## 3." not in text
    assert "- **1.** Pretrain llama-3-70b" in text


def test_bad_drop_is_one_line(session):
    result = run_cli("report", "--session", "plan", "--drop", "two")
    assert result.exit_code == 2
    assert result.output == "Error: --drop two: give question numbers such as 3,5\n"


def test_html_export_is_a_standalone_page_with_its_charts(session, tmp_path):
    out = tmp_path / "plan.html"
    result = run_cli("report", "--session", "plan", "--out", str(out))
    assert result.exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<title>Cluster planning report</title>" in page
    assert "<h2>Recommendation</h2>" in page and "<table>" in page
    # charts drawn inline (pie, step time, cost over months), nothing loaded from elsewhere
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') >= 3
    assert "<script" not in page and "mermaid" not in page
    assert "<details>" in page and "**" not in page
    same = run_cli("report", "--session", "plan", "--format", "html").output
    assert same == page


def test_export_never_overwrites_without_force(session, tmp_path):
    out = tmp_path / "plan.md"
    out.write_text("mine", encoding="utf-8")
    result = run_cli("report", "--session", "plan", "--out", str(out))
    assert result.exit_code == 2 and "exists; give --force" in result.output
    assert out.read_text(encoding="utf-8") == "mine"
    assert run_cli("report", "--session", "plan", "--out", str(out), "--force").exit_code == 0
    assert out.read_text(encoding="utf-8").startswith("# Cluster planning report")


def test_a_serving_plan_recommends_replicas_and_output_tokens_not_data_parallelism():
    # A served model's plan has replicas, not a data-parallel degree: the recommendation reads
    # "TP 8 × PP 1, 1 replica" and its speed in output tokens/s, never "DP None".
    question = "how fast is llama 3 70b on 8 H100?"
    assert run_cli("ask", "--session", "serve", question).exit_code == 0
    text = run_cli("report", "--session", "serve").output
    recommendation = text.split("## Recommendation")[1].split("## Questions")[0]
    assert re.search(r"\| \*\*layout\*\* \| TP \d × PP \d, \d+ replicas?: [\d,.]+ output "
                     r"tokens/s \(question 1\) \|", recommendation), recommendation
    assert "DP None" not in text
