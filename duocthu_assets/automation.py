"""The inbox sensor, the nightly re-ingest schedule, and the sensors that keep
the registry and the index current after every ingest run."""


import hashlib
import logging
import os
from pathlib import Path

import dagster as dg

from .inbox.scan import DEFAULT_INBOX, INBOX_ENV, Discovery, inbox_root, scan  # noqa: F401 - the inbox's names, kept here too
from .jobs import BUILD_KEY_TAG, REFRESH_TAGS, ingest_job, refresh_index_job
from .inbox.registration import mark_removed, needs_build, register_files
from .inbox.registry import DocumentRecord, Registry
from .assets.partitions import documents
from .runtime import inbox_snapshot
from .runtime.run_outcome import tag_failed_run
from .runtime.step_failures import transient_failure
from .resources import WarehouseResource
from .version import code_version
from .warehouse import Warehouse

TIMEZONE_ENV = "DUOCTHU_TIMEZONE"
DEFAULT_TIMEZONE = "Asia/Ho_Chi_Minh"


def build_key(record: DocumentRecord, version: str) -> str:
    settings = ",".join(f"{k}={v}" for k, v in sorted(record.settings.items()))
    return f"{record.doc_id}@{record.sha256[:16]}@{version}@{record.status}@{hashlib.sha256(settings.encode()).hexdigest()[:8]}"


def scan_inbox(registry: Registry, inbox: Path) -> tuple[list[DocumentRecord], list[DocumentRecord]]:
    """Register every file under the inbox; mark the vanished ones removed."""
    found = scan([inbox]) if inbox.is_dir() else Discovery()
    present, vanished = register_files(registry, found.found, refused=found.refused)
    removed = mark_removed(registry, {str(f) for _, f in found.found}, inbox)
    for problem in [*found.problems, *vanished]:
        logging.getLogger("duocthu.inbox").warning("not ingested: %s", problem)
    registry.save()
    return present, removed


def due_runs(records: list[DocumentRecord], version: str) -> list[dg.RunRequest]:
    """A run for every document whose content, settings or code changed since
    it was last built (or that was removed); its run key names what it is
    built from, so the same change never runs twice."""
    return [
        dg.RunRequest(
            run_key=build_key(r, version),
            partition_key=r.doc_id,
            tags={BUILD_KEY_TAG: build_key(r, version)},
        )
        for r in records
        if needs_build(r, version)
    ]


def plan_requests(context, registry: Registry, records: list[DocumentRecord]) -> dg.SensorResult:
    """A partition for every new document; a run for every one whose content,
    settings or code changed since it was last built (or that was removed)."""
    existing = set(context.instance.get_dynamic_partitions(documents.name))
    new_keys = sorted({r.doc_id for r in records} - existing)
    return dg.SensorResult(
        run_requests=due_runs(records, code_version()),
        dynamic_partitions_requests=[documents.build_add_request(new_keys)] if new_keys else [],
    )


def plan_schedule(context, records: list[DocumentRecord]) -> list[dg.RunRequest] | dg.SkipReason:
    """What a schedule may return: run requests, or why there are none. A
    schedule cannot add partitions (Dagster accepts only RunRequest and
    SkipReason from it), so a document new since the last sensor tick is left
    to ``inbox_sensor``, which adds its partition and runs it."""
    existing = set(context.instance.get_dynamic_partitions(documents.name))
    due = due_runs(records, code_version())
    # a schedule's run key only dedupes within one tick: a build still queued
    # or running from an earlier tick (or from the sensor) is not asked again
    in_flight = _builds_in_flight(context.instance, [r.tags[BUILD_KEY_TAG] for r in due])
    runs = [r for r in due if r.partition_key in existing and r.tags[BUILD_KEY_TAG] not in in_flight]
    if runs:
        return runs
    waiting = sum(r.partition_key not in existing for r in due)
    unchanged = len(records) - len(due)
    why = f"{unchanged} document(s) unchanged since built"
    if waiting:
        why += f"; {waiting} new document(s) wait for inbox_sensor to add their partitions"
    if in_flight:
        why += f"; {len(in_flight)} already queued or running"
    return dg.SkipReason(why)


_UNFINISHED = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
]


def _builds_in_flight(instance: dg.DagsterInstance, keys: list[str]) -> set[str]:
    if not keys:
        return set()
    runs = instance.get_runs(filters=dg.RunsFilter(tags={BUILD_KEY_TAG: keys}, statuses=_UNFINISHED))
    return {run.tags[BUILD_KEY_TAG] for run in runs}


NIGHTLY_CRON_ENV = "DUOCTHU_NIGHTLY_CRON"
DEFAULT_NIGHTLY_CRON = "0 2 * * *"


