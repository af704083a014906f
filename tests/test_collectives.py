"""The collective-time model as pure functions, against figures worked out by hand here."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplan.db.rows import LinkRow
from clusterplan.tools.contract import ToolError
from clusterplan.tools.interconnect.collectives import bus_factor, collective_time, collective_timer

GB = 1e9


def link(link_id: str, gb_s: float, latency_us: float = 0.0, scope: str = "intra_node"
         ) -> LinkRow:
    """A link built in the test, so the expected figures do not depend on the catalog."""
    kind = "nvlink" if scope == "intra_node" else "infiniband"
    return LinkRow(id=link_id, name=link_id, kind=kind, scope=scope,
                   line_rate_per_direction_gb_s=gb_s, latency_us=latency_us,
                   marketed_bidirectional=scope == "intra_node", source_note="test")


# H100 NVLink 4: 900 GB/s both ways = 450 one way; NDR: 400 Gb/s = 50 GB/s (datasheets).
NVLINK4 = link("nvlink-4", 450, 0.6)
NDR = link("ib-ndr", 50, 2.7, "inter_node")

# nccl-tests doc/PERFORMANCE.md, Summary: 2(n-1)/n, (n-1)/n, or 1; worked out for n = 2, 8, 64.
FACTORS = {
    "all_reduce": {2: 1.0, 8: 1.75, 64: 126 / 64},
    "all_gather": {2: 0.5, 8: 0.875, 64: 63 / 64},
    "reduce_scatter": {2: 0.5, 8: 0.875, 64: 63 / 64},
    "all_to_all": {2: 0.5, 8: 0.875, 64: 63 / 64},
    "broadcast": {2: 1.0, 8: 1.0, 64: 1.0},
    "send_recv": {2: 1.0, 8: 1.0, 64: 1.0},
}


@pytest.mark.parametrize("op", FACTORS)
@pytest.mark.parametrize("n", [2, 8, 64])
def test_bus_factors_are_nccl_tests(op, n):
    assert bus_factor(op, n) == pytest.approx(FACTORS[op][n], rel=1e-12)


def test_ring_all_reduce_of_140_gb_on_8_gpus_at_450():
    # 2 * 7/8 * 140 GB / 450 GB/s = 0.54444 s, latency ignored; busbw = 1.75 * 140/0.5444 = 450.
    ct = collective_time("all_reduce", 140 * GB, 8, 8, NVLINK4, algorithm="ring",
                         bandwidth="line_rate", include_latency=False)
    assert ct.time_s == pytest.approx(2 * 7 / 8 * 140 / 450, rel=1e-12)
    assert ct.time_s == pytest.approx(0.5444, abs=5e-5)
    assert ct.bus_factor == 1.75
    assert ct.busbw_gbps == pytest.approx(450, rel=1e-12)
    assert ct.algbw_gbps == pytest.approx(140 / 0.544444, rel=1e-5)


def test_latency_adds_alpha_per_ring_step():
    # 14 steps (2(n-1), n = 8) of 0.6 us each add 8.4 us.
    ct = collective_time("all_reduce", 140 * GB, 8, 8, NVLINK4, algorithm="ring",
                         bandwidth="line_rate")
    assert ct.time_s - 2 * 7 / 8 * 140 / 450 == pytest.approx(14 * 0.6e-6, rel=1e-6)


# Rings per port vs hierarchical, 1 GB, 8 H100 per node, 8 NDR ports at 50 GB/s, by hand:
#   NCCL's rings, one per port, share the node's 8 x 50 = 400 GB/s (below NVLink's 450), so
#   the ring runs at 400 (collective-algorithms#rings-per-port).
#   2 nodes (n = 16):  ring = 2*15/16 * 1/400 = 0.0046875 s
#                      hier = 2*7/8 * 1/450 + 2*1/2 * (1/8)/50 = 0.0038889 + 0.0025 = 0.0063889 s
#   16 nodes (n = 128): ring = 2*127/128 * 1/400 = 0.0049609 s
#                      hier = 0.0038889 + 2*15/16 * (1/8)/50 = 0.0038889 + 0.0046875 = 0.0085764 s
HAND = {2: (0.0046875, 0.0063889), 16: (0.0049609, 0.0085764)}


@pytest.mark.parametrize("nodes", [2, 16])
def test_rings_per_port_beat_the_hierarchical_layout_with_a_port_per_gpu(nodes):
    ring_by_hand, hier_by_hand = HAND[nodes]
    kwargs = dict(intra=NVLINK4, inter=NDR, nics_per_node=8, bandwidth="line_rate",
                  include_latency=False)
    ring = collective_time("all_reduce", GB, 8 * nodes, 8, algorithm="ring", **kwargs)
    hier = collective_time("all_reduce", GB, 8 * nodes, 8, algorithm="hierarchical", **kwargs)
    assert ring.time_s == pytest.approx(ring_by_hand, rel=1e-4)
    assert hier.time_s == pytest.approx(hier_by_hand, rel=1e-4)
    assert ring.time_s < hier.time_s
    assert ring.bottleneck == "ib-ndr"
    assert [p.name for p in hier.phases] == [
        "intra-node reduce-scatter", "inter-node all-reduce", "intra-node all-gather"]


def test_with_half_the_ports_the_hierarchical_layout_wins_on_two_nodes():
    # 4 NDR ports: rings share 4 x 50 = 200 GB/s: 2*15/16 / 200 = 0.009375 s; hierarchical's
    # network share per GPU is 200/8 = 25: 1.75/450 + 1.0*(1/8)/25 = 0.0038889 + 0.005 = 0.0088889.
    kwargs = dict(intra=NVLINK4, inter=NDR, nics_per_node=4, bandwidth="line_rate",
                  include_latency=False)
    ring = collective_time("all_reduce", GB, 16, 8, algorithm="ring", **kwargs)
    hier = collective_time("all_reduce", GB, 16, 8, algorithm="hierarchical", **kwargs)
    assert ring.time_s == pytest.approx(0.009375, rel=1e-9)
    assert hier.time_s == pytest.approx(0.0088889, rel=1e-4)


def test_rings_with_latency_across_2_nodes():
    # ring: 0.0046875 + 30 steps * 2.7 us = 0.0047685 s
    # hier: 0.0063889 + 14 * 0.6 us (intra) + 2 * 2.7 us (inter) = 0.0064027 s
    kwargs = dict(intra=NVLINK4, inter=NDR, nics_per_node=8, bandwidth="line_rate")
    ring = collective_time("all_reduce", GB, 16, 8, algorithm="ring", **kwargs)
    hier = collective_time("all_reduce", GB, 16, 8, algorithm="hierarchical", **kwargs)
    assert ring.time_s == pytest.approx(0.0047685, rel=1e-6)
    assert hier.time_s == pytest.approx(0.0064027, rel=1e-4)


@given(g=st.integers(1, 16), nodes=st.integers(2, 64), intra=st.floats(1, 2000),
       nic=st.floats(0.1, 200), nics=st.integers(1, 16), alpha=st.floats(0, 20),
       size=st.floats(1e3, 1e12))
def test_rings_per_port_lie_between_one_ring_and_the_nodes_whole_network(g, nodes, intra, nic,
                                                                        nics, alpha, size):
    # Never slower than one logical ring at a GPU's share of the network
    # (min(intra, nics x nic / g)), never faster than the node's ports (or a GPU's own link)
    # carry: 2(n-1)/n S / min(intra, nics x nic).
    fast, slow = link("a", intra, alpha), link("b", nic, alpha, "inter_node")
    n = g * nodes
    ring = collective_time("all_reduce", size, n, g, fast, slow, nics, algorithm="ring",
                           bandwidth="line_rate").time_s
    latency = 2 * (n - 1) * alpha * 1e-6
    volume = 2 * (n - 1) / n * size / 1e9
    assert ring <= latency + volume / min(intra, nics * nic / g) * (1 + 1e-9)
    assert ring >= latency + volume / min(intra, nics * nic) * (1 - 1e-9)


def test_equal_links_make_hierarchical_and_ring_equal_in_bandwidth():
    # B_intra = 50 = per-GPU share of 8 ports at 50: both send 2(n-1)/n S at 50 GB/s.
    same = link("same", 50)
    kwargs = dict(intra=same, inter=NDR, nics_per_node=8, bandwidth="line_rate",
                  include_latency=False)
    ring = collective_time("all_reduce", GB, 16, 8, algorithm="ring", **kwargs)
    hier = collective_time("all_reduce", GB, 16, 8, algorithm="hierarchical", **kwargs)
    assert hier.time_s == pytest.approx(ring.time_s, rel=1e-12)
    assert ring.time_s == pytest.approx(2 * 15 / 16 / 50, rel=1e-12)


def test_auto_takes_tree_for_small_and_ring_for_large_messages():
    # 1 MB on 8 GPUs: ring = 14 * 0.6 us + 1.75 MB / 450 GB/s = 8.4 + 3.889 = 12.29 us
    #                 tree = 2 * 3 * 0.6 us + 2 MB / 450 GB/s = 3.6 + 4.444 = 8.04 us
    small = collective_time("all_reduce", 1e6, 8, 8, NVLINK4, bandwidth="line_rate")
    assert small.algorithm == "tree"
    assert small.candidates["ring"] == pytest.approx(12.289e-6, rel=1e-3)
    assert small.time_s == pytest.approx(8.044e-6, rel=1e-3)
    large = collective_time("all_reduce", GB, 8, 8, NVLINK4, bandwidth="line_rate")
    assert large.algorithm == "ring"


def test_auto_reason_names_every_candidate():
    ct = collective_time("all_reduce", GB, 16, 8, NVLINK4, NDR, 8, bandwidth="line_rate")
    auto = [s for s in ct.steps if s.label.startswith("auto")]
    assert ct.algorithm == min(ct.candidates, key=ct.candidates.get) == "ring"
    assert auto and "ring" in auto[0].formula and "tree" in auto[0].formula


def test_hierarchical_all_gather_and_reduce_scatter_by_hand():
    # 2 nodes x 8, 1 GB: inter (N-1)/N * (S/g) / 50 = 0.5 * 0.125 / 50 = 0.00125 s
    #                    intra (g-1)/g * S / 450 = 0.875 / 450 = 0.0019444 s
    for op in ("all_gather", "reduce_scatter"):
        ct = collective_time(op, GB, 16, 8, NVLINK4, NDR, 8, "hierarchical", "line_rate",
                             include_latency=False)
        assert ct.time_s == pytest.approx(0.00125 + 0.0019444, rel=1e-4)


def test_hierarchical_all_to_all_sends_both_parts_at_once():
    # 2 nodes x 8, 1 GB per rank: own node 7/16 GB over 450, other node 8/16 GB over 50;
    # max(0.000972, 0.01) = 0.01 s, against the flat 15/16 / 50 = 0.01875 s.
    kwargs = dict(bandwidth="line_rate", include_latency=False)
    hier = collective_time("all_to_all", GB, 16, 8, NVLINK4, NDR, 8, "hierarchical", **kwargs)
    flat = collective_time("all_to_all", GB, 16, 8, NVLINK4, NDR, 8, "ring", **kwargs)
    assert hier.time_s == pytest.approx(0.01, rel=1e-9)
    assert flat.time_s == pytest.approx(0.01875, rel=1e-9)


def test_send_recv_across_nodes_uses_one_port():
    # 1 GB at min(450, 50) = 50 GB/s = 0.02 s, plus one network latency of 2.7 us.
    ct = collective_time("send_recv", GB, 2, 1, NVLINK4, NDR, bandwidth="line_rate")
    assert ct.time_s == pytest.approx(0.02 + 2.7e-6, rel=1e-9)
    assert ct.bottleneck == "ib-ndr"


def test_broadcast_ring_is_size_over_bandwidth_plus_steps():
    # (n-1) * alpha + S / B = 7 * 0.6 us + 1 GB / 450 GB/s
    ct = collective_time("broadcast", GB, 8, 8, NVLINK4, algorithm="ring", bandwidth="line_rate")
    assert ct.time_s == pytest.approx(7 * 0.6e-6 + 1 / 450, rel=1e-9)


def test_effective_rate_falls_back_to_line_rate_when_unknown():
    # The test link has no usable-rate figure, so effective = line rate (450).
    ct = collective_time("all_reduce", 140 * GB, 8, 8, NVLINK4, algorithm="ring",
                         include_latency=False)
    assert ct.time_s == pytest.approx(2 * 7 / 8 * 140 / 450, rel=1e-12)


def test_timer_for_a_step_time_model():
    seconds = collective_timer(NVLINK4, NDR, 8, "line_rate")
    assert seconds("all_reduce", 140 * GB, 8, 8) == pytest.approx(2 * 7 / 8 * 140 / 450,
                                                                   rel=1e-4)
    assert seconds("all_reduce", 140 * GB, 1, 1) == 0.0


def test_a_tree_does_not_apply_to_all_gather():
    with pytest.raises(ToolError, match="tree.*all_gather"):
        collective_time("all_gather", GB, 8, 8, NVLINK4, algorithm="tree")


def test_spanning_nodes_needs_an_inter_node_link():
    with pytest.raises(ToolError, match="inter_link"):
        collective_time("all_reduce", GB, 16, 8, NVLINK4)


def test_importing_the_tool_does_not_import_pint():
    code = ("import sys, clusterplan.tools.interconnect.tool, "
            "clusterplan.tools.interconnect.collectives; "
            "print('pint' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
