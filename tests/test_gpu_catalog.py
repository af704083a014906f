"""The GPU catalog: capacities in the bytes the driver reports, the precisions each GPU lacks,
and the names people type.

Every expected capacity is the driver's total written out (MiB x 2^20 bytes, or bytes as the
tool printed them), from the nvidia-smi / rocm-smi output quoted in note gpu-driver-memory;
GB = 1e9 bytes throughout.
"""

from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from clusterplan.db.catalog import UnknownName, load_catalog
from clusterplan.db.rows import GpuRow
from clusterplan.db.seed_data import seed_rows
from clusterplan.db.store import SCHEMA_VERSION, Store
from clusterplan.knowledge.notes import shipped_notes
from tests.conftest import run_cli, run_tool

MiB = 2**20
GiB = 2**30


@pytest.fixture(scope="module")
def gpus():
    return load_catalog(Store.memory()).gpus


# --- capacity: the driver's bytes -------------------------------------------------------

@pytest.mark.parametrize(("gpu", "driver_bytes"), [
    ("h100-sxm", 81_559 * MiB),        # nvidia-smi: 81559MiB (NVIDIA H100 80GB HBM3)
    ("a100-sxm-80gb", 81_920 * MiB),   # nvidia-smi: 81920MiB
    ("a100-sxm-40gb", 40_960 * MiB),   # nvidia-smi: 40960MiB
    ("a800-sxm-80gb", 81_920 * MiB),   # nvidia-smi: 81920MiB (NVIDIA A800-SXM4-80GB)
    ("h200-sxm", 143_771 * MiB),       # nvidia-smi: 143771MiB
    ("b200-sxm", 183_359 * MiB),       # nvidia-smi: 183359MiB
    ("h100-nvl", 99_961_274_368),      # driver 570: 99961274368 bytes
    ("t4", 15_360 * MiB),              # nvidia-smi: 15360MiB
    ("a10", 23_028 * MiB),             # nvidia-smi: 23028MiB; NVML Total 24146608128
    ("a10g", 23_028 * MiB),            # nvidia-smi: 23028MiB
    ("l4", 23_034 * MiB),              # nvidia-smi: 23034MiB
    ("l40s", 46_068 * MiB),            # nvidia-smi: 46068MiB
    ("a40", 46_068 * MiB),             # nvidia-smi: 46068MiB (ECC on, as it ships)
    ("rtx-a6000", 49_140 * MiB),       # nvidia-smi: 49140MiB (ECC off, the workstation default)
    ("rtx-3090", 24_576 * MiB),        # nvidia-smi: 24576MiB
    ("rtx-4090", 24_564 * MiB),        # nvidia-smi: 24564MiB
    ("rtx-5090", 32_607 * MiB),        # nvidia-smi: 32607MiB
    ("mi300x", 206_141_652_992),       # rocm-smi: VRAM Total Memory (B) 206141652992
])
def test_capacity_is_the_driver_total_in_decimal_gb(gpus, gpu, driver_bytes):
    row = gpus.rows[gpu]
    assert (row.memory_basis, row.memory_bytes) == ("driver", driver_bytes)
    assert row.memory_gb == pytest.approx(driver_bytes / 1e9, rel=1e-12)


def test_h100_holds_85_52_gb_not_80(gpus):
    # 81,559 MiB x 1,048,576 = 85,520,809,984 bytes = 85.52 GB; the "80GB" label is GiB-ish.
    assert gpus.rows["h100-sxm"].memory_gb == pytest.approx(81_559 * 2**20 / 1e9)
    assert gpus.rows["h100-sxm"].memory_gb == pytest.approx(85.52, abs=0.005)
    assert gpus.rows["h100-sxm"].memory_label == "80GB"


def test_a_row_without_a_driver_figure_reads_its_label_as_gib(gpus):
    for row in gpus.rows.values():
        label_gib = float(re.fullmatch(r"(\d+)GB", row.memory_label).group(1))
        if row.memory_basis == "label":
            assert row.memory_bytes == label_gib * GiB, row.id
        else:  # a driver total sits within 7% of the label read as GiB (A10: 22.5 of 24 GiB)
            assert abs(row.memory_bytes / (label_gib * GiB) - 1) < 0.07, row.id