@dg.sensor(
    job=ingest_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="A partition per new file under the inbox (DUOCTHU_INBOX, default data/inbox); a run per new or "
    "changed (sha256) file; a removed file is marked removed and leaves the index, its history kept.",
)
def inbox_sensor(context: dg.SensorEvaluationContext, warehouse: WarehouseResource) -> dg.SensorResult:
    if unchanged_inbox(context.instance, warehouse.get(), inbox_root()) is not None:
        return dg.SensorResult(run_requests=[], dynamic_partitions_requests=[])  # as the full path answers then
    registry = Registry(warehouse.get())
    present, removed = scan_inbox(registry, inbox_root())
    return plan_requests(context, registry, present + removed)


@dg.schedule(
    cron_schedule=os.environ.get(NIGHTLY_CRON_ENV, DEFAULT_NIGHTLY_CRON),
    job=ingest_job,
    execution_timezone=os.environ.get(TIMEZONE_ENV, DEFAULT_TIMEZONE),
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="02:00 nightly (DUOCTHU_NIGHTLY_CRON): re-materialize every document whose content, settings or "
    "code changed; unchanged documents cost a stat() each and no run; new files are inbox_sensor's.",
)
def nightly_reingest(context: dg.ScheduleEvaluationContext, warehouse: WarehouseResource):
    unchanged = unchanged_inbox(context.instance, warehouse.get(), inbox_root())
    if unchanged is not None:  # what the full path below would answer, from the last ingest's snapshot
        return dg.SkipReason(f"{unchanged} document(s) unchanged since built")
    registry = Registry(warehouse.get())
    present, removed = scan_inbox(registry, inbox_root())
    return plan_schedule(context, present + removed)


def unchanged_inbox(instance: dg.DagsterInstance, warehouse: Warehouse, inbox: Path) -> int | None:
    """How many documents the inbox holds when it, the registry, the
    warehouse's folders and the runs are as the last `duocthu ingest` of
    this inbox left them, with nothing due and no file missing; None
    otherwise (see ``runtime/inbox_snapshot.py``)."""
    if not warehouse.is_local:
        return None
    listing = inbox_snapshot.listing_digest([inbox])
    key = inbox_snapshot.snapshot_key(instance, warehouse.root.path, [str(inbox)], None, code_version(), listing)
    remembered = inbox_snapshot.load(instance, key)
    if remembered is None or not remembered.get("all_present"):
        return None
    return len(remembered["documents"])


def record_built(registry: Registry, doc_ids: list[str], version: str) -> None:
    for doc_id in doc_ids:
        record = registry.records.get(doc_id)
        if record is not None:
            record.built = {"sha256": record.sha256, "code_version": version, "settings": record.settings, "status": record.status}
            if record.refused:
                record.built["refused"] = record.refused
    registry.save()


_WAITING = [dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED]


def _after_ingest(context: dg.RunStatusSensorContext, warehouse: WarehouseResource) -> list[dg.RunRequest] | dg.SkipReason:
    run = context.dagster_run
    partition = run.tags.get("dagster/partition")
    if partition and transient_failure(warehouse.get(), partition) is None:  # else: due again (nightly, `duocthu ingest`)
        record_built(Registry(warehouse.get()), [partition], code_version())
    waiting = context.instance.get_run_records(
        filters=dg.RunsFilter(job_name=refresh_index_job.name, statuses=_WAITING), limit=1
    )
    if waiting:
        # it has not started: it reads what this run left, so one refresh serves
        # every ingest run that ends before it starts (ten new files: one or two
        # refreshes in the Runs list, not ten)
        return dg.SkipReason(f"run {waiting[0].dagster_run.run_id} of {refresh_index_job.name}, queued, will include it")
    return [dg.RunRequest(run_key=f"index-after-{run.run_id}", job_name=refresh_index_job.name, tags=REFRESH_TAGS)]


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[ingest_job],
    request_job=refresh_index_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After an ingest run succeeds: record what the document was built with, rebuild the index.",
)
def index_after_ingest_success(context: dg.RunStatusSensorContext, warehouse: WarehouseResource):
    return _after_ingest(context, warehouse)


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.FAILURE,
    monitored_jobs=[ingest_job],
    request_job=refresh_index_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After an ingest run fails: tag it with its outcome (duocthu/outcome: blocked, with "
    "duocthu/blocked naming each document and rule; or error), record it, and rebuild the index so a blocked "
    "document's earlier chunks leave it.",
)
def index_after_ingest_failure(context: dg.RunStatusSensorContext, warehouse: WarehouseResource):
    tag_failed_run(context.instance, context.dagster_run.run_id)
    return _after_ingest(context, warehouse)

