"""The pooled event log holds partitioned check evaluations back and writes
them together: nothing may be lost, reordered, or hidden from a reader."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from pathlib import Path

from dagster import DagsterEventType, EventLogEntry

from duocthu_assets.runtime.dagster_private import SqliteEventLogStorage
from duocthu_assets.runtime.event_log import PooledSqliteEventLogStorage

from tests.support.check_events import (
    RUN_ID,
    assert_a_partitioned_plan_leaves_rows_only_for_evaluations,
    check_evaluation,
    check_history,
    plan_a_run_of_300_and_fail_one,
)
from tests.support.paths import REPO


def _log_line(message: str) -> EventLogEntry:
    return EventLogEntry(
        error_info=None, level=logging.INFO, user_message=message, run_id=RUN_ID,
        timestamp=1_800_000_001.0, dagster_event=None, job_name="ingest",
    )


def test_held_back_evaluations_are_read_in_order_and_written_before_the_next_event(tmp_path: Path):
    base = str(tmp_path / "runs")
    writer = PooledSqliteEventLogStorage(base)
    writer.store_event(check_evaluation("a.csv", True))
    writer.store_event(check_evaluation("b.csv", False))

    # a read in the writing process sees them at once
    assert check_history(writer) == [("a.csv", "SUCCEEDED"), ("b.csv", "FAILED")]

    writer.store_event(check_evaluation("c.csv", True))
    writer.store_event(_log_line("chunks_gates done"))  # the step's next event

    # another process (Dagster's own class here) finds every one of them,
    # stored before the event that followed them
    reader = SqliteEventLogStorage(base)
    assert check_history(reader) == [("a.csv", "SUCCEEDED"), ("b.csv", "FAILED"), ("c.csv", "SUCCEEDED")]
    types = [r.event_log_entry.dagster_event_type for r in reader.get_records_for_run(RUN_ID).records]
    assert types == [DagsterEventType.ASSET_CHECK_EVALUATION] * 3 + [None]
    partitions = [
        r.event_log_entry.dagster_event.event_specific_data.partition
        for r in reader.get_records_for_run(RUN_ID, of_type=DagsterEventType.ASSET_CHECK_EVALUATION).records
    ]
    assert partitions == ["a.csv", "b.csv", "c.csv"]
    # each check execution row points at its own event in the cross-run index
    # (the batch's ids are computed, not read back one by one)
    with sqlite3.connect(Path(base) / "index.db") as db:
        pairs = db.execute(
            "SELECT x.partition, json_extract(e.event, '$.dagster_event.event_specific_data.partition'), "
            "e.dagster_event_type FROM asset_check_executions x "
            "JOIN event_logs e ON e.id = x.evaluation_event_storage_id ORDER BY x.partition"
        ).fetchall()
    assert pairs == [(doc, doc, "ASSET_CHECK_EVALUATION") for doc in ("a.csv", "b.csv", "c.csv")]
    writer.dispose()
    reader.dispose()


def test_disposing_the_storage_writes_what_it_held_back(tmp_path: Path):
    base = str(tmp_path / "runs")
    writer = PooledSqliteEventLogStorage(base)
    writer.store_event(check_evaluation("a.csv", False))
    writer.dispose()
    assert check_history(SqliteEventLogStorage(base)) == [("a.csv", "FAILED")]


def test_dynamic_partitions_are_answered_from_memory_until_anyone_changes_them(tmp_path: Path, monkeypatch):
    base = str(tmp_path / "runs")
    pooled, other = PooledSqliteEventLogStorage(base), SqliteEventLogStorage(base)
    pooled.add_dynamic_partitions("documents", ["a.csv", "b.csv"])
    reads = []
    real_read = SqliteEventLogStorage.get_dynamic_partitions
    monkeypatch.setattr(SqliteEventLogStorage, "get_dynamic_partitions", lambda self, name: reads.append(name) or real_read(self, name))

    assert pooled.get_dynamic_partitions("documents") == ["a.csv", "b.csv"]
    assert pooled.get_dynamic_partitions("documents") == ["a.csv", "b.csv"]
    assert pooled.has_dynamic_partition("documents", "b.csv") and not pooled.has_dynamic_partition("documents", "c.csv")
    assert len(reads) == 1  # read once, then answered from memory

    other.add_dynamic_partitions("documents", ["c.csv"])  # another process
    assert pooled.has_dynamic_partition("documents", "c.csv")
    assert pooled.get_dynamic_partitions("documents") == ["a.csv", "b.csv", "c.csv"]
    other.delete_dynamic_partition("documents", "a.csv")
    assert not pooled.has_dynamic_partition("documents", "a.csv")
    assert pooled.get_dynamic_partitions("documents") == ["b.csv", "c.csv"]

    pooled.delete_dynamic_partition("documents", "c.csv")  # its own writes
    assert pooled.get_dynamic_partitions("documents") == ["b.csv"]
    pooled.add_dynamic_partitions("documents", ["c.csv"])  # the same key again
    assert pooled.get_dynamic_partitions("documents") == ["b.csv", "c.csv"]
    assert other.get_dynamic_partitions("documents") == ["b.csv", "c.csv"]
    pooled.dispose()
    other.dispose()


def test_a_process_that_ends_without_another_event_still_writes_what_it_held_back(tmp_path: Path):
    base = tmp_path / "runs"
    script = (
        "import sys; sys.path[:0] = [sys.argv[2]]\n"
        "import tests.support.check_events as t\n"
        "from duocthu_assets.runtime.event_log import PooledSqliteEventLogStorage\n"
        "storage = PooledSqliteEventLogStorage(sys.argv[1])  # as an instance holds it, to the end\n"
        "storage.store_event(t.check_evaluation('a.csv', False))\n"
    )
    repo = str(REPO)
    subprocess.run([sys.executable, "-c", script, str(base), repo], check=True, timeout=120)
    assert check_history(SqliteEventLogStorage(str(base))) == [("a.csv", "FAILED")]


def test_a_write_ahead_log_shrinks_back_after_a_checkpoint(tmp_path: Path):
    """Every connection limits what its -wal file keeps after a checkpoint: a
    big burst of events leaves a WAL of at most the limit, not its largest size."""
    from duocthu_assets.runtime.event_log import WAL_SIZE_LIMIT

    base = tmp_path / "runs"
    storage = PooledSqliteEventLogStorage(str(base))
    with storage.index_connection() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_size_limit").scalar() == WAL_SIZE_LIMIT
    with storage.index_connection() as conn:  # a burst bigger than the limit
        conn.exec_driver_sql("CREATE TABLE filler (x BLOB)")
        for _ in range(40):
            conn.exec_driver_sql("INSERT INTO filler VALUES (randomblob(100000))")
    wal = base / "index.db-wal"
    assert wal.stat().st_size > WAL_SIZE_LIMIT
    with storage.index_connection() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
        conn.exec_driver_sql("INSERT INTO filler VALUES (x'00')")  # the next write resets the WAL, cut to the limit
    assert wal.stat().st_size <= WAL_SIZE_LIMIT
    storage.dispose()


def test_a_partitioned_plan_leaves_no_row_per_document(tmp_path: Path):
    """A run over N documents plans each check once with all N keys; Dagster
    stores a PLANNED row per document with a copy of that event (O(N^2)
    bytes: 30 GB for one run of 10,000 documents), which reads *execution
    failed* for a document a blocking check stopped upstream. Here only an
    evaluation leaves a row. Read back with Dagster's own class. The same on
    PostgreSQL: tests/scale/test_scale_postgres.py."""
    base = str(tmp_path / "runs")
    writer = PooledSqliteEventLogStorage(base)
    plan_a_run_of_300_and_fail_one(writer)
    writer.dispose()
    reader = SqliteEventLogStorage(base)
    assert_a_partitioned_plan_leaves_rows_only_for_evaluations(reader)
    reader.dispose()


def test_the_pooled_log_rolls_a_check_up_as_red_while_a_document_fails_it(tmp_path: Path):
    """runtime/check_rollup.py on the pooled SQLite log, with its held-back
    evaluations (the PostgreSQL twin is in tests/scale/test_scale_postgres.py)."""
    from tests.support.check_events import assert_the_rollup_reads_a_failing_document

    storage = PooledSqliteEventLogStorage(str(tmp_path / "runs"))
    assert_the_rollup_reads_a_failing_document(storage)
    storage.dispose()
