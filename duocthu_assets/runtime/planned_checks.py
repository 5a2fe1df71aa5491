"""A check planned over a range of documents: one row per document, without a
copy of the plan in each row.

When a run starts, Dagster stores one ``ASSET_CHECK_EVALUATION_PLANNED`` event
per check listing every partition of the run, then one
``asset_check_executions`` row per partition, each holding a copy of that
event. A run over N documents so writes N copies of an N-key list per check:
O(N^2) bytes, about 2.5 KB a row at 100 documents, 80 KB at 5,000 and 160 KB
at 10,000. Measured: a one-ingest rebuild of 10,000 documents (two runs of
5,000, then one of 10,000) grew the SQLite index to 31.5 GB and its
write-ahead log to 25 GB before it was stopped; the same holds for
dagster-postgres, whose storage writes the same rows.

Here a partitioned plan's rows keep every column but the copy. Dagster reads a
PLANNED row without an event (its rows from before it stored planned events
have none; ``AssetCheckExecutionRecord`` takes ``event=None`` for PLANNED);
the event itself is stored once, in the log, at the row's
``evaluation_event_storage_id``; the evaluation replaces the empty column when
it comes. An unpartitioned plan (one row) is stored as Dagster stores it.
Mixed into both storages duocthu selects: the SQLite event log
(:mod:`duocthu_assets.runtime.event_log`) and the PostgreSQL one
(:mod:`duocthu_assets.runtime.postgres_event_log`).
"""

from __future__ import annotations

from dagster import EventLogEntry, serialize_value

from .dagster_private import AssetCheckExecutionRecordStatus, AssetCheckExecutionsTable

# a run's planned check evaluations, one row per partition
_CHECK_PLANNED_INSERT = AssetCheckExecutionsTable.insert()


class PlannedCheckRowsWithoutCopies:
    """Overrides Dagster's ``SqlEventLogStorage._store_asset_check_evaluation_planned``."""

    def _store_asset_check_evaluation_planned(self, event: EventLogEntry, event_id: int | None) -> None:
        planned = event.get_dagster_event().event_specific_data
        partitions = planned.partitions_subset.get_partition_keys() if planned.partitions_subset else [None]
        common = {
            "asset_key": planned.asset_key.to_string(),
            "check_name": planned.check_name,
            "run_id": event.run_id,
            "execution_status": AssetCheckExecutionRecordStatus.PLANNED.value,
            "evaluation_event": None if planned.partitions_subset else serialize_value(event),
            "evaluation_event_timestamp": self._event_insert_timestamp(event),
            "evaluation_event_storage_id": event_id,
        }
        with self.index_connection() as conn:
            conn.execute(_CHECK_PLANNED_INSERT, [{**common, "partition": partition} for partition in partitions])
