"""The 25 GB write-ahead log, reproduced small: a run's check plan written to
the SQLite event index while other processes read it.

    nice -n 10 .venv/bin/python bench/wal_cause.py [--documents 500 1000 2000] [--checks 4]

For each size N, a fresh ``PooledSqliteEventLogStorage`` stores what a run
over N documents stores first: one ``ASSET_CHECK_EVALUATION_PLANNED`` event
per check listing all N documents (34 checks in the real pipeline;
``--checks`` here). Three variants:

- ``copies``: Dagster's own rows for that plan (one per document, each with a
  copy of the N-key event: O(N^2) bytes), no bound on the log: the code of
  the 25 GB rebuild;
- ``no copies``: duocthu's planned rows (no copy), no bound on the log;
- ``now``: no copies, and the log bounded (``runtime/wal_bound.py``).

Each variant runs twice: alone, and with a reader process whose two threads
keep read transactions overlapping (as the ingest's other worker, the UI and
the daemon do), so no checkpoint ever finds the log unused. A thread samples
the ``-wal`` file's size every 20 ms. Prints one JSON line per case: bytes
written to the index, the peak log, the largest single transaction.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg
from dagster import DagsterEvent, DagsterEventType, EventLogEntry

from duocthu_assets.runtime import wal_bound
from duocthu_assets.runtime.dagster_private import AssetCheckEvaluationPlanned, SqliteEventLogStorage
from duocthu_assets.runtime.event_log import PooledSqliteEventLogStorage

RUN_ID = "0f0e0d0c-0000-4000-8000-000000000041"


class WithCopies(PooledSqliteEventLogStorage):
    """duocthu's storage with Dagster's own planned rows (a copy of the plan each)."""

    _store_asset_check_evaluation_planned = SqliteEventLogStorage._store_asset_check_evaluation_planned


def planned_event(check: str, keys: list[str]) -> EventLogEntry:
    subset = dg.StaticPartitionsDefinition(keys).subset_with_partition_keys(keys)
    data = AssetCheckEvaluationPlanned(asset_key=dg.AssetKey("chunks"), check_name=check, partitions_subset=subset)
    event = DagsterEvent(event_type_value=DagsterEventType.ASSET_CHECK_EVALUATION_PLANNED.value, job_name="ingest",
                         event_specific_data=data)
    return EventLogEntry(error_info=None, level=logging.DEBUG, user_message="", run_id=RUN_ID, timestamp=time.time(),
                         dagster_event=event, job_name="ingest")


def _reader(database: str, stop) -> None:
    """Two threads, each holding a read transaction 200 ms of every 200 ms,
    offset by 100 ms: there is always a reader."""

    def loop(offset: float) -> None:
        time.sleep(offset)
        conn = sqlite3.connect(database, timeout=60, isolation_level=None)
        while not stop.is_set():
            conn.execute("BEGIN")
            conn.execute("SELECT count(*) FROM event_logs").fetchone()
            time.sleep(0.2)
            conn.execute("COMMIT")

    threads = [threading.Thread(target=loop, args=(o,)) for o in (0.0, 0.1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def case(n: int, checks: int, variant: str, readers: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "runs"
        bounded = variant == "now"
        wal_bound.WAL_CHECKPOINT_AT = (64 << 20) if bounded else (1 << 62)
        storage = (WithCopies if variant == "copies" else PooledSqliteEventLogStorage)(str(base))
        index = str(base / "index.db")
        keys = [f"doc_{i:06d}.csv" for i in range(n)]
        stop_reader = multiprocessing.Event()
        reader = multiprocessing.Process(target=_reader, args=(index, stop_reader)) if readers else None
        if reader:
            reader.start()
            time.sleep(0.5)
        peak, stop = [0], threading.Event()

        def sample() -> None:
            while not stop.is_set():
                try:
                    peak[0] = max(peak[0], os.path.getsize(index + "-wal"))
                except OSError:
                    pass
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        started, largest = time.perf_counter(), 0
        for c in range(checks):
            before = os.path.getsize(index + "-wal") if os.path.exists(index + "-wal") else 0
            storage.store_event(planned_event(f"rule_{c:02d}", keys))
            after = os.path.getsize(index + "-wal")
            largest = max(largest, after - before)
        seconds = time.perf_counter() - started
        stop.set()
        sampler.join()
        if reader:
            stop_reader.set()
            reader.join()
        storage.dispose()
        index_bytes = os.path.getsize(index)
    return {"documents": n, "checks": checks, "variant": variant, "readers": readers,
            "index_mb": round(index_bytes / 2**20, 1), "wal_peak_mb": round(peak[0] / 2**20, 1),
            "largest_wal_step_mb": round(largest / 2**20, 1), "seconds": round(seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, nargs="+", default=[500, 1000, 2000])
    parser.add_argument("--checks", type=int, default=4)
    parser.add_argument("--variants", nargs="+", default=["copies", "no copies", "now"])
    args = parser.parse_args()
    for n in args.documents:
        for variant in args.variants:
            for readers in (False, True):
                print(json.dumps(case(n, args.checks, variant, readers)), flush=True)


if __name__ == "__main__":
    main()
