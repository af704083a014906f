"""A short run is billed as the provider bills it: its increment and minimum, each from a note
(rental-billing-increments, aws-capacity-blocks-2024, pricing-models), checked by hand."""

from __future__ import annotations

import json

import pytest

from clusterplan.tools.registry import invoke
from tests.conftest import run_cli

FIVE_MINUTES_H = 5 / 60


def priced(provider: str, kind: str = "on_demand", hours: float = FIVE_MINUTES_H,
           gpus: int = 128):
    return invoke("pricing", {"gpu": "h100", "gpus": gpus, "hours": hours,
                              "provider": provider, "kind": kind, "as_of": "2026-12-03"})


def test_five_minutes_on_128_aws_gpus_bills_five_minutes():
    out = priced("aws")
    # per second after a 60 s minimum: 300 s billed; p5.48xlarge at $55.04 / 8 = $6.88/GPU-h:
    # 128 x 6.88 x 300 / 3,600 = $73.39
    assert out.billed_hours == pytest.approx(300 / 3600, abs=1e-6)
    assert out.total_usd == pytest.approx(128 * 6.88 * 300 / 3600, abs=0.01)
    assert out.total_usd == pytest.approx(73.39, abs=0.01)


def test_thirty_seconds_on_aws_bills_the_60_second_minimum():
    out = priced("aws", hours=30 / 3600, gpus=8)
    # 8 x 6.88 x 60 / 3,600 = $0.917 -> $0.92
    assert out.billed_hours == pytest.approx(60 / 3600, abs=1e-6)
    assert out.total_usd == pytest.approx(0.92, abs=0.005)


def test_an_hourly_billed_offer_bills_the_whole_hour():
    out = priced("packet-ai")
    # packet.ai bills per hour (pricing-models#packet-no-minimum): 128 x $2.50 x 1 h = $320
    assert out.billed_hours == 1.0
    assert out.total_usd == pytest.approx(320.0, abs=0.01)


def test_a_capacity_block_bills_a_day_then_whole_weeks():
    out = priced("aws", "capacity_block")
    # 1 day minimum: 128 x ($39.33 / 8 = $4.91625) x 24 h = $15,102.72
    assert out.billed_hours == 24
    assert out.total_usd == pytest.approx(128 * 39.33 / 8 * 24, abs=0.01)
    assert out.total_usd == pytest.approx(15_102.72, abs=0.01)
    # 10.5 days rounds up to 11 days; 15 days is past the 14 daily steps: 3 weeks = 504 h
    assert priced("aws", "capacity_block", hours=10.5 * 24).billed_hours == 11 * 24
    assert priced("aws", "capacity_block", hours=15 * 24).billed_hours == 3 * 7 * 24


def test_lambda_bills_by_the_minute():
    out = priced("lambda", hours=(4 * 60 + 1) / 3600, gpus=8)
    # 4 min 1 s rounds up to 5 minutes: 8 x $3.99 x 5 / 60 = $2.66
    assert out.billed_hours == pytest.approx(5 / 60, abs=1e-6)
    assert out.total_usd == pytest.approx(2.66, abs=0.005)


def test_a_provider_with_no_increment_on_record_says_so():
    out = priced("coreweave")
    # exact hours: 128 x ($49.24 / 8 = $6.155) x 5 / 60 = $65.65, and the assumption is shown
    assert out.total_usd == pytest.approx(65.65, abs=0.01)
    assert any("coreweave states no billing increment on record" in a for a in out.assumptions)


def test_the_rounding_is_a_step_with_its_note():
    out = priced("aws")
    step = next(s for s in out.steps if s.label == "hours billed")
    assert step.notes == ["rental-billing-increments#aws-per-second"]


def test_cli_prices_a_short_run_as_billed():
    payload = {"gpu": "h100", "gpus": 128, "hours": 5 / 60, "provider": "packet-ai",
               "as_of": "2026-12-03"}
    out = run_cli("tool", "pricing", "--input", json.dumps(payload))
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    assert result["billed_hours"] == 1.0 and result["total_usd"] == 320.0


def test_the_question_about_a_five_minute_run_is_billed_by_the_provider():
    out = run_cli("ask", "--markdown", "How much does a 5-minute run on 128 H100s cost on "
                  "packet.ai?")
    assert out.exit_code == 0, out.output
    # 128 x $2.50 x 1 whole hour = $320.00, not 128 x 2.50 x 5 / 60 = $26.67
    assert "For 5 minutes: $320.00 (billed as 1.00 hours" in out.output.splitlines()[0]
    out = run_cli("ask", "--markdown", "How much does a 5-minute run on 128 H100s cost on AWS?")
    # per second: 128 x $6.88 x 300 / 3,600 = $73.39
    assert "For 5 minutes: $73.39." in out.output.splitlines()[0]
