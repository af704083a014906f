"""Calls per second of the memory tool, in-process (target: 20,000/s on a 2-core machine).

Run: .venv/bin/python bench/memory_bench.py
The headline is the second line: 10,000 distinct requests (batch and context vary), each
computed in full; no answer is reused between calls. Also printed: the same distinct requests
when the caller also dumps the whole result to JSON (which writes the steps and citations,
otherwise written only when first read), 10,000 requests spread over every catalog model,
workload and GPU, one request repeated, and one payload through the registry (validated by
pydantic on every call). Wall and CPU figures: CPU holds steadier when other work shares the
machine.
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
    mixed = _mixed(CALLS + 1)
    _timed("run(), same input", lambda i: run(same))
    _timed("run(), 10,000 distinct inputs (computed each time)", lambda i: run(varied[i]))
    _timed("  the same, and the result dumped to JSON",
           lambda i: run(varied[i]).model_dump_json())
    _timed("run(), 10,000 inputs over models, workloads, GPUs", lambda i: run(mixed[i]))
    _timed("registry.invoke(), same payload", lambda i: invoke("memory", payload))


def _mixed(count: int) -> list:  # type: ignore[type-arg]
    """Distinct valid requests over every catalog model, workload and GPU."""
    from itertools import cycle, islice, product

    from clusterplan.db.active import catalog
    from clusterplan.tools.memory import MemoryInput

    workloads = ("inference", "pretrain", "full_finetune", "lora", "qlora")
    combos = islice(cycle(product(sorted(catalog().models.rows), workloads,
                                  sorted(catalog().gpus.rows))), count)
    out = []
    for i, (model, workload, gpu) in enumerate(combos):
        sizes = ({"batch": 1 + i % 61, "context_len": 1024 + i} if workload == "inference"
                 else {"seq_len": 1024 + i % 4096, "micro_batch": 1 + i % 3})
        out.append(MemoryInput(model=model, workload=workload, gpu=gpu, gpus=8, **sizes))
    return out


if __name__ == "__main__":
    main()
