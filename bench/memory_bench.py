"""Calls per second of the memory tool, in-process: figures to watch for regressions.

The former 20,000 calls/s target is retired: an interactive answer makes a few memory calls,
every result now carries its steps, and the layout search uses its own arithmetic.

Run: .venv/bin/python bench/memory_bench.py [--rounds N]
The headline is the second line: 10,000 distinct requests (batch and context vary), each
computed in full; no answer is reused between calls. Also printed: the same distinct requests
when the caller also dumps the whole result to JSON, 10,000 requests spread over every catalog
model, workload and GPU, one request repeated, and one payload through the registry (validated by
pydantic on every call).

Each line is timed in several rounds of 10,000 calls, the rounds of all lines taken in turn, by
this process's CPU time. The best round is the figure to compare between versions: as the
timeit documentation argues, interference from other work can only slow a round down, never
speed it up, so the fastest round is the closest to what the code itself costs. The median and
the slowest round show how noisy the machine was while it ran.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

CALLS = 10_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds of 10,000 calls per line")
    rounds = max(1, parser.parse_args().rounds)
    os.environ.setdefault("CLUSTERPLAN_HOME", tempfile.mkdtemp(prefix="clusterplan-bench-"))
    lines = _lines()
    for _, call in lines:
        _round(call)  # untimed: imports, and the tables each model and GPU needs, built once
    rates: list[list[float]] = [[] for _ in lines]
    for _ in range(rounds):
        for (_, call), seen in zip(lines, rates, strict=True):
            seen.append(_round(call))
    print(f"memory tool: {rounds} rounds of {CALLS:,} calls per line, calls per second of CPU "
          "time")
    print(f"{'':<52} {'best':>9} {'median':>9} {'slowest':>9}")
    for (label, _), seen in zip(lines, rates, strict=True):
        print(f"{label:<52} {max(seen):>9,.0f} {statistics.median(seen):>9,.0f} "
              f"{min(seen):>9,.0f}")


def _round(call: Callable[[int], Any]) -> float:
    """Calls per second of CPU time over one round of CALLS distinct calls."""
    cpu = time.process_time()
    for i in range(CALLS):
        call(i)
    return CALLS / (time.process_time() - cpu)


def _lines() -> list[tuple[str, Callable[[int], Any]]]:
    """The labelled calls to time, each taking the index of its request."""
    from clusterplan.tools.memory.tool import run
    from clusterplan.tools.registry import invoke

    sets = requests(CALLS + 1)
    same, varied, mixed = sets["same"], sets["varied"], sets["mixed"]
    payload = {"model": "llama 3 70b", "workload": "full_finetune", "gpu": "h100", "gpus": 64}
    return [
        ("run(), same input", lambda i: run(same[i])),
        ("run(), 10,000 distinct inputs (computed each time)", lambda i: run(varied[i])),
        ("  the same, and the result dumped to JSON", lambda i: run(varied[i]).model_dump_json()),
        ("run(), 10,000 inputs over models, workloads, GPUs", lambda i: run(mixed[i])),
        ("registry.invoke(), same payload", lambda i: invoke("memory", payload)),
    ]


def requests(count: int) -> dict[str, list[Any]]:
    """`count` requests for each line, against an in-memory store of the shipped catalog:
    one repeated (same), distinct serving requests for one model (varied), and distinct valid
    requests over every catalog model, workload and GPU (mixed)."""
    from itertools import cycle, islice, product

    from clusterplan.db.active import catalog, use_store
    from clusterplan.db.store import Store
    from clusterplan.tools.memory.tool import MemoryInput

    use_store(Store.memory())
    same = MemoryInput(model="llama-3-70b", workload="full_finetune", gpu="h100", gpus=64)
    # Distinct requests: every call computes its answer (only the model is cached).
    varied = [MemoryInput(model="llama-3-70b", workload="inference", gpu="h100", gpus=8,
                          batch=1 + i % 97, context_len=512 + i) for i in range(count)]
    workloads = ("inference", "pretrain", "full_finetune", "lora", "qlora")
    combos = islice(cycle(product(sorted(catalog().models.rows), workloads,
                                  sorted(catalog().gpus.rows))), count)
    mixed = []
    for i, (model, workload, gpu) in enumerate(combos):
        sizes = ({"batch": 1 + i % 61, "context_len": 1024 + i} if workload == "inference"
                 else {"seq_len": 1024 + i % 4096, "micro_batch": 1 + i % 3})
        mixed.append(MemoryInput(model=model, workload=workload, gpu=gpu, gpus=8, **sizes))
    return {"same": [same] * count, "varied": varied, "mixed": mixed}


if __name__ == "__main__":
    main()
