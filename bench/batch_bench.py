"""Benchmark `clusterplan batch` over many mixed lines (issue 23: 15-30 questions/s).

    .venv/bin/python bench/batch_bench.py [--lines 10000]

Writes a file of real questions (tests/data/sample_questions.txt) mixed one for one with
garbage (random printable text, hostile numbers, stray slash commands, control characters),
seeded so every run reads the same file, then runs `batch --format jsonl` on it in process
against a fresh store. Prints questions per second (target >= 200) and how many answers
failed, and how many of those were internal errors (target 0). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import string
import tempfile
import time
from pathlib import Path

HOSTILE = ["9**9**9 GB", "1e999", "nan", "inf", "-1", "0", "9" * 60, "\x00", "\x0c", "\u2028",
           "\ud800", "/report /tmp/x", "/nosuch", "/memory model=", "TP=", "$", "**", "1e308",
           "H100", "llama 3 70b", "GB", "Gb/s", "cheapest", "serve", "train", "tokens", "fp8"]


def garbage(rng: random.Random) -> str:
    """One line of nonsense: printable noise, or hostile words and numbers run together."""
    if rng.random() < 0.5:
        return "".join(rng.choice(string.printable[:-5]) for _ in range(rng.randint(1, 80)))
    return " ".join(rng.choice(HOSTILE) for _ in range(rng.randint(1, 8)))


def mixed_lines(count: int, seed: int = 23) -> list[str]:
    real = [line for line in (Path(__file__).parent.parent / "tests" / "data"
                              / "sample_questions.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        line = real[i // 2 % len(real)] if i % 2 == 0 else garbage(rng)
        lines.append(line.replace("\n", " ").replace("\r", " "))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    count = parser.parse_args().lines
    from click.testing import CliRunner

    from clusterplan.cli import cli
    from clusterplan.db.active import use_store

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mixed.txt"
        path.write_text("\n".join(mixed_lines(count)) + "\n", encoding="utf-8",
                        errors="surrogatepass")
        db = str(Path(tmp) / "store.db")
        use_store(None)
        CliRunner().invoke(cli, ["--db", db, "prices", "list", "--limit", "1"])  # build it
        use_store(None)
        start = time.perf_counter()
        result = CliRunner().invoke(cli, ["--db", db, "batch", str(path), "--format", "jsonl"])
        took = time.perf_counter() - start
    items = [json.loads(line) for line in result.output.split("\n") if line.startswith("{")]
    failed = [i for i in items if i["failed"]]
    internal = [i for i in failed if "internal error" in (i["answer"]["error"] or "")]
    print(f"batch of {count} mixed lines ({count - len(items)} blank or # lines skipped): "
          f"{len(items)} answered in {took:.1f} s, "
          f"{len(items) / took:.0f} questions/s (target >= 200); {len(failed)} failed, "
          f"{len(internal)} internal errors (target 0)")
    for item in internal[:5]:
        print(f"  line {item['line']}: {item['answer']['error'][:120]}")


if __name__ == "__main__":
    main()
