"""Faults under the store (issue 23): only a file positively not ours is moved aside; a disk
full, a lock, a read-only file or directory, odd characters in the path, a dangling symlink, a
FIFO or a missing table is one line, and the user's prices and sessions are intact after."""

from __future__ import annotations

import gc
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from clusterplan.db import active
from clusterplan.db import store as store_module
from clusterplan.db.catalog import load_catalog
from clusterplan.db.store import Store, StoreError
from tests.conftest import run_cli

OFFER = ("provider,gpu,gpus_per_node,kind,usd_per_gpu_hour,usd_per_node_hour,region,"
         "verified_on,status,source_note\n"
         "Acme,h100,8,on_demand,1.23,,eu-west,2026-11-30,available,my-quote\n")


def _seed(path: Path, tmp_path: Path) -> None:
    """A store with one imported offer and one saved session."""
    prices = tmp_path / "mine.csv"
    prices.write_text(OFFER)
    imported = run_cli("--db", str(path), "prices", "import", str(prices))
    assert imported.exit_code == 0, imported.output
    result = run_cli("--db", str(path), "ask", "--session", "keep",
                     "how much memory to serve llama 3 8b in fp16?")
    assert result.exit_code == 0, result.output


def _intact(path: Path) -> None:
    conn = sqlite3.connect(path)
    assert conn.execute("select count(*) from offers where origin = 'user'").fetchone()[0] == 1
    assert conn.execute("select count(*) from sessions where name = 'keep'").fetchone()[0] == 1
    conn.close()
    assert not list(path.parent.glob(f"{path.name}.unreadable-*"))


