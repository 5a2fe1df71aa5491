"""A check planned over documents leaves no row until a document is
evaluated: a document a blocking check stopped upstream has no row for the
checks it never reached, so no view reads them as run.

When a run starts, Dagster stores one ``ASSET_CHECK_EVALUATION_PLANNED`` event
per check and one ``asset_check_executions`` row per partition of the run,
``PLANNED`` until the evaluation completes it. Two things follow for a
partitioned check, both wrong for duocthu:

- a blocked document's checks on later assets (chunks, embeddings …) are
  never evaluated, and their planned rows resolve to *execution failed*
  (its run failed) — and, being the check's newest rows, they are what the
  check list, the graph's "n / N passed" and asset health read for the
  whole check (``get_latest_asset_check_execution_by_key`` takes the newest
  row across documents): 24 of 25 chunks checks read failed (or, after a
  follow-up run to settle them, *skipped*) because one document was blocked
  before chunking, although every document that reached them passed;
- the rows cost O(N^2) bytes for a run of N documents (each a copy of the
  planned event, which lists every document of the run: 31.5 GB of SQLite
  index at a 10,000-document rebuild before it was stopped).

So a partitioned plan stores no row: the event itself is kept once, in the
log; each evaluation inserts its document's row when it comes (Dagster's own
path for an evaluation without a planned row, ``_update_asset_check_evaluation``;
the SQLite event log writes the same row with statements built once). A check
is then read per document as evaluated (*succeeded*/*failed*) or not
evaluated (*missing*: blocked upstream, or never run), and across documents
as its newest evaluation. What is lost: a partitioned check is not shown *in
progress* while its step runs (the step is). An unpartitioned plan (one
row: the review's check) is stored as Dagster stores it.

Mixed into both storages duocthu selects: the SQLite event log
(:mod:`duocthu_assets.runtime.event_log`) and the PostgreSQL one
(:mod:`duocthu_assets.runtime.postgres_event_log`).
"""

from __future__ import annotations

from dagster import EventLogEntry, serialize_value

from .dagster_private import AssetCheckExecutionRecordStatus, AssetCheckExecutionsTable

_CHECK_PLANNED_INSERT = AssetCheckExecutionsTable.insert()


class PlannedCheckRowsWithoutCopies:
    """Overrides Dagster's ``SqlEventLogStorage._store_asset_check_evaluation_planned``."""

    def _store_asset_check_evaluation_planned(self, event: EventLogEntry, event_id: int | None) -> None:
        planned = event.get_dagster_event().event_specific_data
        if planned.partitions_subset is not None:
            return  # each document's row comes with its evaluation (see the module)
        row = {
            "asset_key": planned.asset_key.to_string(),
            "check_name": planned.check_name,
            "run_id": event.run_id,
            "execution_status": AssetCheckExecutionRecordStatus.PLANNED.value,
            "evaluation_event": serialize_value(event),
            "evaluation_event_timestamp": self._event_insert_timestamp(event),
            "evaluation_event_storage_id": event_id,
            "partition": None,
        }
        with self.index_connection() as conn:
            conn.execute(_CHECK_PLANNED_INSERT, [row])
