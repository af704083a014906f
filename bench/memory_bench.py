"""Calls per second of the memory tool, in-process (target: 20,000/s on a 2-core machine).

Run: .venv/bin/python bench/memory_bench.py
Prints three figures: the same request repeated (catalog lookup and layout search cached),
requests that vary batch and sequence length (nothing cached but the model), and the same
request through the registry (JSON-like dict validated by pydantic on every call).
"""

from __future__ import annotations

import os
import tempfile
import time

CALLS = 10_000


def _timed(label: str, call) -> float:  # type: ignore[no-untyped-def]
    """Calls per second of wall time, and per second of this process's CPU time (the second
    holds steady when other work shares the machine)."""
    call(CALLS)  # warm caches and imports
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(CALLS):
        call(i)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label:<52} {CALLS / wall:>9,.0f} calls/s wall {CALLS / cpu:>9,.0f} calls/s CPU")
    return CALLS / cpu


def main() -> None:
    os.environ.setdefault("CLUSTERPLAN_HOME", tempfile.mkdtemp(prefix="clusterplan-bench-"))
    from clusterplan.db.active import use_store
    from clusterplan.db.store import Store
    from clusterplan.tools.memory import MemoryInput, run
    from clusterplan.tools.registry import invoke

    use_store(Store.memory())
    same = MemoryInput(model="llama-3-70b", workload="full_finetune", gpu="h100", gpus=64)
    # 10,000 distinct requests: every call computes its answer (only the model is cached).
    varied = [MemoryInput(model="llama-3-70b", workload="inference", gpu="h100", gpus=8,
                          batch=1 + i % 97, context_len=512 + i) for i in range(CALLS + 1)]
    payload = {"model": "llama 3 70b", "workload": "full_finetune", "gpu": "h100", "gpus": 64}
    _timed("run(), same input", lambda i: run(same))
    _timed("run(), 10,000 distinct inputs (computed each time)", lambda i: run(varied[i]))
    _timed("registry.invoke(), same payload", lambda i: invoke("memory", payload))


if __name__ == "__main__":
    main()
