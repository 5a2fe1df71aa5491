"""A write-ahead log past its bound is checkpointed and emptied by the next
write (duocthu_assets/runtime/wal_bound.py), in duocthu's SQLite event log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from duocthu_assets.runtime import wal_bound
from duocthu_assets.runtime.event_log import PooledSqliteEventLogStorage
from duocthu_assets.runtime.wal_bound import bound_wal


def _burst(storage: PooledSqliteEventLogStorage, blobs: int) -> None:
    with storage.index_connection() as conn:
        conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS filler (x BLOB)")
        for _ in range(blobs):
            conn.exec_driver_sql("INSERT INTO filler VALUES (randomblob(100000))")


def test_a_log_grown_under_a_reader_is_emptied_by_the_next_write(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(wal_bound, "WAL_CHECKPOINT_AT", 2 << 20)
    monkeypatch.setattr(wal_bound, "CHECKPOINT_WAIT_S", 0.05)
    storage = PooledSqliteEventLogStorage(str(tmp_path / "runs"))
    _burst(storage, 3)
    wal = tmp_path / "runs" / "index.db-wal"
    reader = sqlite3.connect(tmp_path / "runs" / "index.db")
    cursor = reader.execute("SELECT x FROM filler")
    cursor.fetchone()  # an unfinished read: no checkpoint may pass its snapshot
    _burst(storage, 60)
    grown = wal.stat().st_size
    assert grown > 5 << 20, "the log grows past the bound while the reader holds its snapshot"
    cursor.close()
    reader.close()
    _burst(storage, 25)  # the next writes find the log past its bound (and past the size that gave up)
    assert wal.stat().st_size == 0
    storage.dispose()


def test_a_reader_that_stays_leaves_the_log_for_the_next_write(tmp_path: Path):
    database = tmp_path / "t.db"
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE t (x BLOB)")
    reader = sqlite3.connect(database)
    for _ in range(3):
        writer.execute("INSERT INTO t VALUES (randomblob(100000))")
    cursor = reader.execute("SELECT x FROM t")
    cursor.fetchone()
    for _ in range(20):
        writer.execute("INSERT INTO t VALUES (randomblob(100000))")
    assert bound_wal(str(database), timeout=0.1, limit=1 << 20) is False  # busy: nothing broken
    assert bound_wal(str(database), timeout=0.1, limit=1 << 30) is False  # under the bound: nothing to do
    cursor.close()
    reader.close()
    # not tried again until the log grew by another bound's worth
    assert bound_wal(str(database), timeout=5, limit=1 << 20) is False
    writer.execute("INSERT INTO t VALUES (randomblob(1200000))")
    assert bound_wal(str(database), timeout=5, limit=1 << 20) is True
    assert (tmp_path / "t.db-wal").stat().st_size == 0
    writer.close()
