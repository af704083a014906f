"""Benchmark the assistant: batch throughput and `clusterplan ask` cold start.

    .venv/bin/python bench/assistant_bench.py [--questions 1000] [--runs 7]

Targets (issue 8): >= 300 questions/s through batch in one process on 2 cores; `clusterplan
ask` from a cold process to its answer < 0.6 s median. Prints the figures; asserts nothing.
Works in a temporary data directory, never the user's.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "questions" / "sample.txt"
FALLBACK = [
    "How much GPU memory do I need to serve Llama 3 70B in BF16?",
    "and on H200?",
    "Convert 400 Gb/s to GB/s",
    "What does an 8xH200 node cost per month on-demand?",
    "What is pipeline parallelism?",
    "/memory model=llama-3-8b workload=lora precision=bf16",
]
COLD_QUESTION = "How much GPU memory do I need to serve Llama 3 70B in BF16?"


def questions(count: int) -> list[str]:
    """The sample questions, in order, repeated up to `count` lines."""
    lines = FALLBACK
    if SAMPLE.exists():
        text = SAMPLE.read_text(encoding="utf-8").splitlines()
        lines = [t.strip() for t in text if t.strip() and not t.lstrip().startswith("#")]
    return list(islice(cycle(lines), count))


def batch_throughput(count: int) -> tuple[float, float, list, float]:
    """Seconds to answer `count` questions, with the report too, the items answered, and the
    CPU seconds of answering (steadier than wall time when other work shares the machine)."""
    from clusterplan.assistant.report.document import render_report
    from clusterplan.assistant.sessions.batch import read_questions, run_batch
    from clusterplan.assistant.sessions.history_memory import HistoryInMemory
    from clusterplan.assistant.sessions.session import Assistant
    from clusterplan.db.active import active_store

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "questions.txt"
        path.write_text("\n".join(questions(count)) + "\n", encoding="utf-8")
        opened = active_store()  # the catalog is built once, as `clusterplan batch` opens it once
        start, cpu = time.perf_counter(), time.process_time()
        items = run_batch(read_questions(path), Assistant(opened, history=HistoryInMemory()))
        answered, cpu = time.perf_counter() - start, time.process_time() - cpu
        render_report([i.answer for i in items], dt.date.today())
        total = time.perf_counter() - start
    return answered, total, items, cpu


def own_parts(answers: list) -> tuple[float, float]:
    """Seconds to store the exchanges (one transaction each, in a real store on disk) and to
    render the report."""
    from clusterplan.assistant.report.document import render_report
    from clusterplan.assistant.sessions.history_store import HistoryStore
    from clusterplan.assistant.sessions.session import _unsaved
    from clusterplan.db.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        saved = HistoryStore(Store.open(Path(tmp) / "store.db"))
        session = _unsaved("bench")
        start = time.perf_counter()
        for answer in answers:
            saved.record(session, answer.question, answer, {"last_intent": None})
        stored = time.perf_counter() - start
        saved.conn.close()
    start = time.perf_counter()
    render_report(answers, dt.date.today())
    return stored, time.perf_counter() - start


def cold_start(runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (user + system) seconds of `python -m clusterplan ask QUESTION`,
    each in a fresh process."""
    import resource

    command = [sys.executable, "-m", "clusterplan", "ask", COLD_QUESTION]
    subprocess.run(command, capture_output=True, check=False)  # builds the store once
    times, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return times, cpus


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["CLUSTERPLAN_HOME"] = home
        os.environ.pop("CLUSTERPLAN_DB", None)
        answered, total, items, cpu = batch_throughput(args.questions)
        n = args.questions
        print(f"batch: {n} questions answered in {answered:.3f} s = {n / answered:,.0f} "
              f"questions/s (target >= 300; CPU {cpu:.3f} s = {n / cpu:,.0f}/s); with the "
              f"Markdown report {total:.3f} s = {n / total:,.0f}/s; "
              f"{sum(i.failed for i in items)} failed")
        stored, rendered = own_parts([i.answer for i in items])
        print(f"  of which: storing {n} exchanges in SQLite on disk {stored:.3f} s "
              f"({n / stored:,.0f}/s); rendering the report of {n} answers {rendered:.3f} s "
              f"({n / rendered:,.0f}/s); the rest is parse, route and the tools")
        times, cpus = cold_start(args.runs)
        print(f"ask cold start: median {statistics.median(times):.3f} s over {len(times)} runs "
              f"(min {min(times):.3f}, max {max(times):.3f}; target < 0.6 s); CPU median "
              f"{statistics.median(cpus):.3f} s")
    print(f"cores: {os.cpu_count()}, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
