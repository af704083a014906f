"""The full layout search for a 405B dense model on 16,384 GPUs (target: < 1 s on 2 cores).

Run: .venv/bin/python bench/parallelism_bench.py [--runs 5]

Llama 3.1 405B (126 layers) on 16,384 H100s, 8 per node: tp 1..8, every pp dividing the layers
(and every pp dividing the GPUs, rejected when it does not split the layers), ZeRO 0-3,
micro-batch 1..16, three recompute modes, a 16M-token batch of 8,192-token sequences. Prints
the wall time of a cold search (fresh memo caches), of a warm one, the layouts evaluated (every
combination, rejected or not) and priced (through the memory tool and the step-time model),
and layouts evaluated per second. Asserts nothing. Works in a temporary data directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

PAYLOAD = {
    "model": "llama-3.1-405b", "workload": "pretrain", "gpu": "h100-sxm", "gpus": 16384,
    "gpus_per_node": 8, "seq_len": 8192, "global_batch_tokens": 16 * 1024 * 1024,
    "zero_stages": [0, 1, 2, 3], "recompute": ["none", "selective", "full"],
    "micro_batches": list(range(1, 17)), "tokens": "15.6T", "top_k": 5,
}


def _clear_caches() -> None:
    """Forget memoised memory evaluations so each timed run searches from cold."""
    from clusterplan.tools.parallelism.cluster import memory_of

    memory_of.cache_clear()


def _bench(label: str, payload: dict, runs: int) -> None:  # type: ignore[type-arg]
    from clusterplan.tools.parallelism.tool import ParallelismInput, run

    inp = ParallelismInput.model_validate(payload)
    result = run(inp)  # warm imports and the catalog
    cold, warm = [], []
    for _ in range(runs):
        _clear_caches()
        start = time.perf_counter()
        result = run(inp)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        run(inp)
        warm.append(time.perf_counter() - start)
    accepted = result.evaluated - sum(result.rejected.values())
    priced = accepted + result.rejected.get("does not fit in GPU memory", 0)
    best = min(cold)
    print(label)
    print(f"  layouts evaluated         {result.evaluated:>10,}")
    print(f"  through memory + rules    {priced:>10,}   (accepted and priced: {accepted:,})")
    print(f"  cold search, best of {runs}   {best:>10.3f} s   (median "
          f"{statistics.median(cold):.3f} s)")
    print(f"  warm search, best of {runs}   {min(warm):>10.3f} s")
    print(f"  layouts evaluated per s   {result.evaluated / best:>10,.0f}")
    print(f"  layouts priced per s      {priced / best:>10,.0f}")
    print(f"  {result.verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    os.environ.setdefault("CLUSTERPLAN_HOME", tempfile.mkdtemp(prefix="clusterplan-bench-"))
    from clusterplan.db.active import use_store
    from clusterplan.db.store import Store

    use_store(Store.memory())
    _bench("405B on 16,384 H100, pp dividing the layers", PAYLOAD, runs)
    _bench("same, uneven stages allowed (pp up to the layers)",
           {**PAYLOAD, "uneven_stages": True}, runs)


if __name__ == "__main__":
    main()
