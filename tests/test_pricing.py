"""The pricing tool through its JSON contract, against figures worked out by hand here.

Prices come from the shipped catalog; each expected figure is the source's own number or
arithmetic spelled out in the test. Every call fixes as_of so ages do not depend on the clock.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli, run_tool

AS_OF = "2026-12-02"


def price(**payload) -> dict:
    return run_tool("pricing", {"as_of": AS_OF, **payload})


def fails(payload: dict) -> str:
    result = run_cli("tool", "pricing", "--input", json.dumps(payload))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def test_an_8xh200_node_at_50_44_is_6_305_per_gpu_hour_and_36821_a_month():
    # packet.ai post: CoreWeave 8xH200 at $50.44 per node-hour. 50.44 / 8 = 6.305 $/GPU-h;
    # 50.44 x 730 h = 36,821.2 $ a month.
    out = price(gpu="h200-sxm", provider="coreweave", kind="on_demand", nodes=1)
    cheapest = out["cheapest"]
    assert cheapest["usd_per_node_hour"] == pytest.approx(50.44, abs=1e-9)
    assert cheapest["usd_per_gpu_hour"] == pytest.approx(6.305, abs=1e-9)
    assert out["billed_gpus"] == 8
    assert out["hours_per_month"] == 730
    assert out["monthly_usd"] == pytest.approx(36821.2, abs=0.005)
    assert any("730 hours" in a for a in out["assumptions"])
    cited = {c["id"] for c in out["citations"]}
    assert {"coreweave-pricing-2026-09", "gpu-prices-2026", "pricing-models"} <= cited


def test_the_source_s_6_30_per_gpu_hour_is_rounding_not_a_disagreement():
    # $6.30 x 8 = $50.40 against $50.44: 0.5 cent per GPU-hour, the rounding of a cent price.
    out = price(gpu="h200-sxm", provider="coreweave", kind="on_demand")
    from_post = [o for o in out["offers"] if o["source_note"] == "gpu-prices-2026"]
    assert [o["usd_per_gpu_hour"] for o in from_post] == [6.30]
    assert not from_post[0]["prices_disagree"]
    assert not any("is not 8 x" in w for w in out["warnings"])


def test_break_even_is_one_minus_the_discount():
    # Reserved (1 - d) P paid every hour vs on-demand P x u: equal at u = 1 - d.
    assert price(reserved_discount=0.4)["break_even_utilization"]["utilization"] == 0.6
    assert price(reserved_discount=0.2)["break_even_utilization"]["utilization"] == 0.8
    out = price(reserved_discount=0.2)
    assert out["break_even_utilization"]["discount"] == 0.2
    assert "reserved_discount" in out["break_even_utilization"]["discount_from"]


def test_ten_decimal_tb_at_9_cents_is_900_dollars():
    # 10 TB = 10,000 GB (decimal); 10,000 x $0.09 = $900.
    out = price(egress_tb=10, egress_usd_per_gb=0.09)
    assert out["egress_gb"] == 10000
    assert out["egress_usd"] == 900.0
    assert any("1 TB = 1,000 GB" in a for a in out["assumptions"])


def test_ten_tib_is_10995_gb_and_989_56_dollars():
    # 10 TiB = 10 x 2^40 bytes = 10,995,116,277,760 bytes = 10,995.116 GB; x $0.09 = $989.56.
    out = price(egress_tib=10, egress_usd_per_gb=0.09)
    assert out["egress_gb"] == pytest.approx(10995.116, abs=0.001)
    assert out["egress_usd"] == pytest.approx(989.56, abs=0.005)


def test_aws_egress_goes_band_by_band_after_the_free_100_gb():
    # AWS table: 100 GB free, $0.09 to 10 TB, $0.085 next 40 TB, $0.07 next 100 TB, $0.05 above.
    ten = price(egress_tb=10, egress_provider="aws")
    assert ten["egress_usd"] == pytest.approx((10000 - 100) * 0.09, abs=0.005)  # 891
    big = price(egress_tb=200, egress_provider="aws")
    expected = 9900 * 0.09 + 40000 * 0.085 + 100000 * 0.07 + 50000 * 0.05  # 13,791
    assert big["egress_usd"] == pytest.approx(expected, abs=0.005)
    assert [b["usd_per_gb"] for b in big["egress_tiers"]] == [0, 0.09, 0.085, 0.07, 0.05]
    assert sum(b["gb"] for b in big["egress_tiers"]) == pytest.approx(200000)


def test_providers_without_egress_fees_charge_nothing():
    assert price(egress_tb=10, egress_provider="packet.ai")["egress_usd"] == 0


def test_b200_node_price_that_is_not_8_times_the_gpu_price_is_flagged():
    # packet.ai post: B200 $3.75/GPU-h, and $47.2 for the 8-GPU node. 8 x 3.75 = $30, not $47.2.
    out = price(gpu="b200-sxm", provider="packet-ai", nodes=1)
    offer = out["offers"][0]
    assert offer["prices_disagree"]
    assert offer["usd_per_node_hour_from_gpu_price"] == pytest.approx(30.0)
    assert offer["effective_usd_per_gpu_hour"] == pytest.approx(47.2 / 8)  # the dearer, 5.90
    flagged = [w for w in out["warnings"] if "$47.2/node-h is not 8 x $3.75/GPU-h" in w]
    assert flagged and "$30/node-h" in flagged[0]


def test_stale_rows_are_marked_and_warned_about():
    # Verified 2026-07-29; on 2026-12-02 that is 3+31+30+31+31 = 126 days, over 90.
    out = price(gpu="b200-sxm", provider="packet-ai")
    assert (out["offers"][0]["age_days"], out["offers"][0]["stale"]) == (126, True)
    assert any("126 days" in w for w in out["warnings"])
    fresh = run_tool("pricing", {"gpu": "b200-sxm", "provider": "packet-ai",
                                 "as_of": "2026-08-01"})
    assert (fresh["offers"][0]["age_days"], fresh["offers"][0]["stale"]) == (3, False)
    assert not any("days before" in w for w in fresh["warnings"])


def test_announced_offers_are_never_cheapest_while_something_is_available():
    out = price(gpu="h200-sxm", kind="on_demand")
    assert out["offers"][0]["status"] == "announced"  # packet.ai's $2.49 "coming soon"
    assert out["cheapest"]["status"] == "available"
    assert any("announced, not available" in w for w in out["warnings"])


def test_announced_offer_is_cheapest_only_when_nothing_else_exists():
    out = price(gpu="h100-sxm", provider="packet-ai")
    assert out["cheapest"]["status"] == "announced"
    assert any("only announced offers match" in w for w in out["warnings"])


def test_conflicting_rows_for_the_same_product_are_flagged():
    # The post's AWS H200 $12.29/GPU-h vs AWS p5en.48xlarge $63.296 / 8 = $7.912/GPU-h.
    out = price(gpu="h200-sxm", provider="aws", kind="on_demand")
    conflicts = [w for w in out["warnings"] if w.startswith("conflicting prices for aws")]
    assert len(conflicts) == 1 and "$7.912" in conflicts[0] and "$12.29" in conflicts[0]


def test_cheapest_for_3_gpus_counts_whole_instances():
    # Lambda H100: 1x $4.29, 2x $4.19, 4x $4.09, 8x $3.99 per GPU-hour. For 3 GPUs:
    # 3 x 4.29 = 12.87 beats 4 x 4.09 = 16.36, 2 x 2 x 4.19 = 16.76 and 8 x 3.99 = 31.92 $/h.
    out = price(gpu="h100-sxm", provider="lambda", gpus=3)
    assert out["cheapest"]["gpus_per_node"] == 1
    assert out["hourly_usd"] == pytest.approx(12.87)


def test_gpus_round_up_to_whole_nodes_with_a_warning():
    # CoreWeave HGX H100 at $49.24 per 8-GPU node: 12 GPUs take 2 nodes = 16 GPUs, $98.48/h.
    out = price(gpu="h100-sxm", provider="coreweave", kind="on_demand", gpus=12)
    assert out["billed_gpus"] == 16
    assert out["hourly_usd"] == pytest.approx(98.48)
    assert any("billed as 16" in w for w in out["warnings"])


def test_months_and_utilization_and_run_cost():
    # AWS p5.48xlarge $6.88/GPU-h, 2 nodes = 16 GPUs: 6.88 x 16 x 730 x 0.5 = 40,179.2 a month,
    # 3 months = 120,537.6; a 1,000 GPU-hour run = 6,880.
    out = price(gpu="h100-sxm", provider="aws", nodes=2, months=3, utilization=0.5,
                gpu_hours=1000)
    assert out["monthly_usd"] == pytest.approx(40179.2, abs=0.005)
    assert out["period_hours"] == 2190
    assert out["total_usd"] == pytest.approx(120537.6, abs=0.005)
    assert out["run_usd"] == pytest.approx(6880.0, abs=0.005)


def test_break_even_from_a_reserved_row_against_on_demand(tmp_path):
    # Imported 1-year reserve at $2.394 vs Lambda's 8x on-demand $3.99: 1 - 2.394/3.99 = 0.4.
    csv = tmp_path / "reserved.csv"
    csv.write_text("provider,gpu,gpus_per_node,kind,usd_per_gpu_hour,verified_on,source_note\n"
                   "lambda,h100-sxm,8,reserved_1y,2.394,2026-11-30,my-quote\n")
    assert run_cli("prices", "import", str(csv)).exit_code == 0
    out = price(gpu="h100-sxm", provider="lambda")
    assert out["break_even_utilization"]["discount"] == pytest.approx(0.4)
    assert out["break_even_utilization"]["utilization"] == pytest.approx(0.6)
    assert "reserved_1y" in out["break_even_utilization"]["discount_from"]


def test_unknown_gpu_and_provider_name_the_nearest_ids():
    line = fails({"gpu": "h300"})
    assert line.startswith("Error: gpu: unknown GPU 'h300'") and "h200-sxm" in line
    assert "coreweave" in fails({"gpu": "h100", "provider": "corewave"})
    assert "egress_provider" in fails({"egress_tb": 1, "egress_provider": "awz"})


@pytest.mark.parametrize(("payload", "words"), [
    ({"gpu": "h100", "utilization": 0}, "utilization"),
    ({"gpu": "h100", "utilization": 1.5}, "utilization"),
    ({"gpu": "h100", "gpus": 8, "nodes": 1}, "not both"),
    ({"gpus": 8}, "needs `gpu`"),
    ({"egress_provider": "aws"}, "needs `egress_tb`"),
    ({"reserved_discount": 1.2}, "reserved_discount"),
    ({"gpu": "h100", "kind": "weekly"}, "kind"),
])
def test_bad_input_is_one_line_naming_the_field(payload, words):
    assert words in fails(payload)


def test_the_tool_is_registered_with_its_schema():
    listed = {t["name"]: t for t in json.loads(run_cli("tool", "list").output)}
    props = listed["pricing"]["input_schema"]["properties"]
    assert {"gpu", "gpus", "nodes", "provider", "kind", "hours", "months", "utilization",
            "egress_tb", "egress_provider", "gpu_hours", "reserved_discount", "as_of"} <= set(props)
    out_props = listed["pricing"]["output_schema"]["properties"]
    assert {"offers", "cheapest", "monthly_usd", "break_even_utilization", "egress_usd",
            "egress_tiers", "run_usd", "steps", "citations", "warnings"} <= set(out_props)


def test_pricing_claims_in_the_notes_are_checked_by_the_tool():
    from clusterplan.assistant.notes.check import check_all

    verdicts = {o.key: o.verdict for o in check_all()}
    assert verdicts["pricing-models#break-even"] == "agrees"
    assert verdicts["egress-fees#aws-10tb-example"] == "agrees"
    assert verdicts["egress-fees#aws-10tb-tiered"] == "agrees"
    assert verdicts["gpu-prices-2026#coreweave-h200-month"] == "agrees"
    # The post's $47.2 node price is not 8 x its $3.75 GPU price: the check says so.
    assert verdicts["gpu-prices-2026#packet-b200-node"] == "disagrees"


def _offer(price: float, region: str = "", product: str = "", provider: str = "p"):
    import datetime as dt

    from clusterplan.tools.pricing.offers import Offer

    return Offer(provider=provider, gpu="h100-sxm", kind="on_demand", usd_per_gpu_hour=price,
                 usd_per_node_hour=price * 8, gpus_per_node=8, region=region,
                 verified_on=dt.date(2026, 11, 1), age_days=1, stale=False, status="available",
                 source_note=f"n-{price}-{region}", product=product,
                 effective_usd_per_gpu_hour=price)


def test_conflicts_compare_only_rows_that_may_be_the_same_product():
    from clusterplan.tools.pricing.offers import _conflicts

    assert _conflicts([_offer(1.0, "eu"), _offer(2.0, "us")]) == []  # two regions
    assert len(_conflicts([_offer(1.0, "eu"), _offer(2.0, "")])) == 1  # one unstated
    assert _conflicts([_offer(1.0, "eu"), _offer(1.004, "eu")]) == []  # rounding
    assert _conflicts([_offer(1.0, "eu", "a"), _offer(2.0, "eu", "b")]) == []
    assert len(_conflicts([_offer(1.0, "eu", "a"), _offer(2.0, "", "a")])) == 1


def test_many_conflicting_rows_are_one_warning_naming_the_widest_gap():
    # 3,000 rows of one product (issue 23): one warning, not one a pair (4.5 million)
    from clusterplan.tools.pricing.offers import _conflicts

    rows = [_offer(1.0 + i / 1000) for i in range(3000)]
    found = _conflicts(rows)
    assert len(found) == 1
    assert "$1/GPU-h" in found[0] and "$3.999/GPU-h" in found[0] and "2998 more row(s)" in found[0]


def test_sixteen_gpus_are_priced_on_nodes_joined_by_a_fabric_not_single_gpu_pods():
    # On demand, RunPod's community H100 at $2.69 and Hyperstack's at $3.20 are single-GPU
    # pods, and Lambda's 8x instance at $3.99 comes with no inter-node fabric (note
    # plan-cluster-fabrics): none makes a 16-GPU cluster. CoreWeave's HGX H100 node on
    # InfiniBand at $49.24 a node-hour is 49.24 / 8 = $6.155 per GPU-hour: 1,000 GPU-hours
    # cost $6,155.
    result = price(gpu="h100-sxm", gpus=16, kind="on_demand", gpu_hours=1000)
    assert (result["cheapest"]["provider"], result["cheapest"]["gpus_per_node"]) == \
        ("coreweave", 8)
    assert result["run_usd"] == pytest.approx(6155, abs=0.01)
    assert any("one cluster" in a for a in result["assumptions"])


def test_gpus_that_fit_one_node_may_take_a_single_node_offer():
    # One GPU fits a one-GPU pod: RunPod's community H100 at $2.69 stays the cheapest.
    result = price(gpu="h100-sxm", gpus=1, kind="on_demand")
    assert result["cheapest"]["usd_per_gpu_hour"] == pytest.approx(2.69)