def _one_line_error(result) -> str:
    lines = result.output.strip().splitlines()
    assert result.exit_code != 0
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture
def small_disk(tmp_path):
    """A 16 MB tmpfs (needs root); skipped where it cannot be mounted."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (not root)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path) -> None:
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)


def test_disk_full_under_a_follow_up_is_one_line_and_renames_nothing(small_disk, tmp_path):
    path = small_disk / "store.db"
    _seed(path, tmp_path)
    _fill(small_disk)
    result = None
    for question in ("and on H200?", "and on A100?", "and on B200?", "what about 4 of them?"):
        result = run_cli("--db", str(path), "ask", "--session", "keep", question)
        if result.exit_code != 0:
            break
    assert result is not None
    assert "Traceback" not in result.output
    if result.exit_code != 0:
        assert "full" in _one_line_error(result)
    (small_disk / "filler").unlink()
    _intact(path)
    exported = run_cli("--db", str(path), "prices", "export", "--origin", "user")
    assert "Acme" in exported.output


def test_disk_full_while_probing_is_not_taken_for_a_foreign_file(tmp_path, monkeypatch):
    path = tmp_path / "store.db"
    _seed(path, tmp_path)
    real = sqlite3.connect

    def failing(target, *args, **kwargs):
        if str(target).startswith("file:"):
            raise sqlite3.OperationalError("database or disk is full")
        return real(target, *args, **kwargs)

    monkeypatch.setattr(store_module.sqlite3, "connect", failing)
    result = run_cli("--db", str(path), "prices", "export", "--origin", "user")
    monkeypatch.undo()
    assert "database or disk is full" in _one_line_error(result)
    assert "nothing in it was changed" in result.output
    _intact(path)


def test_a_locked_store_is_reported_and_left_in_place(tmp_path, monkeypatch):
    path = tmp_path / "store.db"
    _seed(path, tmp_path)
    if active._active is not None:  # close what the in-process runs left open
        active._active.conn.close()
        active.use_store(None)
    gc.collect()
    holder = sqlite3.connect(path)
    holder.execute("pragma locking_mode = exclusive")
    holder.execute("begin exclusive")
    holder.execute("delete from sessions where 0")
    code = ("import sys; from clusterplan.db import store; store.BUSY_TIMEOUT_S = 0.2; "
            "from clusterplan.cli import cli; "
            "sys.argv=['clusterplan','--db',sys.argv[1],'prices','export','--origin','user'];"
            "cli()")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=120)
    holder.rollback()
    holder.close()
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "locked" in lines[0], done.stderr
    _intact(path)


@pytest.mark.parametrize("name", ["my#store.db", "what?.db", "100%.db", "a%23b.db"])
def test_special_characters_in_the_store_path(tmp_path, name):
    path = tmp_path / name
    _seed(path, tmp_path)
    exported = run_cli("--db", str(path), "prices", "export", "--origin", "user")
    assert exported.exit_code == 0 and "Acme" in exported.output
    assert "moved it to" not in exported.output
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(
        ("-wal", "-shm"))) == sorted([name, "mine.csv", "home"])
    _intact(path)


def test_read_only_store_in_a_read_only_directory_still_answers(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "store.db"
    _seed(path, tmp_path)
    sqlite3.connect(path).execute("pragma wal_checkpoint(truncate)").close()
    for extra in folder.glob("store.db-*"):
        extra.unlink()
    path.chmod(0o444)
    folder.chmod(0o555)
    try:
        if os.access(path, os.W_OK):
            # root writes anyway: read the store as another process would that cannot
            # write, through the same check the store uses
            pytest.skip("running as root: permissions do not bind")
        exported = run_cli("--db", str(path), "prices", "export", "--origin", "user")
        assert exported.exit_code == 0 and "Acme" in exported.output, exported.output
        asked = run_cli("--db", str(path), "ask", "how much memory to serve llama 3 8b?")
        assert "Traceback" not in asked.output
        saved = run_cli("--db", str(path), "ask", "--session", "keep", "and on H200?")
        assert "Traceback" not in saved.output
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)
    _intact(path)


def test_read_only_store_is_opened_read_only(tmp_path, monkeypatch):
    # The same as above through the check itself, so it binds when tests run as root too.
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "store.db"
    _seed(path, tmp_path)
    sqlite3.connect(path).execute("pragma wal_checkpoint(truncate)").close()
    monkeypatch.setattr(store_module, "_writable", lambda _p: False)
    opened = Store.open(path)
    assert opened.read_only
    assert any("read-only" in n for n in opened.notices)
    assert opened.conn.execute("select count(*) from offers").fetchone()[0] > 0
    with pytest.raises(sqlite3.OperationalError):
        opened.conn.execute("delete from offers")
    _intact(path)


def test_a_dangling_symlink_is_one_line(tmp_path):
    path = tmp_path / "link.db"
    path.symlink_to(tmp_path / "gone" / "store.db")
    result = run_cli("--db", str(path), "prices", "export")
    assert "symbolic link to a missing file" in _one_line_error(result)
    assert path.is_symlink()


def test_a_fifo_at_the_store_path_does_not_hang(tmp_path):
    path = tmp_path / "fifo.db"
    os.mkfifo(path)
    result = run_cli("--db", str(path), "prices", "export")
    assert "not a regular file" in _one_line_error(result)


def test_a_missing_table_is_one_line_and_keeps_the_rest(tmp_path):
    path = tmp_path / "store.db"
    _seed(path, tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("drop table messages")
    conn.commit()
    conn.close()
    for args in (["ask", "--session", "keep", "and on H200?"], ["report", "--session", "keep"],
                 ["prices", "export", "--origin", "user"]):
        result = run_cli("--db", str(path), *args)
        assert "Traceback" not in result.output
        if result.exit_code != 0:
            _one_line_error(result)
    conn = sqlite3.connect(path)
    assert conn.execute("select count(*) from offers where origin = 'user'").fetchone()[0] == 1


def test_a_transient_error_raises_store_error_not_a_rename(tmp_path, monkeypatch):
    path = tmp_path / "store.db"
    Store.open(path).conn.close()
    monkeypatch.setattr(store_module, "_uri", lambda *_a, **_k: "file:/nonexistent/dir/x.db")
    with pytest.raises(StoreError, match="nothing in it was changed"):
        Store.open(path)
    assert not list(tmp_path.glob("store.db.unreadable-*"))


def _page_limited(monkeypatch, path: Path) -> None:
    """Every connection the store opens may not grow the file: SQLite's max_page_count set to
    the pages it has reports 'database or disk is full', as a full disk would, anywhere."""
    real = store_module._connect
    pages = sqlite3.connect(path).execute("pragma page_count").fetchone()[0]

    def limited(target, *args, **kwargs):
        conn = real(target, *args, **kwargs)
        conn.execute(f"pragma max_page_count = {pages}")
        return conn

    monkeypatch.setattr(store_module, "_connect", limited)


def test_a_page_limit_as_a_full_disk_keeps_rows_and_sessions(tmp_path, monkeypatch):
    path = tmp_path / "store.db"
    _seed(path, tmp_path)
    sqlite3.connect(path).execute("pragma wal_checkpoint(truncate)").close()
    _page_limited(monkeypatch, path)
    bulk = tmp_path / "bulk.csv"
    bulk.write_text(OFFER.splitlines()[0] + "\n" + "".join(
        f"Bulk,h100,8,on_demand,{1 + i / 1000:.3f},,eu-west,2026-11-30,available,n{i}\n"
        for i in range(5000)))
    imported = run_cli("--db", str(path), "prices", "import", str(bulk))
    assert "full" in _one_line_error(imported)
    for question in ("and on H200?", "and on A100?", "what about 4 of them?"):
        asked = run_cli("--db", str(path), "ask", "--session", "keep", question)
        assert "Traceback" not in asked.output
        if asked.exit_code != 0:
            assert "full" in _one_line_error(asked)
    monkeypatch.undo()
    _intact(path)
    conn = sqlite3.connect(path)
    assert conn.execute("select count(*) from offers where provider = 'Bulk'").fetchone()[0] == 0


def test_a_store_deleted_beside_its_orphaned_write_ahead_log_is_built_clean(tmp_path):
    # A killed app leaves its -wal file; deleting the store to start afresh then leaves a log
    # whose pages SQLite would replay into the next store of that name (sqlite.org, "How To
    # Corrupt An SQLite Database File", 2.4: a journal paired with the wrong database). A
    # store written in another process and killed before a checkpoint leaves such a log.
    path = tmp_path / "clusterplan.db"
    script = (
        "import os, sys, sqlite3\n"
        "from pathlib import Path\n"
        "from clusterplan.db.store import Store\n"
        f"s = Store.open(Path({str(path)!r}))\n"
        "s.conn.execute('pragma wal_autocheckpoint = 0')\n"
        "for table in ('links', 'gpus', 'models'):\n"
        "    s.conn.execute(f'delete from [{table}]')\n"
        "s.conn.commit()\n"
        "os._exit(0)  # killed: no checkpoint, the log stays\n")
    subprocess.run([sys.executable, "-c", script], check=True)
    wal = path.with_name(path.name + "-wal")
    assert wal.exists() and wal.stat().st_size > 0
    path.unlink()
    store = Store.open(path)
    catalog = load_catalog(store)
    assert len(catalog.links.rows) > 10 and len(catalog.gpus.rows) > 10
    assert any("write-ahead log" in n for n in store.notices)
    kept = list(tmp_path.glob("clusterplan.db-wal.orphaned-*"))
    assert len(kept) == 1  # set aside, never deleted
