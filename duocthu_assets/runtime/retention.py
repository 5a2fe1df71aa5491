"""Retention: the runs whose every output has since been rebuilt, deleted.

Every ingest adds runs, events and check rows to the Dagster instance, and
Dagster never removes any: a document re-ingested every night would add its
~320 KB a night forever. A run is *superseded* when none of what it left is
still a partition's latest state:

- the latest materialization (or failed materialization) of an asset
  partition, the document's row in the Partitions tab;
- the latest execution of a check on a partition (planned, passed, failed or
  skipped), the document's row in the Checks tab.

A finished run that holds none of these is deleted with Dagster's public
``DagsterInstance.delete_run``; the run's check rows and (on SQLite) its own
file go with it (:mod:`duocthu_assets.runtime.run_deletion`). What the UI
shows for every document is then what it showed before. Kept whatever they
hold: runs not finished (queued, starting, started, canceling), runs created
after the prune started, and the newest ``keep_recent`` runs (what the Runs
page opens on).

Then, inside the finished runs that stay (not the newest ``keep_recent``),
the rows of partitions a later run rebuilt are deleted
(:mod:`duocthu_assets.runtime.partition_retention`): a range run that keeps
one document's latest state no longer keeps the others' superseded events.
And the plumbing events of those runs' own logs (one per step's input and
output, read by nothing but the run's event list) are deleted
(:mod:`duocthu_assets.runtime.run_log_retention`).

The candidates are listed *before* the latest states are read, so a run
that finishes meanwhile is not a candidate. Cost: every asset
materialization is read once (its event decoded), the checks' latest
executions from one query per check; `duocthu prune` runs it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import dagster as dg

from .partition_retention import delete_slices, plan, refuse_if_latest
from .run_log_retention import compact_run_logs, delete_plumbing

FINISHED = [dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED]
PAGE = 5_000
DEFAULT_KEEP_RECENT = 10


@dataclass
class PruneResult:
    runs_finished: int = 0
    runs_live: int = 0
    runs_deleted: list[str] = field(default_factory=list)
    seconds: float = 0.0
    dry_run: bool = False
    runs_trimmed: int = 0
    partition_slices: int = 0
    check_rows: int = 0
    plumbing_events: int = 0

    def summary(self) -> str:
        verb = "would delete" if self.dry_run else "deleted"
        plumbing = "" if self.dry_run else f"; {self.plumbing_events} step input/output event(s) of older runs"
        return (f"{verb} {len(self.runs_deleted)} superseded run(s) of {self.runs_finished} finished; "
                f"{self.runs_live} hold a document's latest state; inside {self.runs_trimmed} of them, "
                f"{self.partition_slices} rebuilt partition(s)' events and {self.check_rows} check row(s)"
                f"{plumbing} ({self.seconds:.1f} s)")


def _latest_materialization_runs(instance: dg.DagsterInstance) -> set[str]:
    """The runs holding the latest materialization or failed materialization
    of some asset partition (or of an unpartitioned asset)."""
    latest: dict[tuple, tuple[int, str]] = {}
    storage = instance.event_log_storage
    for key in instance.get_asset_keys():
        for fetch in (storage.fetch_materializations, storage.fetch_failed_materializations):
            cursor = None
            while True:
                result = fetch(dg.AssetRecordsFilter(asset_key=key), limit=PAGE, cursor=cursor)
                for record in result.records:
                    slot = (key, record.partition_key)
                    if slot not in latest or latest[slot][0] < record.storage_id:
                        latest[slot] = (record.storage_id, record.run_id)
                if not result.has_more:
                    break
                cursor = result.cursor
    return {run_id for _, run_id in latest.values()}


def _latest_check_runs(instance: dg.DagsterInstance, check_keys: Iterable[dg.AssetCheckKey]) -> set[str]:
    """The runs holding the latest execution (planned, passed, failed or
    skipped) of some check on some partition: what the Checks tab reads,
    one query per check, no event decoded."""
    keys = list(check_keys)
    if not keys:
        return set()
    infos = instance.event_log_storage.get_asset_check_partition_info(keys)
    return {info.latest_planned_run_id for info in infos if info.latest_planned_run_id}


def live_runs(instance: dg.DagsterInstance, check_keys: Iterable[dg.AssetCheckKey]) -> set[str]:
    return _latest_materialization_runs(instance) | _latest_check_runs(instance, check_keys)


def prune_superseded_runs(
    instance: dg.DagsterInstance,
    check_keys: Iterable[dg.AssetCheckKey],
    keep_recent: int = DEFAULT_KEEP_RECENT,
    dry_run: bool = False,
    within_runs: bool = True,
) -> PruneResult:
    """Delete every finished run that holds no partition's latest state (see
    the module's docstring). ``check_keys``: every check of the code location
    (``Definitions.resolve_asset_graph().asset_check_keys``). ``within_runs``:
    also delete the rebuilt partitions' rows inside the runs that stay."""
    if keep_recent < 0:
        raise ValueError(f"keep_recent must be 0 or more, not {keep_recent}")
    started = time.perf_counter()
    now = datetime.now(UTC)
    finished = instance.get_runs(filters=dg.RunsFilter(statuses=FINISHED, created_before=now))
    candidates = [run.run_id for run in finished]
    succeeded = {run.run_id for run in finished if run.status == dg.DagsterRunStatus.SUCCESS}
    recent = {run.run_id for run in instance.get_runs(limit=keep_recent)} if keep_recent else set()
    live = live_runs(instance, check_keys)
    result = PruneResult(runs_finished=len(candidates), runs_live=len(live & set(candidates)), dry_run=dry_run)
    for run_id in candidates:
        if run_id in live or run_id in recent:
            continue
        if not dry_run:
            instance.delete_run(run_id)
        result.runs_deleted.append(run_id)
    if within_runs:
        _trim_kept_runs(instance, set(candidates) - set(result.runs_deleted) - recent, succeeded, result)
    result.seconds = time.perf_counter() - started
    return result


def _trim_kept_runs(instance: dg.DagsterInstance, runs: set[str], succeeded: set[str], result: PruneResult) -> None:
    """Inside ``runs`` (finished, kept, not the newest): the rebuilt
    partitions' rows; and the plumbing events of the successful ones' own
    logs (a failed run keeps them: re-execution from failure reads its step
    outputs); then those logs compacted. On the SQL event logs (SQLite, PostgreSQL) duocthu
    selects."""
    storage = instance.event_log_storage
    if not runs or not hasattr(storage, "index_connection"):
        return
    with storage.index_connection() as conn:
        slices = plan(conn, runs)
        refuse_if_latest(conn, slices)
    result.runs_trimmed = len(slices.runs)
    result.partition_slices, result.check_rows = slices.counts()
    if result.dry_run:
        return
    delete_slices(storage, slices)
    plumbing = delete_plumbing(storage, runs & succeeded)
    result.plumbing_events = sum(plumbing.values())
    compact_run_logs(storage, slices.runs | set(plumbing))
