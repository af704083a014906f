"""Start-up of the terminal app to the first screen one can type into (target: well under 1 s).

Two measures, each the median of several fresh processes:
  in-process  app imported and mounted headless until its box takes a key, then the
              welcome, side panel and assistant loaded behind it, wall and CPU time (CPU
              is the steadier figure on a busy machine), beside a bare Textual app;
  terminal    bare `clusterplan` in tmux until the question box is on screen and until a
              few keys typed into it show (if tmux is here), beside a bare Textual app.

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

# Runs in a fresh interpreter, the app or the floor (argv[1]): each stage's wall and CPU
# seconds, as JSON. The key is timed from its message, not from when the pilot returns.
STAGES = r"""
import sys, time
clock = lambda: (time.perf_counter(), time.process_time())
t0 = clock()
marks = {}
import asyncio
from textual.widgets import Input
if sys.argv[1] == "app":
    from clusterplan.tui.app import ClusterplanApp

    def assistant():  # as `clusterplan` builds it: in a worker, after the first screen
        from clusterplan.assistant.sessions.session import Assistant
        from clusterplan.db.active import open_store, use_store
        store = open_store(); use_store(store)
        return Assistant(store)

    app = ClusterplanApp(assistant)
else:
    from textual.app import App
    from textual.widgets import Footer, Header

    class Floor(App):
        def compose(self):
            yield Header(); yield Input(placeholder="Ask about memory", id="question")
            yield Footer()

    app = Floor()
marks["imports"] = clock()

typed = []
def hook(message):
    if isinstance(message, Input.Changed) and message.value == "z" and not typed:
        typed.append(clock())

async def main():
    async with app.run_test(size=(100, 32), message_hook=hook) as pilot:
        box = app.focused
        assert box is not None and box.id == "question"
        marks["first screen, box focused"] = clock()
        await pilot.press("z")
        marks["a key typed is in the box"] = typed[0]
        if sys.argv[1] == "app":
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.assistant is not None and app.query("SidePanel") and app.query(".welcome")
            marks["welcome, panel, assistant"] = clock()

asyncio.run(main())
last, out = t0, {}
for name, at in marks.items():
    out[name] = [at[0] - last[0], at[1] - last[1]]
    last = at
print(__import__("json").dumps(out))
"""

READY = "Ask about memory"  # the question box's placeholder
TYPED = "zqx"  # typed the moment the box shows; on screen once the box took the keys
# Textual's own floor on this machine: an app with a header, this input and a footer.
FLOOR_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Input
class Floor(App):
    def compose(self):
        yield Header(); yield Input(placeholder="Ask about memory"); yield Footer()
Floor().run()
"""


def in_process(runs: int, home: str, which: str) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds of each stage over `runs` fresh interpreters, taking turns."""
    env = {**os.environ, "CLUSTERPLAN_HOME": home}
    command = [sys.executable, "-c", STAGES, which]
    subprocess.run(command, env=env, check=True, capture_output=True)  # builds the store
    samples = [json.loads(subprocess.run(command, env=env, check=True, capture_output=True,
                                         text=True).stdout) for _ in range(runs)]
    return {name: (statistics.median(s[name][0] for s in samples),
                   statistics.median(s[name][1] for s in samples)) for name in samples[0]}


def in_terminal(runs: int, commands: dict[str, str]) -> dict[str, dict[str, float]]:
    """Median seconds from launching each command in tmux to the question box on screen, and
    to text typed into it the moment it shows being echoed (the box takes keys, not only shows).

    The commands take turns, so a machine busy with other work slows each of them alike.
    """
    samples: dict[str, dict[str, list[float]]] = {
        name: {"box on screen": [], "typing echoed": []} for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            shown, typed = _launch(command)
            samples[name]["box on screen"].append(shown)
            samples[name]["typing echoed"].append(typed)
    return {name: {point: statistics.median(times) for point, times in points.items()}
            for name, points in samples.items()}


def _launch(command: str) -> tuple[float, float]:
    """Seconds from launch to the box on screen, and to keys typed then on screen."""
    tmux = ["tmux", "-L", f"cp-bench-{uuid.uuid4().hex[:8]}", "-f", "/dev/null"]
    start = time.perf_counter()
    subprocess.run([*tmux, "new-session", "-d", "-s", "b", "-x", "100", "-y", "32", command],
                   check=True)
    try:
        _wait_for(tmux, READY, start)
        shown = time.perf_counter() - start
        subprocess.run([*tmux, "send-keys", "-t", "b", "-l", TYPED], check=True)
        _wait_for(tmux, TYPED, start)
        return shown, time.perf_counter() - start
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def _wait_for(tmux: list[str], text: str, start: float) -> None:
    """Poll the pane until `text` is on it (30 s at most)."""
    while text not in subprocess.run([*tmux, "capture-pane", "-p", "-t", "b"],
                                     capture_output=True, text=True).stdout:
        if time.perf_counter() - start > 30:
            raise SystemExit(f"{text!r} was not on screen within 30 s")
        time.sleep(0.005)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as home:
        app, floor = in_process(runs, home, "app"), in_process(runs, home, "floor")
        print(f"in-process (headless), median of {runs} fresh interpreters, wall / CPU ms:")
        print(f"  {'':<28} {'clusterplan':>13} {'floor':>13}")
        for name, (wall, cpu) in app.items():
            beside = f"{floor[name][0] * 1000:5.0f} / {floor[name][1] * 1000:4.0f}" \
                if name in floor else ""
            print(f"  {name:<28} {wall * 1000:5.0f} / {cpu * 1000:4.0f}   {beside}")
        if shutil.which("tmux") is None:
            print("terminal start-up: skipped (tmux is not installed)")
            return
        found = in_terminal(runs, {
            "app": f"env CLUSTERPLAN_HOME={home} {sys.executable} -m clusterplan",
            "floor": f"{sys.executable} -c {shlex.quote(FLOOR_APP)}",
        })
        app, floor = found["app"], found["floor"]
        print(f"terminal start-up from launch, median of {runs}:")
        print(f"  {'':<20} {'clusterplan':>11} {'floor':>8} {'above':>8}")
        for point in app:
            print(f"  {point:<20} {app[point] * 1000:8.0f} ms {floor[point] * 1000:5.0f} ms "
                  f"{(app[point] - floor[point]) * 1000:5.0f} ms")
        print("  (floor: a bare Textual app with a header, this input and a footer)")

if __name__ == "__main__":
    main()
