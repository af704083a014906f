"""The plan search's wall time: every GPU kind, whole-node counts, every offer (target < 2 s).

Run: .venv/bin/python bench/plan_bench.py [--runs 3]

Cases: pretraining a 7B model on 2T tokens within 30 days, and Llama 3.1 405B on 15.6T tokens
within 90 days (up to 16,384 GPUs). Prints the best, median and slowest of the runs, cold (fresh
memo caches) each time. Asserts nothing. Works in a temporary data directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

CASES = {
    "7B, 2T tokens, 30 days": {"model": "llama-2-7b", "tokens": "2T", "goal": "deadline",
                               "deadline_days": 30},
    "405B, 15.6T tokens, 90 days": {"model": "llama-3.1-405b", "tokens": "15.6T",
                                    "goal": "deadline", "deadline_days": 90},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ["CLUSTERPLAN_HOME"] = tempfile.mkdtemp()
    from clusterplan.tools.parallelism.cluster import memory_of
    from clusterplan.tools.registry import invoke

    invoke("plan", CASES["7B, 2T tokens, 30 days"])  # imports and the catalog
    for label, payload in CASES.items():
        times = []
        for _ in range(args.runs):
            memory_of.cache_clear()
            start = time.perf_counter()
            result = invoke("plan", payload)
            times.append(time.perf_counter() - start)
        print(f"{label}: best {min(times):.3f} s, median {statistics.median(times):.3f} s, "
              f"slowest {max(times):.3f} s; {result.evaluated} priced candidates; "
              f"{result.recommendation}")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