def test_every_display_name_keeps_the_datasheet_label(gpus):
    missing = [r.id for r in gpus.rows.values() if r.memory_label not in r.name.replace(" ", "")]
    assert not missing


def test_memory_gb_cannot_disagree_with_the_bytes():
    row = dict(seed_rows("gpus")[0])
    with pytest.raises(ValidationError, match="memory_bytes / 1e9"):
        GpuRow.model_validate({**row, "memory_gb": 80})


def test_every_capacity_cites_a_note_claim_that_exists():
    notes = shipped_notes().notes
    bad = []
    for row in seed_rows("gpus"):
        note_id, _, claim = row["memory_note"].partition("#")
        if note_id not in notes or (claim and notes[note_id].claim(claim) is None):
            bad.append(f"{row['id']}: {row['memory_note']}")
    assert not bad


def test_store_schema_was_bumped_for_the_new_columns():
    # Version 1 stores hold memory_gb as the label; they must rebuild.
    assert int(SCHEMA_VERSION) >= 2


def test_memory_tool_reports_the_driver_capacity_and_fit():
    # Llama 3 8B inference at BF16 needs about 18.5 GB: fits a 16.1 GB T4? no; a 24.15 GB L4: yes.
    t4 = run_tool("memory", {"model": "llama-3-8b", "workload": "inference", "gpu": "t4"})
    l4 = run_tool("memory", {"model": "llama-3-8b", "workload": "inference", "gpu": "l4"})
    assert t4["gpu_memory_gb"] == pytest.approx(15_360 * 2**20 / 1e9)
    assert l4["gpu_memory_gb"] == pytest.approx(23_034 * 2**20 / 1e9)
    assert (t4["fits"], l4["fits"]) == (False, True)


# --- precisions a GPU lacks --------------------------------------------------------------

@pytest.mark.parametrize(("gpu", "lacks"), [
    ("v100-sxm2-32gb", {"bf16", "fp8"}),   # Volta: FP16 tensor cores only
    ("v100s-pcie-32gb", {"bf16", "fp8"}),
    ("t4", {"bf16", "fp8"}),               # Turing: FP16/INT8/INT4
    ("a100-sxm-80gb", {"fp8"}),            # Ampere: BF16 but no FP8
    ("a10", {"fp8"}),
    ("rtx-3090", {"fp8"}),
    ("mi250x", {"fp8"}),                   # CDNA 2: no FP8
    ("h100-sxm", set()),
    ("l4", set()),                         # Ada Lovelace has FP8
    ("gaudi3", set()),
])
def test_which_precisions_each_gpu_lacks(gpus, gpu, lacks):
    row = gpus.rows[gpu]
    assert {p for p in ("bf16", "fp16", "fp8") if row.lacks(p)} == lacks


def test_v100_says_it_has_no_bf16_tensor_cores(gpus):
    why = gpus.rows["v100-sxm2-32gb"].lacks("bf16")
    assert why == ("NVIDIA Tesla V100 SXM2 32GB has no BF16 tensor cores (it has: FP32, FP16)")


def test_memory_tool_warns_when_the_gpu_lacks_the_precision():
    out = run_tool("memory", {"model": "llama-3-8b", "workload": "inference",
                              "precision": "bf16", "gpu": "v100"})
    assert any("no BF16 tensor cores" in w and "FP16" in w for w in out["warnings"])
    h100 = run_tool("memory", {"model": "llama-3-8b", "workload": "inference",
                               "precision": "bf16", "gpu": "h100"})
    assert not any("tensor cores" in w for w in h100["warnings"])


def test_memory_tool_warns_about_fp8_on_an_a100():
    out = run_tool("memory", {"model": "llama-3-8b", "workload": "inference",
                              "precision": "fp8", "gpu": "a100"})
    assert any("has no FP8 tensor cores" in w for w in out["warnings"])


