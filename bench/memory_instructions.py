"""Instructions per memory call, counted by valgrind's callgrind: steady from run to run.

Run: .venv/bin/python bench/memory_instructions.py   (needs valgrind; takes a few minutes)
Calls per second move with whatever else the machine is doing; the instructions a call executes
hardly do (to within half a percent), so this is the figure to compare two versions of the code
on a noisy machine. The 2-core virtual machine this was measured on ran CPython at 2.7 to 6
billion instructions a second from one minute to the next, so 150,000 instructions a call was
18,000 to 40,000 calls a second there, most often 23,000 to 30,000.

Each request set of memory_bench.py is run twice under callgrind, after a pass over every
request that builds the tables they need, once with FEW and once with MANY timed calls; the
difference over MANY - FEW calls leaves out start-up, imports and warming. Hash seeds are fixed
so that both runs lay out their dicts alike.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FEW, MANY = 300, 2300
LINES = ("same", "varied", "mixed")
LABELS = {"same": "run(), same input",
          "varied": "run(), 10,000 distinct inputs (computed each time)",
          "mixed": "run(), 10,000 inputs over models, workloads, GPUs"}


def main() -> None:
    if len(sys.argv) == 3:  # a worker, under valgrind
        _work(sys.argv[1], int(sys.argv[2]))
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: this bench counts instructions with callgrind")
    print(f"memory tool: instructions per call (callgrind, {MANY - FEW:,} calls)")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # one valgrind a core
        counts = {(line, calls): pool.submit(_count, line, calls)
                  for line in LINES for calls in (FEW, MANY)}
        for line in LINES:
            few, many = counts[line, FEW].result(), counts[line, MANY].result()
            print(f"{LABELS[line]:<52} {(many - few) / (MANY - FEW):>9,.0f}")


def _count(line: str, calls: int) -> int:
    """Instructions of one worker process timing `calls` calls of `line`."""
    with tempfile.TemporaryDirectory(prefix="clusterplan-bench-") as home:
        out = Path(home) / "callgrind.out"
        env = {**os.environ, "PYTHONHASHSEED": "0", "CLUSTERPLAN_HOME": home}
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
             __file__, line, str(calls)], env=env, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode or found is None:
        sys.exit(f"the {line} worker under callgrind failed:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def _work(line: str, calls: int) -> None:
    """Warm every table the requests need, then make `calls` calls."""
    sys.path.insert(0, str(Path(__file__).parent))
    from memory_bench import requests

    from clusterplan.tools.memory.tool import run

    inputs = requests(MANY)[line]
    for inp in inputs:
        run(inp)
    for inp in inputs[:calls]:
        run(inp)


if __name__ == "__main__":
    main()
