"""Dagster's SQLite event log, with its connections kept and its hottest
statements built once.

Every Dagster event (a materialization, a check evaluation, a planned step)
is a row in SQLite. A document writes about 30 of them (7 materializations,
23 check evaluations), so their cost is most of `duocthu ingest`'s cost per
document. The stock ``SqliteEventLogStorage`` builds a new SQLAlchemy engine
for every statement group and throws it away after: each event paid for the
engine, for compiling its SQL again (the compiled-statement cache lives on the
engine), and for closing the last connection to a WAL database, which
checkpoints it. Measured here: 10-13 ms per event.

This subclass changes how rows are written, never which rows:

- one engine per shard (the run's own database and the cross-run index), kept
  in a small LRU, each pooling one open connection;
- ``PRAGMA journal_size_limit`` (1 MB) on each connection, so a WAL file
  shrinks back after each checkpoint instead of staying at its largest, and
  a log past 64 MB checkpointed and emptied after the write that passed it,
  whoever else reads (:mod:`duocthu_assets.runtime.wal_bound`);
- ``PRAGMA synchronous=NORMAL`` on each connection: with the WAL journal that
  Dagster already sets, a commit no longer waits for fsync; a power cut can
  lose the last transactions but never corrupts the database (SQLite's
  documented guarantee for WAL + NORMAL), and what has no record is rebuilt by
  the next ingest;
- ``has_table`` answers from memory once a table is known to exist (Dagster
  asks before every check evaluation);
- a partitioned check evaluation (what every rule yields for every document)
  is inserted, with its document's row, by statements built once, the
  event serialized once — the same
  tables, columns and values as Dagster's ``store_event`` and
  ``_update_asset_check_evaluation``, which build, cache-key and compile new
  statement objects for every evaluation;
- a run's partitioned check plan leaves no row per document (see
  :mod:`duocthu_assets.runtime.planned_checks`: a blocked document's
  unreached checks are not read as run, and Dagster's rows were O(N^2)
  bytes for a run of N documents);
- a partitioned check's roll-up (the UI's check list, graph node, catalog)
  reads *failed* while any document's latest evaluation fails it
  (:mod:`duocthu_assets.runtime.check_rollup`; this changes what is read,
  not what is written);
- a batch of asset events (Dagster batches the materializations of one step's
  partitions, and the planned events of a run, when ``DAGSTER_EVENT_BATCH_SIZE``
  is set; importing this module sets it unless it is already set) is written
  in one transaction per database, and the asset's own row (``asset_keys``:
  last materialization, last run) is updated once per batch with the values
  of its last event, where Dagster updates it once per event, each update
  overwriting the one before;
- partitioned check evaluations are held back and written together, in one
  transaction per database, before any other event of the process is stored
  and before any connection is opened (so no read in this process misses
  them): a step's evaluations (23 rules x 100 documents) cost two commits,
  not 4,600. Another process (the UI, the other worker) sees them when the
  step's next event is stored (or the process exits, or disposes of its
  instance); a process killed mid-step loses the held-back evaluations of
  that step, whose run then never succeeded either;
- a run over a range of documents plans each asset once per document, as
  Dagster does by default (one planned row per asset and document, written in
  the run's one batch): a document whose asset was planned in a run that
  failed and never built shows that partition *failed* in the UI, never-run
  ones *missing*. (Planning once per range, Dagster's
  ``DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS``, made a blocked
  document's unbuilt assets look never run.)
- a forked child (``duocthu ingest`` runs batches in forked processes) never
  touches its parent's pooled connections: they are forgotten in the child,
  which opens its own (SQLAlchemy's recipe for pools across ``fork``).

The files and the schema are Dagster's own: an instance written by this class
is read by the stock class and the other way round
(tests/runtime/test_scale_event_log_contract.py). Selected in ``dagster.yaml`` (see
:mod:`duocthu_assets.runtime.instance`). Dagster's private names it uses
come through :mod:`duocthu_assets.runtime.dagster_private`, which lists the
private methods it overrides or calls.
"""

from __future__ import annotations

import atexit
import os
import sqlite3
import sys
import threading
import weakref
from collections import OrderedDict
from contextlib import contextmanager
from itertools import groupby
from typing import Any, Iterator, Sequence

import sqlalchemy as db
from dagster import DagsterEventType, EventLogEntry
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import QueuePool

