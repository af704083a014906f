"""The app over a long session: time from key to screen, at a few log lengths.

Drives the app headless with Textual's pilot (size 120x36), asks the example questions in turn
until the log holds N answers, and at each checkpoint times, median of a few tries:
  key      a letter typed into the question box until the screen is redrawn with it
  toggle   ctrl+t (side panel hidden / shown) until the screen is redrawn
  tab      the side panel's next tab until redrawn
  resize   the terminal to 110 columns and back, each until redrawn
  submit   enter on a question until its answer is on screen

    .venv/bin/python bench/tui_long_session_bench.py [--answers 1,15,100] [--tries 3]
Targets (issue 20, 2 cores): key < 50 ms, toggle or tab < 150 ms, resize < 300 ms, flat in N.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time


async def redrawn(app, pilot) -> None:
    """Wait until what was asked is handled and the screen is drawn again."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    app.screen._compositor  # noqa: B018 - the layout is done by now
    await pilot.wait_for_scheduled_animations()


async def timed(action, app, pilot) -> float:
    start = time.perf_counter()
    await action()
    await redrawn(app, pilot)
    return (time.perf_counter() - start) * 1000


async def run(checkpoints: list[int], tries: int) -> None:
    from clusterplan.assistant.sessions.session import Assistant
    from clusterplan.db.active import open_store, use_store
    from clusterplan.tui.app import ClusterplanApp
    from clusterplan.tui.examples import EXAMPLE_QUESTIONS

    store = open_store()
    use_store(store)
    app = ClusterplanApp(Assistant(store))
    questions = [q for q in EXAMPLE_QUESTIONS if not q.startswith("/")]
    async with app.run_test(size=(120, 36)) as pilot:
        await redrawn(app, pilot)
        box = app.query_one("#question")
        asked = 0
        print(f"{'answers':>7} {'key':>8} {'submit':>8} {'toggle':>8} {'tab':>8} {'resize':>8}"
              "   (ms, median)")
        for goal in checkpoints:
            submits = []
            while asked < goal:
                box.focus()
                box.value = questions[asked % len(questions)]
                submits.append(await timed(lambda: pilot.press("enter"), app, pilot))
                asked += 1
            box.focus()
            keys = [await timed(lambda: pilot.press("x"), app, pilot) for _ in range(tries)]
            box.value = ""
            toggles = [await timed(lambda: pilot.press("ctrl+t"), app, pilot)
                       for _ in range(2 * tries)]
            tabs = []
            for _ in range(tries):
                side = app.query("TabbedContent")
                if side:
                    tabs.append(await timed(lambda s=side: _next_tab(s.first()), app, pilot))
            resizes = []
            for width in [110, 120] * tries:
                resizes.append(await timed(lambda w=width: pilot.resize_terminal(w, 36),
                                           app, pilot))
            print(f"{goal:>7} {_m(keys):>8} {_m(submits[-3:]):>8} {_m(toggles):>8} "
                  f"{_m(tabs):>8} {_m(resizes):>8}", flush=True)


async def _next_tab(tabbed) -> None:
    order = ["trace-tab", "sources-tab", "plan-tab"]
    tabbed.active = order[(order.index(tabbed.active) + 1) % 3]


def _m(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", default="1,15,100")
    parser.add_argument("--tries", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("CLUSTERPLAN_HOME", tempfile.mkdtemp(prefix="tui-bench-"))
    checkpoints = sorted(int(n) for n in args.answers.split(","))
    asyncio.run(run(checkpoints, args.tries))


if __name__ == "__main__":
    sys.exit(main())
