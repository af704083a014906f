"""`clusterplan prices`: listing, all-or-nothing import, export, and rows that survive rebuilds."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest

from clusterplan import locations
from clusterplan.db import store as store_module
from clusterplan.db.seed_data import seed_rows
from tests.conftest import run_cli, run_tool

HEADER = "provider,gpu,gpus_per_node,kind,usd_per_gpu_hour,usd_per_node_hour,region,verified_on," \
         "status,source_note\n"
GOOD = HEADER + ("my-colo,h100,8,reserved_1y,1.99,,eu-west,2026-11-30,available,my-quote\n"
                 "my-colo,H200 SXM,8,on_demand,,24.0,eu-west,2026-11-30,available,my-quote\n")
INJECTION = "x'; DROP TABLE offers; --"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def store_hash() -> str:
    """The bytes of the store file and of any write-ahead log beside it."""
    path = locations.store_path()
    digest = hashlib.sha256(path.read_bytes())
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        digest.update(wal.read_bytes())
    return digest.hexdigest()


def exported(origin: str = "all") -> list[dict[str, str]]:
    result = run_cli("prices", "export", "--origin", origin)
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.output)))


def test_list_filters_by_gpu_provider_and_kind():
    result = run_cli("prices", "list", "--gpu", "h200", "--provider", "coreweave",
                     "--kind", "on_demand")
    assert result.exit_code == 0, result.output
    rows = result.output.strip().splitlines()[1:]
    assert len(rows) == 2 and all(r.split()[:3] == ["coreweave", "h200-sxm", "on_demand"]
                                  for r in rows)
    assert "50.44" in rows[0] and "6.305" in rows[0]


def test_list_as_json_and_unknown_gpu():
    listed = json.loads(run_cli("prices", "list", "--provider", "aws", "--json").output)
    assert {o["provider"] for o in listed} == {"aws"}
    bad = run_cli("prices", "list", "--gpu", "h300")
    assert bad.exit_code == 2 and "nearest: " in bad.output and "h200-sxm" in bad.output


def test_a_good_file_adds_its_rows_as_user_rows(tmp_path):
    result = run_cli("prices", "import", str(write(tmp_path, "good.csv", GOOD)))
    assert result.exit_code == 0, result.output
    assert "imported 2 offer(s)" in result.output
    users = exported("user")
    assert [(u["provider"], u["gpu"], u["origin"]) for u in users] == [
        ("my-colo", "h100-sxm", "user"), ("my-colo", "h200-sxm", "user")]  # names resolved
    assert len(exported()) == len(seed_rows("offers")) + 2


def test_reimporting_the_same_file_adds_no_duplicates(tmp_path):
    path = write(tmp_path, "good.csv", GOOD)
    run_cli("prices", "import", str(path))
    again = run_cli("prices", "import", str(path))
    assert again.exit_code == 0
    assert "imported 0 offer(s)" in again.output and "2 already in the store" in again.output
    assert len(exported("user")) == 2


def test_one_bad_row_rejects_the_file_and_leaves_the_store_byte_identical(tmp_path):
    run_cli("prices", "list")  # build the store
    before = store_hash()
    bad = GOOD + ("my-colo,h999,8,on_demand,2.0,,eu,2026-11-30,available,my-quote\n"
                  "my-colo,h100,8,weekly,,,eu,2026-11-30,available,my-quote\n")
    result = run_cli("prices", "import", str(write(tmp_path, "bad.csv", bad)))
    assert result.exit_code == 2
    assert "the store is unchanged" in result.output
    assert "line 4: gpu: unknown GPU 'h999'" in result.output
    assert "line 5: kind:" in result.output
    assert "Traceback" not in result.output
    assert store_hash() == before
    assert exported("user") == []


def test_a_row_without_any_price_or_dated_in_the_future_is_refused(tmp_path):
    rows = HEADER + ("my-colo,h100,8,on_demand,,,eu,2026-11-30,available,my-quote\n"
                     "my-colo,h100,8,on_demand,2.0,,eu,2999-01-01,available,my-quote\n")
    result = run_cli("prices", "import", str(write(tmp_path, "bad.csv", rows)))
    assert result.exit_code == 2
    assert "line 2: give usd_per_gpu_hour or usd_per_node_hour" in result.output
    assert "line 3: verified_on: 2999-01-01 is after today" in result.output


def test_an_unknown_column_is_named(tmp_path):
    text = GOOD.replace("source_note", "source_note,colour").replace("my-quote", "my-quote,red")
    result = run_cli("prices", "import", str(write(tmp_path, "cols.csv", text)))
    assert result.exit_code == 2 and "unknown column(s) colour" in result.output


def test_dry_run_reports_and_writes_nothing(tmp_path):
    run_cli("prices", "list")
    before = store_hash()
    result = run_cli("prices", "import", "--dry-run", str(write(tmp_path, "good.csv", GOOD)))
    assert result.exit_code == 0 and "would import 2 offer(s)" in result.output
    assert store_hash() == before


def test_a_provider_named_like_sql_is_just_a_name(tmp_path):
    row = f'"{INJECTION}",h100-sxm,8,on_demand,1.5,,,2026-11-30,available,my-quote\n'
    assert run_cli("prices", "import", str(write(tmp_path, "x.csv", HEADER + row))).exit_code == 0
    listed = json.loads(run_cli("prices", "list", "--provider", INJECTION, "--json").output)
    assert [o["provider"] for o in listed] == [INJECTION]
    assert len(exported()) == len(seed_rows("offers")) + 1  # the table is still there
    out = run_tool("pricing", {"gpu": "h100-sxm", "provider": INJECTION, "as_of": "2026-12-02"})
    assert out["cheapest"]["usd_per_gpu_hour"] == 1.5


def test_imported_rows_survive_a_catalog_rebuild_and_a_schema_upgrade(tmp_path, monkeypatch):
    run_cli("prices", "import", str(write(tmp_path, "good.csv", GOOD)))
    rebuilt = run_cli("db", "rebuild")
    assert rebuilt.exit_code == 0, rebuilt.output
    assert len(exported("user")) == 2
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", "999")  # a release with a new catalog
    assert len(exported("user")) == 2
    assert store_module.Store.open(locations.store_path()).meta("catalog").startswith("999:")
    assert len(exported()) == len(seed_rows("offers")) + 2


def test_export_then_import_round_trips_without_duplicates(tmp_path):
    out = tmp_path / "all.csv"
    result = run_cli("prices", "export", "-o", str(out))
    assert result.exit_code == 0 and out.exists()
    again = run_cli("prices", "import", str(out))
    assert "imported 0 offer(s)" in again.output
    assert f"{len(seed_rows('offers'))} already in the store" in again.output


@pytest.mark.parametrize("args", [("prices", "import", "/nonexistent/file.csv")])
def test_unreadable_file_is_one_line(args):
    result = run_cli(*args)
    assert result.exit_code == 2 and result.output.startswith("Error: cannot read")


def test_list_warns_of_disagreeing_and_conflicting_prices():
    result = run_cli("prices", "list", "--provider", "aws", "--gpu", "h200")
    assert "warning: conflicting prices for aws h200-sxm on_demand" in result.stderr
    b200 = run_cli("prices", "list", "--provider", "packet-ai", "--gpu", "b200")
    assert "(prices disagree)" in b200.stdout
    assert "$47.2/node-h is not 8 x $3.75/GPU-h" in b200.stderr
