"""On-demand against committed prices for a cluster, from the rows on record (notes
coreweave-pricing-2026-09, aws-capacity-blocks-2024), checked by hand arithmetic."""

from __future__ import annotations

import pytest

from clusterplan.tools.registry import invoke
from tests.conftest import run_cli

HOURS_3_MONTHS = 3 * 730  # note pricing-models#hours-per-month


def test_64_h100_for_3_months_on_demand_against_a_capacity_block():
    out = invoke("pricing", {"gpu": "h100", "gpus": 64, "months": 3,
                             "compare_commitments": True, "as_of": "2026-12-03"})
    c = out.commitments
    # on demand: CoreWeave HGX H100 at $49.24 a node-hour / 8 = $6.155/GPU-h, the cheapest
    # 8-GPU offer with an inter-node fabric: 64 x 2,190 h x 6.155 = $862,684.80
    assert c.on_demand.offer.provider == "coreweave"
    assert c.on_demand.total_usd == pytest.approx(64 * 2190 * 49.24 / 8, abs=0.01)
    assert c.on_demand.total_usd == pytest.approx(862_684.80, abs=0.01)
    # committed: AWS p5.48xlarge Capacity Block at $39.33 an instance-hour / 8 = $4.91625:
    # 64 x 2,190 x 4.91625 = $689,061.60, billed for the 2,190 h (a block runs up to 182 days)
    assert c.committed.offer.kind == "capacity_block"
    assert c.committed.billed_hours == HOURS_3_MONTHS
    assert c.committed.total_usd == pytest.approx(689_061.60, abs=0.01)
    assert c.cheaper == "committed"
    assert c.saving_usd == pytest.approx(862_684.80 - 689_061.60, abs=0.01)
    # it wins above 4.91625 / 6.155 = 79.87% utilisation
    assert c.break_even_utilization == pytest.approx(4.91625 / 6.155, abs=1e-6)
    # single-GPU pods and providers stating no fabric cannot host 8 nodes
    assert c.ruled_out["no inter-node fabric for a multi-node cluster"] > 0


def test_a_one_year_term_bills_the_year_for_a_3_month_job():
    out = invoke("pricing", {"gpu": "h100", "gpus": 1, "months": 3, "compare_commitments": True,
                             "reserved_discount": 0.3, "as_of": "2026-12-03"})
    c = out.commitments
    # one GPU needs no fabric: Hyperstack's reserved H100 at $2.72 (a 1-month minimum) is billed
    # the 2,190 h; the stated 30% discount breaks even at 1 - 0.30 = 70%
    assert c.committed.offer.provider == "hyperstack"
    assert c.committed.total_usd == pytest.approx(2.72 * 2190, abs=0.01)
    assert c.stated_break_even_utilization == pytest.approx(0.70)


def test_the_question_compares_real_prices():
    out = run_cli("ask", "What's cheaper for 3 months of 64 H100: on-demand or reserved at a "
                  "30% discount?")
    assert out.exit_code == 0, out.output
    first = out.output.splitlines()[0]
    assert "committed is cheaper by $173,623" in first
    assert "$689,062" in first and "$862,685" in first
    assert "79.9% utilisation" in first and "30% discount the break-even is 70%" in first