from .check_partition_index import ensure_check_partition_index
from .check_states import CheckStatesInOnePass
from .check_rollup import RollupReadsEveryDocument
from .planned_checks import PlannedCheckRowsWithoutCopies
from .run_deletion import DeletedRunsLeaveNothing, remove_sqlite_files, vacuum_sqlite
from .wal_bound import bound_wal
from .dagster_private import (
    ASSET_EVENTS,
    INDEX_SHARD_NAME,
    SQLITE_BUSY_TIMEOUT_SECONDS,
    AssetCheckExecutionRecordStatus,
    AssetCheckExecutionsTable,
    SqlEventLogStorageTable,
    SqliteEventLogStorage,
)

KEPT_ENGINES = 8  # the index shard and the few runs being written at once
PENDING_LIMIT = 2000  # check evaluations held back at most (one step's, usually)
EVENT_BATCH_SIZE = "1000"
WAL_SIZE_LIMIT = 1 << 20  # bytes a database's -wal file keeps after a checkpoint
os.environ.setdefault("DAGSTER_EVENT_BATCH_SIZE", EVENT_BATCH_SIZE)

# an event row: the values come from Dagster's own _event_to_row
_EVENT_INSERT = SqlEventLogStorageTable.insert()
# one document's evaluation of a check: its row (a partitioned plan leaves none, see planned_checks.py)
_CHECK_EVALUATION_INSERT = AssetCheckExecutionsTable.insert()


def _set_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=NORMAL")
    # the write-ahead log is reused after each checkpoint but never shrinks
    # by itself: without a limit it stays at its largest size (10 MB for an
    # ingest of 40 tiny documents, next to an 11 MB index)
    cursor.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
    cursor.close()


