"""Tool `interconnect` as a user runs it: conversions, collectives, transfers, comparisons."""

from __future__ import annotations

import json

import pytest

from clusterplan.db.seed_data import seed_rows
from tests.conftest import run_cli, run_tool


def tool(**payload):
    return run_tool("interconnect", payload)


def fails_in_one_line(payload: dict) -> str:
    result = run_cli("tool", "interconnect", "--input", json.dumps(payload))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_the_tool_is_registered_with_its_schemas():
    listed = {t["name"]: t for t in json.loads(run_cli("tool", "list").output)}
    schema = listed["interconnect"]["input_schema"]
    assert schema["additionalProperties"] is False
    assert {"op", "size", "ranks", "intra_link", "inter_link", "algorithm"} <= set(
        schema["properties"])
    outputs = listed["interconnect"]["output_schema"]["properties"]
    assert {"time_s", "algbw_gbps", "busbw_gbps", "bottleneck", "phases", "value", "unit",
            "ratio", "steps", "citations", "assumptions", "warnings"} <= set(outputs)


# Conversions: 400 Gb/s / 8 bits = 50 GB/s; 900 GB/s * 8 = 7,200 Gb/s = 7.2 Tb/s;
# 1 GiB = 2^30 B = 1,073,741,824 B = 1.073741824 GB.
@pytest.mark.parametrize(("value", "to", "expected"), [
    ("400 Gb/s", "GB/s", 50.0),
    ("900 GB/s", "Tb/s", 7.2),
    ("1 GiB", "GB", 1.073741824),
])
def test_convert(value, to, expected):
    result = tool(op="convert", value=value, to=to)
    assert result["value"] == pytest.approx(expected, rel=1e-12)
    assert result["unit"] == to


def test_ring_all_reduce_of_140_gb_on_8_h100s():
    # 2 * 7/8 * 140 GB / 450 GB/s = 0.5444 s at NVLink 4 line rate (900 both ways), no latency.
    result = tool(op="all_reduce", size="140 GB", ranks=8, gpus_per_node=8,
                  intra_link="NVLink 4", algorithm="ring", bandwidth="line_rate",
                  include_latency=False)
    assert result["time_s"] == pytest.approx(0.544444, rel=1e-6)
    assert result["bus_factor"] == 1.75
    assert result["busbw_gbps"] == pytest.approx(450, rel=1e-9)
    assert result["algbw_gbps"] == pytest.approx(140 / 0.544444, rel=1e-5)
    assert result["bottleneck"] == "nvlink-4"
    phase = result["phases"][0]
    assert phase["size_gb"] == pytest.approx(2 * 7 / 8 * 140) and phase["link"] == "nvlink-4"


def test_effective_bandwidth_uses_nccl_per_link_constant():
    # NCCL SM90_NVLINK_BW = 20.6 GB/s per link x 18 links = 370.8 GB/s one way:
    # 2 * 7/8 * 140 / 370.8 = 0.660733 s.
    result = tool(op="all_reduce", size="140 GB", ranks=8, gpus_per_node=8,
                  intra_link="nvlink-4", algorithm="ring", include_latency=False)
    assert result["time_s"] == pytest.approx(1.75 * 140 / 370.8, rel=1e-9)
    assert any("effective" in a for a in result["assumptions"])
    assert "nccl-link-bandwidths" in {c["id"] for c in result["citations"]}


