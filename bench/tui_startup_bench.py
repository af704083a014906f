"""Start-up of the terminal app to the first screen one can type into (target: well under 1 s).

Two measures, each the median of several fresh processes:
  in-process  imports, store, assistant and app mounted headless, with a breakdown;
  terminal    bare `clusterplan` in tmux until the question box is on screen (if tmux is here).

    .venv/bin/python bench/tui_startup_bench.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

# Runs in a fresh interpreter: times each stage of start-up, prints them as JSON.
STAGES = r"""
import time
t0 = time.perf_counter()
marks = {}
import asyncio
from clusterplan.db.active import open_store, use_store
from clusterplan.assistant.session import Assistant
marks["import core"] = time.perf_counter()
from clusterplan.tui.app import ClusterplanApp
marks["import app (Textual)"] = time.perf_counter()
store = open_store(); use_store(store); assistant = Assistant(store)
marks["open store, assistant"] = time.perf_counter()

async def main():
    app = ClusterplanApp(assistant)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "question"
        marks["app mounted, box focused"] = time.perf_counter()
        await app.workers.wait_for_complete()

asyncio.run(main())
last, out = t0, {}
for name, at in marks.items():
    out[name] = at - last
    last = at
out["total"] = last - t0
print(__import__("json").dumps(out))
"""

READY = "Ask about memory"
# Textual's own floor on this machine: an app with a header, this input and a footer.
FLOOR_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Input
class Floor(App):
    def compose(self):
        yield Header(); yield Input(placeholder="Ask about memory"); yield Footer()
Floor().run()
"""


def in_process(runs: int, home: str) -> dict[str, float]:
    """Median seconds of each stage over `runs` fresh interpreters."""
    env = {**os.environ, "CLUSTERPLAN_HOME": home}
    subprocess.run([sys.executable, "-c", STAGES], env=env, check=True, capture_output=True)
    samples = [json.loads(subprocess.run([sys.executable, "-c", STAGES], env=env, check=True,
                                         capture_output=True, text=True).stdout)
               for _ in range(runs)]
    return {name: statistics.median(s[name] for s in samples) for name in samples[0]}


def in_terminal(runs: int, command: str) -> float:
    """Median seconds from launching `command` in tmux to the question box on screen."""
    times = []
    for _ in range(runs):
        sock = f"cp-bench-{uuid.uuid4().hex[:8]}"
        tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
        start = time.perf_counter()
        subprocess.run([*tmux, "new-session", "-d", "-s", "b", "-x", "100", "-y", "32", command],
                       check=True)
        try:
            while READY not in subprocess.run([*tmux, "capture-pane", "-p", "-t", "b"],
                                              capture_output=True, text=True).stdout:
                if time.perf_counter() - start > 30:
                    raise SystemExit("the app did not show its question box within 30 s")
                time.sleep(0.01)
            times.append(time.perf_counter() - start)
        finally:
            subprocess.run([*tmux, "kill-server"], capture_output=True)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as home:
        stages = in_process(runs, home)
        print(f"in-process start-up, median of {runs} fresh interpreters:")
        for name, seconds in stages.items():
            print(f"  {name:<28} {seconds * 1000:8.0f} ms")
        if shutil.which("tmux") is None:
            print("terminal start-up: skipped (tmux is not installed)")
            return
        app = in_terminal(runs, f"env CLUSTERPLAN_HOME={home} {sys.executable} -m clusterplan")
        floor = in_terminal(runs, f"{sys.executable} -c {shlex.quote(FLOOR_APP)}")
        print(f"terminal start-up, launch to question box on screen, median of {runs}:")
        print(f"  clusterplan                  {app * 1000:8.0f} ms")
        print(f"  bare Textual app (floor)     {floor * 1000:8.0f} ms")
        print(f"  clusterplan above the floor  {(app - floor) * 1000:8.0f} ms")


if __name__ == "__main__":
    main()
