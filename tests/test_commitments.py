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
    # committed: AWS p5.48xlarge Capacity Block at $39.33 an instance-hour / 8 = $4.91625.
    # A block longer than 14 days is sold in 7-day steps (aws-capacity-blocks-2024#terms):
    # 2,190 h = 91.25 days -> 14 weeks = 98 days = 2,352 h; 64 x 2,352 x 4.91625 = $740,033.28
    assert c.committed.offer.kind == "capacity_block"
    assert c.committed.billed_hours == 14 * 7 * 24 == 2352
    assert c.committed.unused_hours == 2352 - HOURS_3_MONTHS
    assert c.committed.total_usd == pytest.approx(740_033.28, abs=0.01)
    assert c.cheaper == "committed"
    assert c.saving_usd == pytest.approx(862_684.80 - 740_033.28, abs=0.01)
    # it wins above 740,033.28 / 862,684.80 = 85.78% utilisation
    assert c.break_even_utilization == pytest.approx(740_033.28 / 862_684.80, abs=1e-6)
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
    assert "committed is cheaper by $122,652" in first
    assert "$740,033" in first and "$862,685" in first
    assert "85.8% utilisation" in first and "30% discount the break-even is 70%" in first


def test_one_and_three_year_commitments_bill_their_whole_term():
    out = invoke("pricing", {"gpu": "h100", "gpus": 64, "months": 3,
                             "compare_commitments": True, "as_of": "2026-12-03"})
    terms = {p.offer.kind: p for p in out.commitments.terms}
    # note gcp-committed-use-2025-03: a3-highgpu-8g 1-year at $44,810.08066464 a 730-h month
    # = $61.38367 an instance-hour; the row keeps $7.673/GPU-h (61.3837 / 8 = 7.6729625, and
    # the larger of the two stated figures is taken). 64 GPUs x 8,760 h (the whole year, not
    # the 2,190 h of the job) x 7.673 = $4,301,790.72; 8,760 - 2,190 = 6,570 h unused.
    one = terms["reserved_1y"]
    assert (one.offer.provider, one.billed_gpus, one.billed_hours) == ("gcp", 64, 8760)
    assert one.total_usd == pytest.approx(64 * 8760 * 7.673, abs=0.01)
    assert one.total_usd == pytest.approx(4_301_790.72, abs=0.01)
    assert one.unused_hours == 6570
    # 3-year: $38.8644 an instance-hour / 8 = $4.85805/GPU-h, for 3 x 8,760 = 26,280 h
    three = terms["reserved_3y"]
    assert three.billed_hours == 26_280 and three.unused_hours == 26_280 - 2190
    assert three.total_usd == pytest.approx(64 * 26_280 * 38.8644 / 8, abs=0.01)
    # the cheapest commitment for 3 months is still the Capacity Block, billed the 2,190 h
    assert out.commitments.committed.offer.kind == "capacity_block"


def test_a_year_of_commitment_beats_on_demand_only_for_a_year_of_use():
    out = invoke("pricing", {"gpu": "h100", "gpus": 64, "months": 12, "provider": "gcp",
                             "compare_commitments": True, "as_of": "2026-12-03"})
    c = out.commitments
    # one provider's own prices: on demand $88.49 / 8 = $11.06125/GPU-h for 8,760 h against
    # the 1-year term at $7.673: 64 x 8,760 x (11.06125 - 7.673) = $1,899,584.64 saved
    assert c.on_demand.offer.effective_usd_per_gpu_hour == pytest.approx(11.06125)
    assert c.cheaper == "committed"
    # over 12 months the 3-year term still bills 26,280 h: $8.17M, so the 1-year term wins
    assert c.committed.offer.kind == "reserved_1y"
    assert c.saving_usd == pytest.approx(64 * 8760 * (11.06125 - 7.673), abs=0.01)
    # break-even on these prices: 7.673 / 11.06125 = 69.37% of the year in use
    assert c.break_even_utilization == pytest.approx(7.673 / 11.06125, abs=1e-6)


def test_the_answer_says_a_one_year_term_bills_the_year():
    out = run_cli("ask", "--markdown", "What's cheaper for 3 months of 64 H100: on-demand or "
                  "reserved?")
    assert out.exit_code == 0, out.output
    first = out.output.splitlines()[0]
    assert ("the 1-year term (gcp at $7.673/GPU-h) bills 8,760 h, 6,570 of them unused: "
            "$4,301,791") in first
    assert "| gcp | reserved\\_3y |" in out.output
    # the March 2025 reading is stale and the answer says so
    assert "gcp h100-sxm reserved_1y" in out.output.replace("\\_", "_")


def test_a100_40gb_for_3_months_and_for_a_year():
    out = invoke("pricing", {"gpu": "a100-sxm-40gb", "gpus": 64, "months": 3,
                             "compare_commitments": True, "as_of": "2026-12-03"})
    c = out.commitments
    # on demand: a2-highgpu-8g at $29.38708 / 8 = $3.673385, the row's $3.6734 being the
    # larger stated figure: 64 x 2,190 x 3.6734 = $514,863.74 (note gcp-committed-use-2025-03)
    assert c.on_demand.total_usd == pytest.approx(64 * 2190 * 3.6734, abs=0.01)
    # p4d.24xlarge Capacity Block at $14.75 / 8 = $1.844 (aws-capacity-blocks-2024#p4d-a100),
    # 14 whole weeks = 2,352 h: 64 x 2,352 x 1.844 = $277,573.63
    assert c.committed.offer.product == "p4d.24xlarge Capacity Block"
    assert c.committed.total_usd == pytest.approx(277_573.63, abs=0.01)
    a_year = invoke("pricing", {"gpu": "a100-sxm-40gb", "gpus": 64, "months": 12,
                                "compare_commitments": True, "as_of": "2026-12-03"}).commitments
    # 8,760 h is past a Capacity Block's 182 days, so the 1-year term at $18.5137 / 8 =
    # $2.3142125 (kept to 6 decimals: $2.314213) wins: 64 x 8,760 x 2.314213 = $1,297,440.38
    assert a_year.ruled_out["period longer than the longest term sold"] >= 1
    assert a_year.committed.offer.kind == "reserved_1y"
    assert a_year.committed.total_usd == pytest.approx(64 * 8760 * 2.314213, abs=0.01)
    assert a_year.committed.total_usd == pytest.approx(1_297_440.38, abs=0.01)
