"""Benchmark price lookups against many imported offers (issue 23: conflicts were pairwise).

    .venv/bin/python bench/pricing_bench.py [--rows 3000 100000]

For each size, builds a fresh store in a temporary directory, imports that many H100 offers
from one provider (distinct regions and prices, as a scraped price list would have), then
times `ask "cheapest 8 H100 for a month?"` and `prices list` through the command line, in
process. Targets: under 0.5 s each at 100,000 rows. Asserts nothing; never the user's store.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

HEADER = ("provider,gpu,gpus_per_node,kind,usd_per_gpu_hour,usd_per_node_hour,region,"
          "verified_on,status,source_note\n")


def price_file(path: Path, rows: int) -> None:
    lines = [HEADER]
    for i in range(rows):
        lines.append(f"bulk-{i % 7},h100,8,on_demand,{1.5 + (i % 997) / 100:.2f},,"
                     f"region-{i % 50},2026-11-{1 + i % 28:02d},available,bench-{i}\n")
    path.write_text("".join(lines), encoding="utf-8")


def timed(label: str, args: list[str]) -> None:
    from click.testing import CliRunner

    from clusterplan.cli import cli
    from clusterplan.db.active import use_store

    use_store(None)
    start = time.perf_counter()
    result = CliRunner().invoke(cli, args)
    took = time.perf_counter() - start
    print(f"  {label:<40} {took:7.3f} s  (exit {result.exit_code}, "
          f"{len(result.output.splitlines())} lines)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[3000, 100_000])
    sizes = parser.parse_args().rows
    for rows in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "store.db")
            csv_path = Path(tmp) / "offers.csv"
            price_file(csv_path, rows)
            print(f"{rows} imported offers:")
            timed("prices import", ["--db", db, "prices", "import", str(csv_path)])
            timed('ask "cheapest 8 H100 for a month?"',
                  ["--db", db, "ask", "cheapest 8 H100 for a month?"])
            timed('ask (again, same process)', ["--db", db, "ask", "cheapest 8 H100 for a month?"])
            timed("prices list", ["--db", db, "prices", "list"])
            timed("prices list --gpu h100", ["--db", db, "prices", "list", "--gpu", "h100"])


if __name__ == "__main__":
    main()
