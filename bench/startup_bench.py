"""Start-up costs: pint's registry, and `clusterplan tool list` / `--help` as a user runs them.

Run: .venv/bin/python bench/startup_bench.py  (prints medians; asserts nothing)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 7


def median_seconds(argv: list[str], env_home: str) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True,
                       env={"CLUSTERPLAN_HOME": env_home, "PATH": "/usr/bin:/bin"})
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    exe = str(Path(sys.executable).parent / "clusterplan")
    code = ("import time; t=time.perf_counter(); import pint; a=time.perf_counter(); "
            "from clusterplan.tools.units import ureg; ureg(); b=time.perf_counter(); "
            "import pint as p2; r=p2.UnitRegistry(); c=time.perf_counter(); "
            "print(a-t, b-a, c-b)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imp, ours, default = (float(x) for x in out.stdout.split())
    print(f"import pint:                     {imp * 1000:7.1f} ms")
    print(f"clusterplan's unit registry:     {ours * 1000:7.1f} ms")
    print(f"pint's default registry:         {default * 1000:7.1f} ms (what we avoid)")
    with tempfile.TemporaryDirectory() as home:
        subprocess.run([exe, "db", "rebuild"], capture_output=True, check=True,
                       env={"CLUSTERPLAN_HOME": home, "PATH": "/usr/bin:/bin"})
        for argv in (["--help"], ["tool", "list"], ["notes", "list"]):
            seconds = median_seconds([exe, *argv], home)
            print(f"clusterplan {' '.join(argv):<20} {seconds * 1000:7.1f} ms (median of {RUNS})")


if __name__ == "__main__":
    main()