@pytest.mark.parametrize("op", ["all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                                "broadcast"])
@pytest.mark.parametrize("n", [2, 8, 64])
def test_busbw_is_algbw_times_the_nccl_tests_factor(op, n):
    # nccl-tests PERFORMANCE.md: 2(n-1)/n for all-reduce, (n-1)/n for the gathers and
    # all-to-all, 1 for broadcast; n = 64 spans 8 nodes of 8.
    factor = {"all_reduce": 2 * (n - 1) / n, "broadcast": 1.0}.get(op, (n - 1) / n)
    result = tool(op=op, size="1 GB", ranks=n, gpus_per_node=min(n, 8))
    assert result["bus_factor"] == pytest.approx(factor, rel=1e-12)
    assert result["busbw_gbps"] == pytest.approx(result["algbw_gbps"] * factor, rel=1e-12)


def test_nvlink_vs_infiniband_is_9_to_1_per_direction_not_18():
    # 900 GB/s both ways / 2 = 450 GB/s; 400 Gb/s / 8 = 50 GB/s; 450 / 50 = 9.
    # The "18 to 1" sets 900 (both directions) against 50 (one direction).
    result = tool(op="compare", links=["NVLink 4", "InfiniBand NDR"])
    assert result["ratio"] == pytest.approx(9.0, rel=1e-12)
    assert result["marketed_ratio"] == pytest.approx(18.0, rel=1e-12)
    first, second = result["links"]
    assert (first["per_direction_gbps"], second["per_direction_gbps"]) == (450, 50)
    assert first["marketed_gbps"] == 900 and first["marketed_as"] == "both directions"
    text = result["explanation"]
    assert "18:1" in text and "9:1" in text
    assert "bidirectional figure against a per-direction one" in text


@pytest.mark.parametrize(("typed", "expected"), [
    ("NVLink 4", "nvlink-4"), ("nvlink4", "nvlink-4"), ("InfiniBand NDR", "ib-ndr"),
    ("IB NDR", "ib-ndr"), ("ib-ndr", "ib-ndr"), ("PCIe 5", "pcie-5"),
    ("400GbE RoCE", "roce-400"), ("NVLink 3", "nvlink-3"), ("nvlink5", "nvlink-5"),
    ("IB XDR", "ib-xdr"), ("HDR", "ib-hdr"), ("pcie gen4", "pcie-4"),
])
def test_link_names_a_person_types(typed, expected):
    result = tool(op="compare", links=[typed, "ib-ndr"])
    assert result["links"][0]["id"] == expected


def test_every_gpu_node_link_is_in_the_link_catalog():
    link_ids = {row["id"] for row in seed_rows("links")}
    wanted = {row["intra_link"] for row in seed_rows("gpus") if row["intra_link"]}
    assert wanted <= link_ids
    assert {"nvlink-3", "nvlink-4", "nvlink-5", "pcie-4", "pcie-5", "infinity-fabric"} <= wanted


@pytest.mark.parametrize("nodes", [2, 16])
def test_rings_and_hierarchical_across_nodes_by_hand(nodes):
    # 1 GB, 8 H100 per node, 8 NDR ports at 50 GB/s, line rate, no latency; NCCL's rings (one
    # per port) share the node's 400 GB/s (collective-algorithms#rings-per-port):
    #   2 nodes:  ring 2*15/16/400 = 0.0046875;  hier 1.75/450 + 1.0*(1/8)/50 = 0.0063889
    #   16 nodes: ring 2*127/128/400 = 0.0049609; hier 1.75/450 + 1.875*(1/8)/50 = 0.0085764
    ring_by_hand, hier_by_hand = {2: (0.0046875, 0.0063889), 16: (0.0049609, 0.0085764)}[nodes]
    common = dict(op="all_reduce", size="1 GB", ranks=8 * nodes, gpus_per_node=8,
                  intra_link="nvlink-4", inter_link="ib-ndr", nics_per_node=8,
                  bandwidth="line_rate", include_latency=False)
    ring = tool(**common, algorithm="ring")
    hier = tool(**common, algorithm="hierarchical")
    assert ring["time_s"] == pytest.approx(ring_by_hand, rel=1e-4)
    assert hier["time_s"] == pytest.approx(hier_by_hand, rel=1e-4)
    assert [p["name"] for p in hier["phases"]] == [
        "intra-node reduce-scatter", "inter-node all-reduce", "intra-node all-gather"]
    assert ring["bottleneck"] == "ib-ndr"
    assert any("node's network: 400 GB/s through its 8 ib-ndr port(s)" in w
               for w in ring["warnings"])
    auto = tool(**{**common, "algorithm": "auto"})
    assert auto["algorithm"] == "ring"
    assert {c["algorithm"] for c in auto["candidates"]} == {"ring", "tree", "hierarchical"}


def test_defaults_are_listed_as_assumptions():
    result = tool(op="all_reduce", size="10 GB", ranks=16)
    text = " ".join(result["assumptions"])
    assert "8 GPUs per node" in text and "nvlink-4" in text and "ib-ndr" in text
    assert "one per GPU" in text


def test_a_gpu_gives_its_node_link():
    result = tool(op="all_reduce", size="10 GB", ranks=8, gpu="MI300X", bandwidth="line_rate")
    assert result["bottleneck"] == "infinity-fabric"
    assert "amd-mi300x-datasheet" in {c["id"] for c in result["citations"]}


def test_a_gb200_rack_is_one_nvlink_domain_of_72():
    # NCCL SM100_NVLINK_BW 40.1 GB/s x 18 links = 721.8 GB/s; ring over 72 GPUs, 10 GB:
    # 2*71/72 * 10 / 721.8 = 0.0273237 s, plus 142 steps x 0.6 us = 0.0000852 s.
    result = tool(op="all_reduce", size="10 GB", ranks=72, gpu="GB200", algorithm="ring")
    assert (result["nodes"], result["gpus_per_node"]) == (1, 72)
    assert result["time_s"] == pytest.approx(0.0273237 + 0.0000852, rel=1e-5)


def test_checkpoint_of_1_tb_to_local_nvme():
    # Micron 9400: 7,000 MB/s sequential write; 1e12 B / 7e9 B/s = 142.857 s
    # (plus 21 us of latency, below the tolerance).
    result = tool(op="transfer", size="1 TB", link="local NVMe")
    assert result["time_s"] == pytest.approx(1e12 / 7e9, rel=1e-6)
    assert result["bottleneck"] == "local-nvme"
    assert "storage-bandwidth" in {c["id"] for c in result["citations"]}


@pytest.mark.parametrize("path", ["wan-10g", "10 Gb/s"])
def test_10_tb_over_10_gbps_takes_8000_s(path):
    # 10 Gb/s / 8 = 1.25 GB/s; 10,000 GB / 1.25 GB/s = 8,000 s.
    result = tool(op="transfer", size="10 TB", link=path)
    assert result["time_s"] == pytest.approx(8000, rel=1e-12)


def test_transfer_over_parallel_paths():
    # 8 drives in a RAID 0: 8 * 7 GB/s = 56 GB/s; 1,000 GB / 56 = 17.857 s.
    result = tool(op="transfer", size="1 TB", link="local-nvme", parallel_links=8)
    assert result["time_s"] == pytest.approx(1000 / 56, rel=1e-5)


def test_sizes_in_gib_are_binary():
    # 2 GiB = 2.147483648 GB.
    result = tool(op="transfer", size="2 GiB", link="10 Gb/s")
    assert result["size_gb"] == pytest.approx(2.147483648, rel=1e-12)


def test_every_citation_resolves_to_a_note():
    result = tool(op="all_reduce", size="1 GB", ranks=16, inter_link="IB NDR")
    ids = {c["id"] for c in result["citations"]}
    assert {"collective-algorithms", "nccl-tests-performance", "nvlink-generations",
            "infiniband-rates", "nccl-link-bandwidths"} <= ids
    assert all(c["title"] != "(missing note)" for c in result["citations"])


@pytest.mark.parametrize(("payload", "says"), [
    ({"op": "all_reduce", "size": "1 GB", "ranks": 8, "intra_link": "nvlink 9"},
     ["intra_link", "unknown link 'nvlink 9'", "nvlink-4"]),
    ({"op": "all_reduce", "size": "1 GB", "ranks": 16, "inter_link": "infiniband qdr"},
     ["inter_link", "ib-"]),
    ({"op": "all_reduce", "size": "400 kg", "ranks": 8}, ["size", "400 kg"]),
    ({"op": "convert", "value": "400 kg", "to": "GB/s"}, ["value", "400 kg"]),
    ({"op": "all_reduce", "size": "-140 GB", "ranks": 8}, ["size", "above 0"]),
    ({"op": "all_reduce", "size_gb": -1, "ranks": 8}, ["size_gb", "greater than 0"]),
    ({"op": "all_reduce", "size": "1 GB", "ranks": 1}, ["ranks", "at least 2"]),
    ({"op": "all_reduce", "size": "1 GB", "ranks": 4, "gpus_per_node": 8},
     ["gpus_per_node", "more than ranks"]),
    ({"op": "all_reduce", "size": "1 GB", "ranks": 16, "intra_link": "ib-ndr"},
     ["intra_link", "inter-node link", "nvlink-4"]),
    ({"op": "all_gather", "size": "1 GB", "ranks": 8, "algorithm": "tree"},
     ["algorithm", "ring, hierarchical or auto"]),
    ({"op": "transfer", "size": "1 TB", "link": "floppy"}, ["link", "unknown link"]),
    ({"op": "all_reduce", "ranks": 8}, ["size"]),
    ({"op": "compare", "links": ["nvlink-4"]}, ["links"]),
])
def test_bad_input_is_one_line(payload, says):
    line = fails_in_one_line(payload)
    for words in says:
        assert words in line, line


# Bus bandwidth nccl-tests measured on real clusters (collective-algorithms#measured-a100-hdr,
# #measured-at-scale), against the tool's default: usable rates, latency, the fastest algorithm.
A100_4_HDR = dict(op="all_reduce", gpus_per_node=8, intra_link="nvlink-3", inter_link="ib-hdr",
                  nics_per_node=4)


def test_three_a100_nodes_with_four_hdr_ports_reach_what_nccl_tests_measured():
    # nccl-tests#119: 24 ranks, all_reduce_perf up to 128 MB: 84.8 GB/s on average over the
    # sizes, about 96 at the peak. The four 200 Gb/s ports carry 4 x 25 = 100 GB/s, so a ring
    # (one per port) is bounded by 100; the tool's 128 MB figure lands within 10% of the peak.
    result = tool(**A100_4_HDR, ranks=24, size="128 MB")
    assert result["busbw_gbps"] == pytest.approx(96, rel=0.10)
    assert 84.8 < result["busbw_gbps"] <= 100


def test_two_a100_nodes_read_fast_by_under_a_fifth_as_said():
    # nccl-tests#100: 16 ranks, 1-8 GB: 91 GB/s. NCCL runs its tree on two nodes (nccl-tests
    # #196), which the tool prices as the hierarchical layout: 1.875 x 4 GB / 0.0692 s = 108 GB/s,
    # 19% above what was measured (the note says so); the ring NCCL_ALGO=RING would run is
    # within 10%.
    auto = tool(**A100_4_HDR, ranks=16, size="4 GB")
    ring = tool(**A100_4_HDR, ranks=16, size="4 GB", algorithm="ring")
    assert auto["algorithm"] == "hierarchical"
    assert 91 < auto["busbw_gbps"] <= 91 * 1.2
    assert ring["busbw_gbps"] == pytest.approx(91, rel=0.10)


@pytest.mark.xfail(strict=True, reason="1,984 ranks: NCCL's NVLS trees skip the ring's 2(n-1) "
                   "latency steps; the alpha-beta layouts read 162 GB/s against about 350 "
                   "(collective-algorithms#measured-at-scale)")
def test_248_h200_nodes_reach_what_nccl_tests_measured():
    # nccl-tests#283: 248 nodes of 8 H200 with 8 ports (NDR), 512 MB: about 350 GB/s.
    result = tool(op="all_reduce", ranks=1984, gpus_per_node=8, intra_link="nvlink-4",
                  inter_link="ib-ndr", nics_per_node=8, size="512 MB")
    assert result["busbw_gbps"] == pytest.approx(350, rel=0.25)
