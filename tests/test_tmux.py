"""The app in a real terminal: bare `clusterplan` in tmux, a question typed, the screen read."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None,
                       reason="tmux is not installed (.ci/run installs it for this test)"),
]

QUESTION = "How much GPU memory do I need to serve Llama 3 70B in BF16?"
# Llama 3 70B has 70.55e9 parameters (Meta's model card); in BF16 each takes 2 bytes, so the
# weights alone are 70.55e9 x 2 = 141.1e9 bytes: 141 GB, the figure the answer must show.
WEIGHTS = re.compile(r"\b141(\.\d+)?\s*GB")
READY = "Ask about memory"  # the question box's placeholder: the app is up and listening
EXITED = re.compile(r"(app exited with|Pane is dead \() *status (?P<status>\d+)")
PATIENCE_S = 90  # a loaded CI machine can take this long to start Python and answer


class Terminal:
    """One tmux server of our own (its own socket), so no other tmux session is touched."""

    def __init__(self) -> None:
        self.socket = f"clusterplan-test-{uuid.uuid4().hex[:8]}"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"tmux {args[0]} failed: {done.stderr.strip()}"
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def wait_for(self, seen: Callable[[], bool], what: str) -> None:
        """Poll until `seen()`; fail naming `what` and showing the screen if it never is."""
        deadline = time.monotonic() + PATIENCE_S
        while not seen():
            if time.monotonic() > deadline:
                pytest.fail(f"never saw {what}; the screen was:\n{self.screen()}")
            time.sleep(0.2)


@contextmanager
def running_app(tmp_path: Path, width: int, height: int) -> Iterator[Terminal]:
    """Bare `clusterplan` in a tmux pane of `width` x `height`, its data under `tmp_path`."""
    term = Terminal()
    home = tmp_path / "home"
    command = (f"cd {shlex.quote(str(tmp_path))} && "
               f"env CLUSTERPLAN_HOME={shlex.quote(str(home))} "
               f"{shlex.quote(sys.executable)} -m clusterplan; echo app exited with status $?")
    term.tmux("new-session", "-d", "-s", "app", "-x", str(width), "-y", str(height), command)
    term.tmux("set-option", "-t", "app", "remain-on-exit", "on")
    # no client sets the size
    term.tmux("resize-window", "-t", "app", "-x", str(width), "-y", str(height))
    try:
        yield term
    finally:
        subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    with running_app(tmp_path, 100, 32) as term:
        yield term


def test_bare_clusterplan_answers_in_a_real_terminal_and_quits_cleanly(terminal, tmp_path):
    terminal.wait_for(lambda: READY in terminal.screen(), "the question box")

    # typed at once: the store opens behind the box, and the question waits for it
    terminal.tmux("send-keys", "-t", "app", "-l", QUESTION)
    terminal.tmux("send-keys", "-t", "app", "Enter")
    terminal.wait_for(lambda: WEIGHTS.search(terminal.screen()) is not None,
                      "the weights of Llama 3 70B in BF16 (141 GB)")
    assert "Traceback" not in terminal.screen()
    assert (tmp_path / "home" / "clusterplan.db").exists(), "the store is the one asked for"

    terminal.tmux("send-keys", "-t", "app", "C-q")
    # the shell echoes the app's exit status; tmux may already show its own dead-pane line
    terminal.wait_for(lambda: EXITED.search(terminal.screen()) is not None, "the app exit")
    assert EXITED.search(terminal.screen()).group("status") == "0", terminal.screen()
    assert "Traceback" not in terminal.screen()


# A planning session of fifteen questions: sizes, layouts, links, offers and plans.
SESSION = [
    "How much GPU memory do I need to serve Llama 3 70B in BF16?",
    "Does a 70B model fit for full fine-tuning on one 8xH100 node?",
    "Can I QLoRA fine-tune llama-3-70b on a single H100 80GB?",
    "How should I split a 70B model across 16 H100s in 2 nodes?",
    "How long does an all-reduce of 140 GB of gradients take over NVLink on 8 H100s?",
    "Convert 400 Gb/s to GB/s",
    "What does an 8xH200 node cost per month on-demand?",
    "At what utilization does reserved pricing beat on-demand?",
    "Compare H100 offers for 64 GPUs",
    "Plan a cluster to pretrain a 7B model on 2T tokens in 30 days",
    "Serve Llama 3 70B to 200 concurrent users at 30 tokens/s each",
    "and what about on H200?",
    "What's the cheapest way to serve Llama 3 8B at 2000 tokens/s?",
    "Why shouldn't tensor parallelism cross the node boundary?",
    "What does an 8xB200 node cost per hour?",
]
# a word that holds a digit and ends shortened: a number cut to fit ("2.…", "h200-…", "50.4…")
CUT_NUMBER = re.compile(r"\S*\d\S*…")
WORKING = "Working it out"


def answered(screen: str, question: str) -> bool:
    """The question is in the log above the (empty) box, and no answer is still coming."""
    log = "\n".join(screen.splitlines()[:-4])  # the box and the footer are the last lines
    return question[:25] in log and WORKING not in screen and READY in screen


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_a_fifteen_question_planning_session_shows_no_cut_number(tmp_path, size):
    with running_app(tmp_path, *size) as term:
        term.wait_for(lambda: READY in term.screen(), "the question box")
        screens = []
        for question in SESSION:
            term.tmux("send-keys", "-t", "app", "-l", question)
            term.tmux("send-keys", "-t", "app", "Enter")
            term.wait_for(lambda q=question: answered(term.screen(), q),
                          f"an answer to {question!r}")
            screens.append(term.screen())
        term.tmux("send-keys", "-t", "app", "C-t")  # the other layout: panel shown or hidden
        time.sleep(1)
        screens.append(term.screen())
        for screen in screens:
            assert "Traceback" not in screen
            assert not CUT_NUMBER.search(screen), f"a number is cut:\n{screen}"
        # the session is named after its first question, and the header says so
        header = screens[-1].splitlines()[0]
        assert "new session" not in header and SESSION[0][:20] in header, header
