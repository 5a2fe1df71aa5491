"""Disk full (issue 22): reported as such, no temporary file left behind on
any error path, and the next ingest (on a disk with room) converges."""

from __future__ import annotations

import errno
import io
import json
import os
import sqlite3

import pytest

from duocthu_assets import warehouse as storage
from duocthu_assets.cli import main
from duocthu_assets.ingest.errors import disk_full_message
from duocthu_assets.warehouse import DiskFullError, Warehouse, remove_stale_temp_files


def _enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_mid_write_says_so_and_leaves_no_temp_file(tmp_path, monkeypatch):
    warehouse = Warehouse(str(tmp_path / "wh"))
    target = warehouse.path("sources", "ab", "abcdef")
    monkeypatch.setattr(storage.shutil, "copyfileobj", _enospc)
    with pytest.raises(DiskFullError, match=r"no space left on device while writing .*abcdef"):
        warehouse.write_stream_atomic(target, io.BytesIO(b"x" * 100))
    assert list((tmp_path / "wh").rglob("*")) == [tmp_path / "wh" / "sources", tmp_path / "wh" / "sources" / "ab"]


def test_several_files_at_once_leave_no_temp_file_either(tmp_path, monkeypatch):
    warehouse = Warehouse(str(tmp_path / "wh"))
    monkeypatch.setattr(storage, "_syncfs", _enospc)
    files = {warehouse.path("chunks", f"d{i}.parquet"): b"data" for i in range(3)}
    with pytest.raises(DiskFullError, match="no space left on device"):
        warehouse.write_many_bytes_atomic(files)
    assert not [p for p in (tmp_path / "wh").rglob("*") if p.is_file()]


def test_leftovers_of_dead_writers_are_removed_and_a_live_writers_kept(tmp_path):
    folder = tmp_path / "wh" / "chunks"
    folder.mkdir(parents=True)
    dead = folder / ".d.parquet.999999999-0123abcd.tmp"  # no such pid
    live = folder / f".e.parquet.{os.getpid()}-0123abcd.tmp"
    dead.write_bytes(b"half")
    live.write_bytes(b"half")
    assert remove_stale_temp_files(tmp_path / "wh") == [str(dead)]
    assert live.exists() and not dead.exists()


def test_sqlite_full_disk_is_named():
    exc = RuntimeError("event log")
    exc.__cause__ = sqlite3.OperationalError("database or disk is full")
    assert disk_full_message(exc, "/tmp").startswith("no space left on device while writing the warehouse /tmp")
    assert disk_full_message(ValueError("something else"), "/tmp") is None


@pytest.mark.slow
def test_an_ingest_that_fills_the_disk_reports_it_and_the_next_one_converges(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i in range(3):
        (inbox / f"d{i}.csv").write_text(f"Mã,Tên\nJ0{i},thuốc số {i}\n", encoding="utf-8")
    real_write_many = Warehouse.write_many_bytes_atomic

    def write_many(self, files):
        if any("/chunks/" in str(target) for target in files):
            monkeypatch.setattr(storage, "_syncfs", _enospc)  # the disk fills while the chunks are written
        return real_write_many(self, files)

    monkeypatch.setattr(Warehouse, "write_many_bytes_atomic", write_many)
    report = tmp_path / "report.json"
    args = ["ingest", str(inbox), "--warehouse", str(tmp_path / "wh"), "--quiet", "--report", str(report)]
    assert main(args) == 1
    docs = json.loads(report.read_text())["documents"]
    assert {d["status"] for d in docs} == {"failed"}
    assert all("no space left on device while writing" in d["reason"] for d in docs), docs
    assert not list((tmp_path / "wh").rglob("*.tmp"))

    monkeypatch.undo()  # room again
    assert main(args) == 0
    assert {d["status"] for d in json.loads(report.read_text())["documents"]} == {"ok"}
