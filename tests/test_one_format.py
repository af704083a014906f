"""One figure, one way of writing it: the answer, the report, the app's tables and charts and
the command line all go through clusterplan/figures.py."""

from __future__ import annotations

import json
import re

from clusterplan.figures import days, figure, gb, num, pct, usd, usd_rate
from clusterplan.tui.memory_chart import chart_title
from clusterplan.tui.plan_panel import cell
from tests.conftest import run_cli

PRICE = "What does an 8xH200 node cost per month on spot?"
FIT = "Serve Llama 3.1 405B on 8x H200 - does it fit?"


def test_the_formatter_by_hand():
    assert num(1234.5) == "1,234" and num(0.54444) == "0.544" and num(7.5) == "7.50"
    assert num(36821.2) == "36,821" and num(1024) == "1,024" and num(None) == "-"
    assert pct(0.5785) == "57.9%" and pct(0.6) == "60%" and pct(12.5) == "1,250%"
    assert usd(36821.2) == "$36,821" and usd(6.5) == "$6.50"
    # providers quote tenths of a cent: 20.93 / 8 = 2.61625 -> $2.616; 3.39985 -> $3.40
    assert usd_rate(20.93 / 8) == "$2.616" and usd_rate(3.39985) == "$3.40"
    assert usd_rate(2.69) == "$2.69" and usd_rate(0.6047) == "$0.605"
    assert gb(155.49) == "155 GB" and figure(0.41, "%") == "41%" and figure(2.5, "s") == "2.50 s"
    # 29.3 days; 0.1458 days x 24 = 3.50 hours; 0.00353 days x 1,440 = 5.08 -> 5 minutes
    assert days(29.27) == "29.3 days" and days(0.1458) == "3.50 hours"
    assert days(0.00353) == "5 minutes" and days(1) == "1 day"
    for bad in (float("nan"), float("inf")):
        assert usd(bad) == "-" and usd_rate(bad) == "-" and pct(bad) == "-"


def test_a_price_reads_the_same_in_the_answer_the_report_the_app_and_prices_list():
    # CoreWeave HGX H200 spot: $20.93 a node-hour for 8 GPUs = 20.93 / 8 = $2.61625 a
    # GPU-hour, written to the tenth of a cent everywhere
    answer = run_cli("ask", "--session", "s", "--markdown", PRICE).output
    assert "coreweave at **$2.616 per GPU-hour**" in answer
    report = run_cli("report", "--session", "s").output
    assert "| 1 | coreweave | HGX H200 | spot | \\$2.616 | \\$20.93 | 8 |" in report
    assert "| USD per GPU-hour | \\$2.616 |" in report
    listed = run_cli("prices", "list", "--gpu", "h200", "--provider", "coreweave",
                     "--kind", "spot").output
    assert re.search(r"coreweave\s+h200-sxm\s+spot\s+2\.616\s+20\.93", listed)
    data = json.loads(run_cli("ask", "--json", PRICE).output)["data"]["pricing"]
    assert cell(data["cheapest"]["effective_usd_per_gpu_hour"], "usd_per_gpu_hour").plain \
        == "$2.616"


def test_memory_per_gpu_reads_the_same_in_the_answer_the_report_and_the_app():
    answer = run_cli("ask", "--session", "s", "--markdown", FIT).output
    per_gpu = re.search(r"needs \*\*([\d.,]+) GB per GPU\*\*", answer)
    assert per_gpu is not None
    shown = per_gpu.group(1)
    report = run_cli("report", "--session", "s").output
    assert f"| total per GPU | {shown} |" in report
    assert f"| **memory** | {shown} GB per GPU of " in report
    data = json.loads(run_cli("ask", "--json", FIT).output)["data"]["memory"]
    assert chart_title("memory", data)[0] == f"h200-sxm: {shown} GB per GPU"


def test_mfu_is_a_percentage_in_the_answer_the_report_and_the_app():
    question = "Pretrain llama-3-70b on 15T tokens with 256 H100s: layout and time?"
    answer = run_cli("ask", "--session", "s", "--markdown", question).output
    mfu = re.search(r"MFU ([\d.]+%)", answer)
    assert mfu is not None
    report = run_cli("report", "--session", "s").output
    assert f"MFU {mfu.group(1)} (question 1)" in report
    assert f"| {mfu.group(1)} |" in report
    data = json.loads(run_cli("ask", "--json", question).output)["data"]["parallelism"]
    assert cell(data["plans"][0]["mfu"], "mfu").plain == mfu.group(1)
