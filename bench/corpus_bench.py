"""Grade the assistant on the corpus of real questions and print where it falls short.

    .venv/bin/python bench/corpus_bench.py [--failing CHECK] [--show N]

Prints the pass rate overall, by class, by language and by source, how many questions fail
each check (most first), and the seconds to answer the whole corpus. With --failing CHECK,
lists up to N questions failing that check with what went wrong. Works in an in-memory store,
never the user's data.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failing", metavar="CHECK", help="list questions failing this check")
    parser.add_argument("--show", type=int, default=20, metavar="N")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CLUSTERPLAN_HOME"] = tmp
        os.environ.pop("CLUSTERPLAN_DB", None)
        import corpus_grade as cg

        from clusterplan.db.active import use_store
        from clusterplan.db.store import Store

        use_store(Store.memory())
        rows = cg.load()
        start = time.perf_counter()
        grades = cg.grade_all(rows)
        seconds = time.perf_counter() - start

    passed = sum(g.passed for g in grades)
    print(f"corpus: {passed}/{len(grades)} passed = {cg.rate(grades):.1f} % "
          f"(floor {cg.floor():.1f} %), {seconds:.2f} s for the whole corpus")
    for key in ("class", "lang", "source"):
        print(f"\nby {key}:")
        for name, (ok, total) in cg.by(grades, key).items():
            print(f"  {name:<14} {ok:>3}/{total:<3} {100.0 * ok / total:5.1f} %")
    print("\nfailing checks (questions failing each):")
    for check, count in cg.failures(grades).items():
        print(f"  {check:<9} {count}")
    if args.failing:
        print(f"\nquestions failing {args.failing}:")
        shown = [g for g in grades if args.failing in g.failed][: args.show]
        for g in shown:
            print(f"- [{g.row['id']}] {g.row['question'][:160]!r}")
            for line in g.detail:
                print(f"    {line}")


if __name__ == "__main__":
    main()