class PooledSqliteEventLogStorage(
    DeletedRunsLeaveNothing, RollupReadsEveryDocument, PlannedCheckRowsWithoutCopies, CheckStatesInOnePass,
    SqliteEventLogStorage,
):
    """``SqliteEventLogStorage`` that keeps its engines and connections."""

    def __init__(self, base_dir: str, inst_data=None):
        # set before the parent's __init__, which may already connect
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_lock = threading.Lock()
        self._known_tables: set[str] = set()
        self._pending: list[tuple[EventLogEntry, Any, dict[str, Any]]] = []
        self._pending_lock = threading.Lock()
        # held while held-back evaluations are written: another thread's next
        # event (or read) waits for them, so none overtakes them
        self._flush_lock = threading.RLock()
        # dynamic partitions as last read: {name: (index stamp, keys, key set)}
        self._partitions: dict[str, tuple[int, list[str], frozenset[str]]] = {}
        self._stamp_connection: sqlite3.Connection | None = None
        self._stamp_lock = threading.Lock()
        _LIVE_STORAGES.add(self)
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> "PooledSqliteEventLogStorage":
        return cls(inst_data=inst_data, **config_value)

    # -- connections ---------------------------------------------------------
    def _engine(self, shard: str) -> Engine:
        with self._engines_lock:
            engine = self._engines.get(shard)
            if engine is not None:
                self._engines.move_to_end(shard)
                return engine
            engine = db.create_engine(
                self.conn_string_for_shard(shard),
                poolclass=QueuePool,
                pool_size=1,
                max_overflow=-1,
                connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS},
            )
            db.event.listen(engine, "connect", _set_pragmas)
            self._engines[shard] = engine
            while len(self._engines) > KEPT_ENGINES:
                self._engines.popitem(last=False)[1].dispose()
            return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        # every read and write opens a connection: none sees the log without
        # the check evaluations this process holds back
        self.flush_pending()
        with self._db_lock:
            engine = self._engine(shard)
            first = shard not in self._initialized_dbs
            if first:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn:
                with conn.begin():
                    if first and shard == INDEX_SHARD_NAME:
                        ensure_check_partition_index(conn)
                    yield conn
            # committed: the log checkpointed once it is past its bound
            bound_wal(self.path_for_shard(shard), SQLITE_BUSY_TIMEOUT_SECONDS)

    def has_table(self, table_name: str) -> bool:
        if table_name in self._known_tables:
            return True
        exists = super().has_table(table_name)
        if exists:
            self._known_tables.add(table_name)
        return exists

    # -- writes --------------------------------------------------------------
    def store_event(self, event: EventLogEntry) -> None:
        evaluation = _partitioned_check_evaluation(event)
        if evaluation is not None and self.supports_asset_checks:
            row = self._event_to_row(event)  # serializes the event, once
            with self._pending_lock:
                self._pending.append((event, evaluation, row))
                if len(self._pending) < PENDING_LIMIT:
                    return
        self.flush_pending()  # what was held back is written first, in order
        if evaluation is None or not self.supports_asset_checks:
            super().store_event(event)

    def flush_pending(self) -> None:
        """Write the check evaluations held back: one transaction on the
        run's database, then on the index the event rows and then each
        document's check row, in the order they were stored."""
        with self._flush_lock:
            self._write_pending()

    def _write_pending(self) -> None:
        with self._pending_lock:
            pending, self._pending = self._pending, []
        if not pending:
            return
        for run_id, group in groupby(pending, key=lambda item: item[0].run_id):
            with self.run_connection(run_id) as conn:
                conn.execute(_EVENT_INSERT, [row for _, _, row in group])
        with self.index_connection() as conn:
            stored = [
                (event, evaluation, row, conn.execute(_EVENT_INSERT, row).inserted_primary_key[0])
                for event, evaluation, row in pending
            ]
        try:
            with self.index_connection() as conn:
                conn.execute(_CHECK_EVALUATION_INSERT, [_evaluation_row(self, e, ev, i, r) for e, ev, r, i in stored])
        except db.exc.IntegrityError:
            # a row planned before planned_checks.py stored none (an instance
            # upgraded mid-run): Dagster's own path completes it, one by one
            for event, _, _, event_id in stored:
                self._update_asset_check_evaluation(event, event_id)

    def store_event_batch(self, events: Sequence[EventLogEntry]) -> None:
        """What ``store_event`` does for each asset event, one transaction per
        database for a run of consecutive asset events of one run; any other
        event is stored on its own, in order."""
        for batchable, group in groupby(events, key=_is_batchable_asset_event):
            group = list(group)
            if not batchable or len({e.run_id for e in group}) != 1:
                for event in group:
                    self.store_event(event)
                continue
            rows = [self._event_to_row(event) for event in group]
            with self.run_connection(group[0].run_id) as conn:
                conn.execute(_EVENT_INSERT, rows)
            with self.index_transaction() as conn:
                event_ids = [conn.execute(_EVENT_INSERT, row).inserted_primary_key[0] for row in rows]
                self._store_asset_event_tags(conn, group, event_ids)
                for event, event_id in _last_of_each_kind(group, event_ids):
                    self._store_asset_event(conn, event, event_id)

    # -- dynamic partitions --------------------------------------------------
    # Dagster checks a document's key against the run's range every time a
    # step adds that document's metadata (``add_asset_metadata(partition_key=)``):
    # two membership queries and a read of every key, per document, so O(N^2)
    # over a run of N documents. The keys are kept with the index's
    # ``PRAGMA data_version`` as read on a connection of their own, which
    # SQLite changes whenever any other connection (another process, or this
    # storage's pooled one) commits to the index; the stamp is read before the
    # keys, so keys kept are never older than their stamp.
    def _index_stamp(self) -> int:
        with self._stamp_lock:
            if self._stamp_connection is None:
                self._stamp_connection = sqlite3.connect(
                    self.path_for_shard(INDEX_SHARD_NAME), timeout=SQLITE_BUSY_TIMEOUT_SECONDS, check_same_thread=False
                )
            return self._stamp_connection.execute("PRAGMA data_version").fetchone()[0]

    def _known_partitions(self, partitions_def_name: str) -> tuple[int, tuple | None]:
        stamp = self._index_stamp()
        known = self._partitions.get(partitions_def_name)
        return stamp, (known if known is not None and known[0] == stamp else None)

    def get_dynamic_partitions(self, partitions_def_name: str) -> Sequence[str]:
        stamp, known = self._known_partitions(partitions_def_name)
        if known is not None:
            return list(known[1])
        keys = list(super().get_dynamic_partitions(partitions_def_name))
        self._partitions[partitions_def_name] = (stamp, keys, frozenset(keys))
        return list(keys)

    def has_dynamic_partition(self, partitions_def_name: str, partition_key: str) -> bool:
        _, known = self._known_partitions(partitions_def_name)
        if known is not None:
            return partition_key in known[2]
        return super().has_dynamic_partition(partitions_def_name, partition_key)

    def _close_stamp_connection(self, close: bool = True) -> None:
        with self._stamp_lock:
            if self._stamp_connection is not None and close:
                self._stamp_connection.close()
            self._stamp_connection = None
        self._partitions = {}

    # -- lifecycle -----------------------------------------------------------
    def _dispose_engines(self, close: bool = True) -> None:
        with self._engines_lock:
            for engine in self._engines.values():
                engine.dispose(close=close)
            self._engines.clear()

    def _forget_parent_connections(self) -> None:
        # in a forked child: drop the parent's pooled connections without
        # closing them (they are the parent's), and the parent's lock state
        self._engines_lock = threading.Lock()
        self._db_lock = threading.Lock()
        self._pending_lock = threading.Lock()
        self._pending = []  # the parent's to write, not ours
        self._flush_lock = threading.RLock()
        self._stamp_lock = threading.Lock()
        self._close_stamp_connection(close=False)  # the parent's
        self._dispose_engines(close=False)

    def forget_run_storage(self, run_id: str) -> None:
        # a deleted run's own database: emptied by Dagster, removed here
        with self._engines_lock:
            engine = self._engines.pop(run_id, None)
        if engine is not None:
            engine.dispose()
        self._initialized_dbs.discard(run_id)
        remove_sqlite_files(self.path_for_shard(run_id))

    def compact_run_storage(self, run_id: str) -> None:
        # a finished run's own database after retention deleted rows inside
        # it (runtime/partition_retention.py): its pages given back
        with self._engines_lock:
            engine = self._engines.pop(run_id, None)
        if engine is not None:
            engine.dispose()
        path = self.path_for_shard(run_id)
        if not os.path.exists(path):
            return
        try:
            vacuum_sqlite(path, SQLITE_BUSY_TIMEOUT_SECONDS)
        except sqlite3.OperationalError as exc:  # a reader held it past the busy timeout
            print(f"duocthu: run {run_id}'s file not compacted ({exc}); the rows are deleted, the file keeps its size",
                  file=sys.stderr)

    def wipe(self) -> None:
        self._close_stamp_connection()
        self._dispose_engines()  # the run shards' files are about to be deleted
        super().wipe()

    def upgrade(self) -> None:
        self._dispose_engines()
        self._known_tables.clear()
        super().upgrade()

    def dispose(self) -> None:
        self.flush_pending()
        self._close_stamp_connection()
        self._dispose_engines()
        super().dispose()


