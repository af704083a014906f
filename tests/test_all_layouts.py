"""`clusterplan tool parallelism --all-layouts FILE`: every evaluated layout as CSV."""

from __future__ import annotations

import csv
import json
from collections import Counter

from tests.conftest import run_cli

# Llama 3 8B on 64 H100 (8 nodes of 8), 512 sequences a step.
INPUT = {"model": "llama-3-8b", "gpu": "h100-sxm", "gpus": 64, "seq_len": 4096,
         "global_batch": 512, "top_k": 1}


def test_every_evaluated_layout_is_a_row_with_its_reason_or_its_step_parts(tmp_path):
    path = tmp_path / "layouts.csv"
    out = run_cli("tool", "parallelism", "--input", json.dumps(INPUT), "--all-layouts", str(path))
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout)
    rows = list(csv.DictReader(path.open()))
    # A row stands for `layouts` layouts (a shape a structural rule rejects for every ZeRO
    # stage, micro-batch and recompute mode at once); together they are every one evaluated,
    # each reason counted exactly as the answer's own tally counts it.
    assert sum(int(r["layouts"]) for r in rows) == result["evaluated"]
    reasons: Counter[str] = Counter()
    for r in rows:
        if r["status"] == "rejected":
            reasons[r["rejected_because"]] += int(r["layouts"])
    assert dict(reasons) == result["rejected"]
    assert all(r["layouts"] == "1" for r in rows if r["status"] == "accepted")
    # tp 16 crosses an 8-GPU node; the rule names it, and such a row has no step time.
    crossing = [r for r in rows if r["tp"] == "16"]
    assert crossing and all("node boundary" in r["rejected_because"] and r["step_time_s"] == ""
                            for r in crossing)
    # The best plan is an accepted row whose parts add up to its step time as the answer has it.
    best = result["plans"][0]
    [row] = [r for r in rows if r["status"] == "accepted" and all(
        r[k] == str(best[k]) for k in ("tp", "pp", "dp", "zero_stage", "micro_batch",
                                       "recompute"))]
    assert float(row["step_time_s"]) == best["step_time_s"]
    assert float(row["compute_s"]) == best["compute_s"]
    assert float(row["bubble_s"]) == best["bubble_s"]
    # A memory rejection says what it needed: more than the H100's 85.52 GB.
    memory = [r for r in rows if r["rejected_because"] == "does not fit in GPU memory"]
    assert memory and all(float(r["per_gpu_gb"]) > 85.52 for r in memory)


def test_all_layouts_belongs_to_the_parallelism_tool(tmp_path):
    out = run_cli("tool", "memory", "--input", '{"model": "llama-3-8b"}', "--all-layouts",
                  str(tmp_path / "x.csv"))
    assert out.exit_code == 2 and "parallelism" in out.output
    serving = run_cli("tool", "parallelism", "--input",
                      '{"model": "llama-3-8b", "gpu": "h100", "gpus": 8, '
                      '"workload": "inference"}', "--all-layouts", str(tmp_path / "y.csv"))
    assert serving.exit_code == 2 and "training search" in serving.output
    assert "Traceback" not in serving.output
