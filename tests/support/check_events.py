"""Events of one partitioned asset check (``chunks`` / ``chunk_ids_unique``),
written straight to an event log storage, and what a reader must find: the
event log tests run them on SQLite, the scale tests on PostgreSQL."""

from __future__ import annotations

import logging

import dagster as dg
from dagster import DagsterEvent, DagsterEventType, EventLogEntry

from duocthu_assets.runtime.dagster_private import SqliteEventLogStorage

RUN_ID = "0f0e0d0c-0000-4000-8000-000000000001"
CHECK = dg.AssetCheckKey(dg.AssetKey("chunks"), "chunk_ids_unique")


def event_entry(
    event_type: DagsterEventType, data=None, message: str = "", timestamp: float = 1_800_000_000.0, run_id: str = RUN_ID
) -> EventLogEntry:
    event = DagsterEvent(event_type_value=event_type.value, job_name="ingest", event_specific_data=data, message=message)
    return EventLogEntry(
        error_info=None, level=logging.DEBUG, user_message=message, run_id=run_id,
        timestamp=timestamp, dagster_event=event, job_name="ingest",
    )


def check_evaluation(doc_id: str, passed: bool, run_id: str = RUN_ID) -> EventLogEntry:
    evaluation = dg.AssetCheckEvaluation(
        asset_key=CHECK.asset_key, check_name=CHECK.name, passed=passed, partition=doc_id,
        metadata={"message": "ok" if passed else "duplicate chunk ids"},
    )
    return event_entry(DagsterEventType.ASSET_CHECK_EVALUATION, evaluation, run_id=run_id)


def assert_the_rollup_reads_a_failing_document(storage) -> None:
    """runtime/check_rollup.py on ``storage``: locked.csv fails the check, a
    later document passes it; the roll-up names locked.csv until its own
    later evaluation passes, in a run of its own."""
    storage.store_event(check_evaluation("locked.csv", False, run_id="0f0e0d0c-0000-4000-8000-00000000000a"))
    storage.store_event(check_evaluation("good.csv", True, run_id="0f0e0d0c-0000-4000-8000-00000000000b"))
    record = storage.get_latest_asset_check_execution_by_key([CHECK])[CHECK]
    assert (record.status.value, record.partition) == ("FAILED", "locked.csv")
    storage.store_event(check_evaluation("locked.csv", True, run_id="0f0e0d0c-0000-4000-8000-00000000000c"))
    record = storage.get_latest_asset_check_execution_by_key([CHECK])[CHECK]
    assert (record.status.value, record.partition) == ("SUCCEEDED", "locked.csv")


def check_history(storage: SqliteEventLogStorage, limit: int = 100) -> list[tuple[str, str]]:
    return sorted((r.partition, r.status.value) for r in storage.get_asset_check_execution_history(CHECK, limit=limit))


def plan_a_run_of_300_and_fail_one(writer) -> None:
    """What a run over 300 documents stores first (one planned event per check,
    listing all 300), then one document's failed evaluation."""
    from duocthu_assets.runtime.dagster_private import AssetCheckEvaluationPlanned

    keys = [f"doc_{i:04d}.csv" for i in range(300)]
    subset = dg.StaticPartitionsDefinition(keys).subset_with_partition_keys(keys)  # public: a subset of these keys
    planned = AssetCheckEvaluationPlanned(asset_key=CHECK.asset_key, check_name=CHECK.name, partitions_subset=subset)
    writer.store_event(event_entry(DagsterEventType.ASSET_CHECK_EVALUATION_PLANNED, planned))
    writer.store_event(check_evaluation("doc_0007.csv", False))


def assert_a_partitioned_plan_leaves_rows_only_for_evaluations(reader) -> None:
    """The 300-document plan left no row per document (runtime/planned_checks.py):
    the one evaluated document has its row, FAILED, read with the reader's
    class; the 299 others have none — not evaluated, never PLANNED (which
    Dagster reads as *execution failed* or *skipped* once the run ends); the
    planned event itself is in the log once."""
    from sqlalchemy import text

    assert check_history(reader, limit=1000) == [("doc_0007.csv", "FAILED")]
    with reader.index_connection() as conn:
        planned_rows = conn.execute(text("SELECT count(*) FROM asset_check_executions WHERE execution_status = 'PLANNED'")).scalar()
        planned_events = conn.execute(text("SELECT count(*) FROM event_logs WHERE dagster_event_type = 'ASSET_CHECK_EVALUATION_PLANNED'")).scalar()
    assert (planned_rows, planned_events) == (0, 1)
