"""The store: built on first use, robust to races, corruption and upgrades; user rows survive."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from clusterplan.db import store as store_module
from clusterplan.db.seed_data import seed_rows
from clusterplan.db.store import Store
from tests.conftest import run_cli


def test_first_use_builds_the_store_in_the_data_directory(tmp_path):
    result = run_cli("db", "path")
    path = Path(result.output.strip())
    assert path == tmp_path / "home" / "clusterplan.db"
    assert not path.exists()  # nothing is created by asking where it is
    assert run_cli("db", "rebuild").exit_code == 0
    assert path.exists()
    gpus = sqlite3.connect(path).execute("select count(*) from gpus").fetchone()[0]
    assert gpus == len(seed_rows("gpus"))


def test_db_option_and_environment_override_the_path(tmp_path, monkeypatch):
    assert run_cli("--db", str(tmp_path / "a.db"), "db", "path").output.strip() == str(
        tmp_path / "a.db")
    monkeypatch.setenv("CLUSTERPLAN_DB", str(tmp_path / "b.db"))
    assert run_cli("db", "path").output.strip() == str(tmp_path / "b.db")


def test_missing_store_directory_is_a_one_line_error(tmp_path):
    result = run_cli("--db", str(tmp_path / "nowhere" / "x.db"), "db", "rebuild")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: the directory for the store does not exist: {tmp_path / 'nowhere'}"]


def test_corrupt_file_is_moved_aside_and_a_fresh_store_built(tmp_path):
    path = tmp_path / "x.db"
    path.write_bytes(b"this is not a database" * 100)
    result = run_cli("--db", str(path), "db", "rebuild")
    assert result.exit_code == 0, result.output
    assert "was not a clusterplan store; moved it to" in result.output
    aside = list(tmp_path.glob("x.db.unreadable-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")
    assert sqlite3.connect(path).execute("select count(*) from gpus").fetchone()[0] > 0


def test_a_foreign_sqlite_file_is_not_overwritten_in_place(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("create table precious (x)")
    conn.commit()
    conn.close()
    Store.open(path)
    aside = next(tmp_path.glob("other.db.unreadable-*"))
    assert sqlite3.connect(aside).execute("select name from sqlite_master").fetchone() == (
        "precious",)


def test_two_processes_building_a_new_store_at_once_both_succeed(tmp_path):
    path = tmp_path / "race.db"
    code = ("import sys; from pathlib import Path; from clusterplan.db.store import Store; "
            "s = Store.open(Path(sys.argv[1])); print(s.db['gpus'].count)")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [p.communicate(timeout=120) for p in procs]
    expected = str(len(seed_rows("gpus")))
    assert [o[0].strip() for o in outputs] == [expected] * 4, outputs
    assert not list(tmp_path.glob(".clusterplan-*"))  # no temporary files left behind


def test_catalog_upgrade_keeps_user_offers_and_history(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    store = Store.open(path)
    store.db["offers"].insert({
        "provider": "my-colo", "gpu": "h100-sxm", "gpus_per_node": 8, "kind": "reserved_1y",
        "usd_per_gpu_hour": 1.99, "region": "eu", "verified_on": "2026-11-30",
        "status": "available", "origin": "user", "source_note": "gpu-prices-2026"})
    store.db["sessions"].insert({"id": "s1", "name": "plan", "created_at": "t",
                                 "updated_at": "t", "state_json": "{}"})
    store.db["messages"].insert({"session_id": "s1", "role": "user", "text": "hello",
                                 "answer_json": "", "created_at": "t"})
    store.db.close()
    # A new release ships a different catalog: the next open rebuilds the catalog tables.
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", "999")
    reopened = Store.open(path)
    assert reopened.meta("catalog").startswith("999:")
    users = list(reopened.db["offers"].rows_where("origin = 'user'"))
    assert [(u["provider"], u["usd_per_gpu_hour"]) for u in users] == [("my-colo", 1.99)]
    assert [m["text"] for m in reopened.db["messages"].rows] == ["hello"]
    assert reopened.db["gpus"].count == len(seed_rows("gpus"))


def test_an_in_memory_store_serves_worker_threads():
    import threading

    store = Store.memory()
    counts: list[int] = []
    worker = threading.Thread(target=lambda: counts.append(store.db.table("gpus").count))
    worker.start()
    worker.join()
    assert counts == [len(seed_rows("gpus"))]


def test_the_store_names_every_history_migration():
    from clusterplan.db.history_schema import history

    assert [m.name for m in history._migrations] == list(store_module.HISTORY_MIGRATIONS)


def test_a_store_missing_a_history_migration_gets_it_on_open(tmp_path):
    path = tmp_path / "old.db"
    Store.open(path).conn.close()
    conn = sqlite3.connect(path)
    conn.executescript("drop table messages; drop table sessions; drop table _sqlite_migrations")
    conn.close()
    reopened = Store.open(path)
    assert {"sessions", "messages"} <= reopened.table_names()


def test_asking_with_a_current_store_reads_it_without_sqlite_utils(tmp_path):
    # sqlite-utils (near 0.1 s to import) is for building tables; a question needs sqlite3 only.
    path = tmp_path / "s.db"
    Store.open(path).conn.close()
    code = ("import sys; from pathlib import Path; from clusterplan.db.store import Store; "
            "from clusterplan.db.active import use_store; "
            "from clusterplan.assistant.sessions.session import Assistant; "
            "s = Store.open(Path(sys.argv[1])); use_store(s); "
            "a = Assistant(s); a.ask('how many H100 to serve llama 3 70b?'); "
            "a.ask('cheapest H100 per hour'); print('sqlite_utils' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
