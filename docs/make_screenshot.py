"""Write docs/screenshot.svg: the app answering a real question, its Plan tab open.

    .venv/bin/python docs/make_screenshot.py

Runs the real assistant on a throwaway store, headless, at 120x36, and saves the screen as
SVG (Textual's own export), so the README shows exactly what a person sees.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

QUESTION = "Does a 70B model fit for full fine-tuning on one 8xH100 node?"
OUT = Path(__file__).resolve().parent / "screenshot.svg"


async def take(out: Path) -> None:
    from textual.widgets import TabbedContent

    from clusterplan.assistant.sessions.session import Assistant
    from clusterplan.db.active import open_store, use_store
    from clusterplan.tui.app import ClusterplanApp
    from clusterplan.tui.chat import QuestionInput

    store = open_store()
    use_store(store)
    app = ClusterplanApp(Assistant(store), environ={})
    async with app.run_test(size=(120, 36)) as pilot:
        box = app.query_one(QuestionInput)
        box.cursor_blink = False
        box.value = QUESTION
        await pilot.press("enter")
        for _ in range(4):
            await pilot.pause()
            await app.workers.wait_for_complete()
        app.query_one(TabbedContent).active = "plan-tab"
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        app.save_screenshot(filename=out.name, path=str(out.parent))


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        os.environ["CLUSTERPLAN_HOME"] = home
        asyncio.run(take(OUT))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
