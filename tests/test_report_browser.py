"""The HTML report in a real browser: headless Chromium parses the page, which holds its
charts as SVG and its recommendation, and draws it to a picture, with the network unused.

Skipped (with the reason) where Chromium is not installed: `apt-get install -y chromium`.
"""

from __future__ import annotations

import importlib.util
import re
import struct
from pathlib import Path

import pytest

from tests.conftest import run_cli

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "render_report.py"
spec = importlib.util.spec_from_file_location("render_report", SCRIPT)
assert spec is not None and spec.loader is not None
render_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(render_report)

pytestmark = pytest.mark.skipif(render_report.browser() is None,
                                reason="no chromium on this machine (apt-get install chromium)")


@pytest.fixture
def page(tmp_path) -> Path:
    for question in render_report.QUESTIONS:
        assert run_cli("ask", "--session", "plan", question).exit_code == 0
    out = tmp_path / "plan.html"
    assert run_cli("report", "--session", "plan", "--out", str(out)).exit_code == 0
    assert run_cli("report", "--session", "plan", "--out", str(tmp_path / "plan.md")).exit_code == 0
    return out


def test_the_browser_reads_the_recommendation_and_the_charts(page, tmp_path):
    dom = render_report.dump_dom(page, profile=tmp_path / "profile")
    assert "<h2>Recommendation</h2>" in dom
    recommendation = dom.split("<h2>Recommendation</h2>")[1].split("<h2>Questions</h2>")[0]
    assert "<strong>what to rent</strong>" in recommendation
    assert re.search(r"\d+× NVIDIA [A-Z0-9]+", recommendation)
    charts = re.findall(r'<svg xmlns="http://www.w3.org/2000/svg" class="chart"', dom)
    # every chart of the Markdown (a Mermaid block) is drawn in the page: the serving plan's
    # cost against throughput, the two memory pies, the monthly cost of the node priced, and
    # the training plan's cost against time when it has more than one option
    markdown = (tmp_path / "plan.md").read_text(encoding="utf-8")
    assert len(charts) == markdown.count("```mermaid") >= 4
    for title in ("Monthly cost against throughput (USD/month)",
                  "Memory per GPU on 8× NVIDIA H200 SXM 141GB (GB)",
                  "Cost against time (USD, the monthly cost month by month)"):
        assert f">{title}</text>" in dom, title
    assert "<script" not in dom


def test_the_browser_draws_the_page_to_a_picture(page, tmp_path):
    png = render_report.screenshot(page, tmp_path / "plan.png", tmp_path / "profile",
                                   window=(1100, 1400))
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1100, 1400)
    assert len(data) > 50_000  # text, tables and colour, not a blank page
