"""Write docs/report.html and docs/report.png: a realistic session's report, as a browser shows it.

    .venv/bin/python docs/render_report.py

Asks the real program a training plan, a serving plan, a price and a question whose source is
disputed, on a throwaway data directory; exports the session with `clusterplan report
--format html`; and has headless Chromium (Debian's `chromium`) draw the page, so the picture
is what a reader's browser shows, charts included, with the network left unused.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS = [
    "Plan the cheapest cluster to pretrain llama-3-8b on 1T tokens within 30 days",
    "Plan a cluster to serve Llama 3 70B to 200 concurrent users at 30 tokens/s each",
    "Serve Llama 3.1 405B on 8x H200 - does it fit?",
    "What does an 8xH200 node cost per month?",
    "Does a 70B model fit for full fine-tuning on one 8xH100 node?",  # a disputed source
]
# Headless, as root in a container, and quiet: no GPU, no sandbox, nothing fetched at start.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
WINDOW = (1100, 5200)


def browser() -> str | None:
    """The Chromium on this machine, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def clusterplan(home: Path, *args: str) -> str:
    """Run the command line as a user does, on the data directory `home`."""
    env = {**os.environ, "CLUSTERPLAN_HOME": str(home)}
    env.pop("CLUSTERPLAN_DB", None)
    done = subprocess.run([sys.executable, "-m", "clusterplan", *args], env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout


def export(home: Path, out: Path) -> Path:
    """Ask the session's questions and write its report as HTML to `out`."""
    for question in QUESTIONS:
        clusterplan(home, "ask", "--session", "cluster plan", question)
    clusterplan(home, "report", "--session", "cluster plan", "--author", "the platform team",
                "--title", "Cluster plan: Llama 3 training and serving", "--out", str(out),
                "--force")
    return out


def chromium(page: Path, *args: str, profile: Path) -> str:
    """Run headless Chromium on a local page with a fresh profile; its standard output."""
    found = browser()
    if found is None:
        raise SystemExit("no chromium on this machine (apt-get install -y chromium)")
    done = subprocess.run([found, *FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()],
                          check=True, capture_output=True, text=True, timeout=120)
    return done.stdout


def screenshot(page: Path, png: Path, profile: Path, window: tuple[int, int] = WINDOW) -> Path:
    chromium(page, f"--window-size={window[0]},{window[1]}", f"--screenshot={png}",
             profile=profile)
    return png


def dump_dom(page: Path, profile: Path) -> str:
    """The page's DOM after the browser parsed and laid it out."""
    return chromium(page, "--dump-dom", profile=profile)


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / "home").mkdir()
        page = export(work / "home", HERE / "report.html")
        png = screenshot(page, HERE / "report.png", work / "profile")
    print(f"wrote {page.relative_to(HERE.parent)} and {png.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
