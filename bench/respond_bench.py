"""Benchmark question understanding: parse alone, and respond (parse, route, tools, compose).

    .venv/bin/python bench/respond_bench.py [--rounds 20]

Asks the shared sample in order (follow-ups continue), first cold, then warm for `--rounds`,
and prints questions per second for each stage and the slowest questions. Asserts nothing;
uses an in-memory store, never the user's.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "data" / "sample_questions.txt"


def questions() -> list[str]:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    return [q.strip() for q in lines if q.strip() and not q.startswith(("#", "/"))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds

    from clusterplan.assistant.parsing.parse import parse
    from clusterplan.assistant.respond import respond
    from clusterplan.db.active import catalog, use_store
    from clusterplan.db.store import Store

    use_store(Store.memory())
    asked = questions()
    start = time.perf_counter()
    previous = None
    for q in asked:
        previous = respond(q, previous).intent
    print(f"cold: {len(asked)} questions in {time.perf_counter() - start:.2f} s "
          "(imports, catalog index, claim checks, first tool runs)")

    cat = catalog()
    start = time.perf_counter()
    for _ in range(rounds):
        for q in asked:
            parse(q, cat)
    n = rounds * len(asked)
    print(f"parse: {n / (time.perf_counter() - start):,.0f} questions/s")

    spent: dict[str, float] = dict.fromkeys(asked, 0.0)
    start = time.perf_counter()
    for _ in range(rounds):
        previous = None
        for q in asked:
            began = time.perf_counter()
            previous = respond(q, previous).intent
            spent[q] += time.perf_counter() - began
    print(f"respond (warm): {n / (time.perf_counter() - start):,.0f} questions/s")
    for q, seconds in sorted(spent.items(), key=lambda kv: -kv[1])[:5]:
        print(f"  {seconds / rounds * 1000:6.1f} ms  {q}")


if __name__ == "__main__":
    main()