def _partitioned_check_evaluation(event: EventLogEntry) -> Any:
    if not event.is_dagster_event or event.dagster_event_type != DagsterEventType.ASSET_CHECK_EVALUATION:
        return None
    if not event.run_id:
        return None  # a runless evaluation has no planned row
    evaluation = event.get_dagster_event().event_specific_data
    return evaluation if evaluation.partition is not None else None


def _evaluation_row(
    storage: PooledSqliteEventLogStorage, event: EventLogEntry, evaluation: Any, event_id: int, row: dict[str, Any]
) -> dict[str, Any]:
    """The row Dagster's ``_update_asset_check_evaluation`` inserts for an
    evaluation without a planned row."""
    target = evaluation.target_materialization_data
    return {
        "asset_key": evaluation.asset_key.to_string(),
        "check_name": evaluation.check_name,
        "run_id": event.run_id,
        "partition": evaluation.partition,
        "execution_status": (
            AssetCheckExecutionRecordStatus.SUCCEEDED.value
            if evaluation.passed
            else AssetCheckExecutionRecordStatus.FAILED.value
        ),
        "evaluation_event": row["event"],
        "evaluation_event_timestamp": storage._event_insert_timestamp(event),
        "evaluation_event_storage_id": event_id,
        "materialization_event_storage_id": target.storage_id if target else None,
    }


def _last_of_each_kind(events: Sequence[EventLogEntry], event_ids: Sequence[int]) -> list[tuple[EventLogEntry, int]]:
    """The events whose asset-row update survives the batch: an asset's row
    (``asset_keys``) gets the same columns from every event of one type, each
    update overwriting the one before, so only the last of each (asset, type)
    leaves a trace. Dagster writes all of them: 100 updates of one row for a
    step over 100 documents."""
    last = {(e.get_dagster_event().asset_key, e.dagster_event_type): i for i, e in enumerate(events)}
    return [(events[i], event_ids[i]) for i in sorted(last.values())]


def _is_batchable_asset_event(event: EventLogEntry) -> bool:
    return bool(
        event.is_dagster_event
        and event.dagster_event_type in ASSET_EVENTS
        and event.get_dagster_event().asset_key
    )


_LIVE_STORAGES: "weakref.WeakSet[PooledSqliteEventLogStorage]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for storage in list(_LIVE_STORAGES):
        storage._forget_parent_connections()


os.register_at_fork(after_in_child=_after_fork_in_child)


def _flush_before_exit() -> None:
    # a process that ends without storing another event (or disposing of its
    # instance) still writes the check evaluations it held back
    for storage in list(_LIVE_STORAGES):
        try:
            storage.flush_pending()
        except Exception as exc:  # noqa: BLE001 - said, and the others still flushed
            print(f"duocthu: could not write held-back check evaluations: {exc}", file=sys.stderr)


atexit.register(_flush_before_exit)
