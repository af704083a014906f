"""The report of a realistic session, golden: a training plan, a serving plan, a price, a
layout for a fixed cluster and a question whose source is disputed, asked of the real
program. The golden file was read line by line; these tests also hold, for any session, that
no table shows a raw field name, nothing is escaped twice, and percentages and units agree.

The calendar is fixed (prices age with it), so the file changes only when the program does.
"""

from __future__ import annotations

import datetime as dt
import re
from types import SimpleNamespace

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from clusterplan.assistant.sessions.session import Assistant

DAY = dt.date(2026, 12, 2)
QUESTIONS = [
    "Plan the cheapest cluster to pretrain llama-3-8b on 1T tokens within 30 days",
    "Plan a cluster to serve Llama 3 70B to 200 concurrent users at 30 tokens/s each",
    "Pretrain llama-3-70b on 15T tokens with 256 H100s: layout and time?",
    "Serve Llama 3.1 405B on 8x H200 - does it fit?",
    "What does an 8xH200 node cost per month?",
    "Does a 70B model fit for full fine-tuning on one 8xH100 node?",  # a disputed source
]
RAW_FIELD = re.compile(r"\b[a-z]+(?:\\?_[a-z0-9]+)+\b")
# Words with underscores that are names, not fields: note ids and claim ids are shown as
# themselves (they are what `clusterplan notes show` takes).
NAMES = re.compile(r"note [\w-]+|claims? [\w ,#-]+|[a-z0-9-]+#[\w-]+")


class MarkdownSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    _file_extension = "md"


class FixedDay:
    @staticmethod
    def today() -> dt.date:
        return DAY


@pytest.fixture(scope="module")
def report() -> str:
    from clusterplan.db.active import use_store
    from clusterplan.db.store import Store

    with pytest.MonkeyPatch.context() as patch:
        import clusterplan.tools.pricing.tool as pricing

        # the calendar the pricing tool ages offers against
        patch.setattr(pricing, "dt", SimpleNamespace(date=FixedDay))
        store = Store.memory()
        use_store(store)
        assistant = Assistant(store, session="golden")
        for question in QUESTIONS:
            assistant.ask(question)
        text = assistant.report(date=DAY, author="the platform team",
                                title="Cluster plan: Llama 3 training and serving")
        use_store(None)
    return text


def before_trace(text: str) -> str:
    return text.split("## Trace")[0]


def test_the_session_report_matches_the_reviewed_golden_file(report, snapshot):
    assert report == snapshot.use_extension(MarkdownSnapshot)


def test_no_table_shows_a_raw_field_name(report):
    for line in before_trace(report).splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            bare = NAMES.sub("", line)
            assert not RAW_FIELD.search(bare), line


def test_nothing_is_escaped_twice(report):
    assert "\\\\" not in report and "\\*\\*" not in report and "\\\\_" not in report
    assert "&amp;amp;" not in report and "\\\\$" not in report


def test_percentages_are_percent_and_units_are_labelled(report):
    text = before_trace(report)
    assert "MFU (%)" in text
    for line in text.splitlines():
        if "MFU" in line and line.startswith("| ") and not line.startswith("| rank") \
                and not line.startswith("| option"):
            assert not re.search(r"\| 0\.\d+ \|", line), line  # no fraction where % is meant
    # every header of a table of figures says its unit, or is a count or a name
    headers = [line for line in text.splitlines() if line.startswith("| ")
               and text.splitlines()[text.splitlines().index(line) + 1].startswith("| ---")]
    for header in headers:
        for column in [c.strip() for c in header.strip("|").split("|")]:
            if re.search(r"memory|cost|time|throughput|price|USD", column, re.I) \
                    and column not in ("cost", "time"):
                assert re.search(r"\(|GB|USD|%|days|tokens/s|GPU-hour|node-hour|verified",
                                 column), column
    # GB per GPU and GB in all are never confused in one table row
    for line in text.splitlines():
        assert not ("GB per GPU" in line and "in all" in line), line


def test_the_golden_report_is_a_plan_first(report):
    assert report.startswith("# Cluster plan: Llama 3 training and serving\n\nPrepared "
                             "2026-12-02 by the platform team · 6 questions · session golden")
    recommendation = report.split("## Recommendation")[1].split("## Questions")[0]
    # the latest training plan is the fixed 256-GPU layout (question 3), the serving plan
    # (question 2) beside it
    assert "| **what to rent** | 256× NVIDIA H100 SXM 80GB (question 3) |" in recommendation
    assert "**Serving**" in recommendation
    assert "## Disputed sources" in report


def test_no_table_shows_a_negative_figure(report):
    # question 6 lacks 154.61 - 85.52 = 69.1 GB per GPU: said as memory lacking, not -69
    assert "| memory lacking (GB per GPU) | 69.1 |" in report
    for line in before_trace(report).splitlines():
        if line.startswith("| "):
            assert not re.search(r"\| -\d", line), line


def test_assumptions_and_warnings_say_field_names_in_words(report):
    text = before_trace(report).split("## Assumptions")[1]
    assert "- master weights: on (FP32 copy of the trained weights)" in text
    assert "\\_" not in before_trace(report)