def test_parallelism_on_v100_runs_at_the_fp16_peak_and_says_why():
    out = run_tool("parallelism", {"model": "llama-3-8b", "workload": "full_finetune",
                                   "precision": "bf16", "gpu": "v100", "gpus": 8})
    assert any("no BF16 tensor cores" in a and "FP16 peak assumed" in a
               for a in out["assumptions"])
    peak = next(s for s in out["steps"] if s["label"] == "dense peak per GPU")
    assert peak["formula"] == "catalog column fp16_tflops"
    assert peak["result"]["value"] == pytest.approx(125)  # V100 SXM2 datasheet, FP16 tensor


def test_parallelism_refuses_a_precision_with_no_published_peak():
    result = run_cli("tool", "parallelism", "--input",
                     '{"model": "llama-3-8b", "workload": "pretrain", "precision": "fp32", '
                     '"gpu": "gaudi3", "gpus": 8}')
    assert result.exit_code != 0
    assert "no published FP32 peak" in result.output and "BF16" in result.output


# --- names people type -------------------------------------------------------------------

@pytest.mark.parametrize(("typed", "gpu"), [
    ("a100 40g", "a100-sxm-40gb"),
    ("A100-SXM4-40GB", "a100-sxm-40gb"),
    ("NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"),
    ("a100", "a100-sxm-80gb"),
    ("v100s", "v100s-pcie-32gb"),
    ("Tesla V100-SXM2-16GB", "v100-sxm2-16gb"),
    ("v100", "v100-sxm2-32gb"),
    ("tesla t4", "t4"),
    ("4090", "rtx-4090"),
    ("a10g", "a10g"),
    ("A10", "a10"),
    ("h20", "h20"),
    ("H200", "h200-sxm"),
    ("h100 nvl", "h100-nvl"),
    ("NVIDIA H100 80GB HBM3", "h100-sxm"),
    ("gh200", "gh200"),
    ("b300", "b300-sxm"),
    ("gb300", "gb300"),
    ("RTX 6000 Ada", "rtx-6000-ada"),
    ("a6000", "rtx-a6000"),
    ("NVIDIA A40", "a40"),
    ("a40 48gb", "a40"),
    ("mi355x", "mi355x"),
    ("Gaudi 3", "gaudi3"),
])
def test_names_as_people_write_them(gpus, typed, gpu):
    assert gpus.find(typed).id == gpu


def test_ascend_910b_is_not_in_the_catalog(gpus):
    with pytest.raises(UnknownName):
        gpus.find("910b")


def test_every_intra_link_names_a_catalog_link():
    links = {row["id"] for row in seed_rows("links")}
    bad = [r["id"] for r in seed_rows("gpus") if r["intra_link"] and r["intra_link"] not in links]
    assert not bad


def test_every_pair_link_is_an_nvlink_bridge_in_the_catalog():
    links = {row["id"]: row for row in seed_rows("links")}
    bridged = {r["id"]: r for r in seed_rows("gpus") if r["pair_link"]}
    assert {"rtx-3090", "rtx-a6000", "a40", "h100-nvl", "h200-nvl"} <= set(bridged)
    for gpu, row in bridged.items():
        assert links[row["pair_link"]]["kind"] == "nvlink", gpu
        assert int(row["nvlink_domain_gpus"]) >= 2, gpu


def test_ask_for_v100_specs_says_it_has_no_bf16():
    # V100 SXM2 datasheet: 125 TFLOP/s of FP16 tensor math, no BF16 path (Volta).
    result = run_cli("ask", "What are the specs of the V100?")
    assert result.exit_code == 0, result.output
    assert "no BF16 tensor cores (125 dense FP16 TFLOP/s)" in result.stdout


def test_a_gpu_without_a_catalog_node_link_takes_the_one_given():
    # MI250X GCDs are wired differently from system to system (note
    # amd-instinct-mi250x-mi325x-mi355x), so its row names no link: the tool asks for one,
    # and then uses the one given.
    job = {"model": "llama-3-8b", "workload": "pretrain", "gpu": "mi250x", "gpus": 8}
    asked = run_cli("tool", "parallelism", "--input", json.dumps(job))
    assert asked.exit_code != 0 and "give intra_link" in asked.output
    given = run_tool("parallelism", {**job, "intra_link": "infinity-fabric"})
    assert given["plans"] and given["gpu"] == "mi250x"
    links = next(s for s in given["steps"] if s["label"] == "links")
    assert links["inputs"]["intra"]["value"] == "infinity-fabric"
