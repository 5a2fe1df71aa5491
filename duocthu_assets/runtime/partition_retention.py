"""Retention inside a kept run: a document's rows that a later run rebuilt.

:mod:`duocthu_assets.runtime.retention` deletes whole runs, and Dagster deletes
nothing smaller. A range run of ``duocthu ingest`` (1,000 documents) stays
while one of its documents has its latest state there, so a document rebuilt
since by a nightly one-document run kept its old events in it: its ~0.32 MB
stayed beside the ~0.65 MB of the run that rebuilt it, and an instance grew
by about twice the changed documents' share (bench/RESULTS.md).

This deletes, inside finished runs that stay, a *superseded slice*:

- for an asset partition (a document's row in the Partitions tab), the run's
  asset events of that partition (materialization, planned, failed,
  observation), when a later run materialized the partition after every one
  of them, and the run holds neither the partition's newest materialization,
  nor its newest planned, failed or observation event, nor a materialization
  that a kept check row points at;
- for a check on a partition (a document's row in the Checks tab), the run's
  check rows and their evaluation events, when the check's newest row on that
  partition is another run's, written after them.

So nothing a partition's latest state is made of is deleted, and the UI reads
every document as before (tests/runtime/test_partition_retention.py, through
Dagster's readers and a real webserver's GraphQL). Before deleting, the plan
is checked against each partition's newest rows, read again by their own
query: a plan that would delete one is refused (:class:`RetentionRefused`),
nothing deleted.

Rows go from the cross-run index (events, their tags, check rows) and from
the run's own event log: on SQLite the run's own file, which is then
``VACUUM``-ed (a finished run's file is written by nobody; the rows of a
document in a range run share pages with its neighbours, so without it the
freed bytes stay inside pages no later write reuses). On PostgreSQL both are
one table.

Dagster has no public API for this (``wipe_asset_partitions`` wipes a
partition's whole history, the newest with it; ``delete_events`` a whole
run), so the statements use Dagster's tables through
:mod:`duocthu_assets.runtime.dagster_private`, with the connections of the
storage's public ``index_connection`` / ``run_connection``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import dagster as dg
import sqlalchemy as db

from .dagster_private import AssetCheckExecutionsTable as CHECKS
from .dagster_private import AssetEventTagsTable as TAGS
from .dagster_private import SqlEventLogStorageTable as EVENTS

MATERIALIZATION = dg.DagsterEventType.ASSET_MATERIALIZATION.value
ASSET_EVENT_TYPES = [
    MATERIALIZATION,
    dg.DagsterEventType.ASSET_MATERIALIZATION_PLANNED.value,
    dg.DagsterEventType.ASSET_FAILED_TO_MATERIALIZE.value,
    dg.DagsterEventType.ASSET_OBSERVATION.value,
]
CHECK_EVALUATION = dg.DagsterEventType.ASSET_CHECK_EVALUATION.value
CHUNK = 500  # ids per IN (…): under SQLite's and PostgreSQL's parameter limits


class RetentionRefused(RuntimeError):
    """A plan would have deleted some partition's newest row; nothing was deleted."""


@dataclass(frozen=True)
class AssetRow:
    """One asset event of the index: ``(asset_key, partition)`` is its slot."""

    id: int
    run_id: str
    event_type: str


@dataclass(frozen=True)
class CheckRow:
    """One ``asset_check_executions`` row of a check on a partition."""

    id: int
    run_id: str
    evaluation_id: int | None
    materialization_id: int | None


@dataclass
class SlicePlan:
    """What to delete: per run, its superseded (asset_key, partition) slots
    with their index event ids, and its superseded check rows."""

    asset_slices: dict[str, dict[tuple[str, str], list[int]]] = field(default_factory=lambda: defaultdict(dict))
    check_rows: dict[str, list[tuple[tuple[str, str, str], CheckRow]]] = field(default_factory=lambda: defaultdict(list))

    @property
    def runs(self) -> set[str]:
        return set(self.asset_slices) | set(self.check_rows)

    def counts(self) -> tuple[int, int]:
        """(asset partition slices, check rows)."""
        return (sum(len(s) for s in self.asset_slices.values()), sum(len(r) for r in self.check_rows.values()))


def superseded_asset_events(rows: Sequence[AssetRow], deletable: set[str], referenced: set[int]) -> dict[str, list[int]]:
    """``{run_id: event ids}`` of one asset partition's superseded slices.
    ``rows``: every asset event of the partition; ``deletable``: the runs
    whose rows may go; ``referenced``: materializations a kept check row
    points at."""
    materialized = [r.id for r in rows if r.event_type == MATERIALIZATION]
    if not materialized:
        return {}
    newest = max(materialized)
    newest_of_type: dict[str, AssetRow] = {}
    for row in rows:
        if row.event_type not in newest_of_type or newest_of_type[row.event_type].id < row.id:
            newest_of_type[row.event_type] = row
    protected = {row.run_id for row in newest_of_type.values()}
    by_run: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        by_run[row.run_id].append(row.id)
    return {
        run_id: sorted(ids)
        for run_id, ids in by_run.items()
        if run_id in deletable and run_id not in protected and max(ids) < newest and not referenced.intersection(ids)
    }


def superseded_check_rows(rows: Sequence[CheckRow], deletable: set[str]) -> list[CheckRow]:
    """The rows of one check on one partition that go: not the newest (the
    one the Checks tab reads), not of the newest's run, older than it."""
    if not rows:
        return []
    newest = max(rows, key=lambda r: r.id)
    return [r for r in rows if r.run_id in deletable and r.run_id != newest.run_id and r.id < newest.id]


def plan(conn, deletable: set[str]) -> SlicePlan:
    """Read the index (``conn``) and plan the superseded slices of the runs in
    ``deletable``. Only partitions with more than one row are read row by row."""
    result = SlicePlan()
    if not deletable:
        return result
    kept_targets: set[int] = set()
    for slot, rows in _check_rows_of_rebuilt_partitions(conn).items():
        gone = superseded_check_rows(rows, deletable)
        gone_ids = {r.id for r in gone}
        kept_targets.update(r.materialization_id for r in rows if r.id not in gone_ids and r.materialization_id)
        for row in gone:
            result.check_rows[row.run_id].append((slot, row))
    for slot, rows in _asset_rows_of_rebuilt_partitions(conn).items():
        for run_id, ids in superseded_asset_events(rows, deletable, kept_targets).items():
            result.asset_slices[run_id][slot] = ids
    return result


def _asset_rows_of_rebuilt_partitions(conn) -> dict[tuple[str, str], list[AssetRow]]:
    rebuilt = conn.execute(
        db.select(EVENTS.c.asset_key, EVENTS.c.partition)
        .where(EVENTS.c.dagster_event_type == MATERIALIZATION, EVENTS.c.asset_key.isnot(None),
               EVENTS.c.partition.isnot(None))
        .group_by(EVENTS.c.asset_key, EVENTS.c.partition)
        .having(db.func.count() > 1)
    ).all()
    out: dict[tuple[str, str], list[AssetRow]] = {}
    for asset_key, partition in rebuilt:
        rows = conn.execute(
            db.select(EVENTS.c.id, EVENTS.c.run_id, EVENTS.c.dagster_event_type).where(
                EVENTS.c.asset_key == asset_key, EVENTS.c.partition == partition,
                EVENTS.c.dagster_event_type.in_(ASSET_EVENT_TYPES))
        ).all()
        out[(asset_key, partition)] = [AssetRow(*row) for row in rows]
    return out


def _check_rows_of_rebuilt_partitions(conn) -> dict[tuple[str, str, str], list[CheckRow]]:
    rebuilt = conn.execute(
        db.select(CHECKS.c.asset_key, CHECKS.c.check_name, CHECKS.c.partition)
        .where(CHECKS.c.partition.isnot(None))
        .group_by(CHECKS.c.asset_key, CHECKS.c.check_name, CHECKS.c.partition)
        .having(db.func.count() > 1)
    ).all()
    out: dict[tuple[str, str, str], list[CheckRow]] = {}
    for asset_key, check_name, partition in rebuilt:
        rows = conn.execute(
            db.select(CHECKS.c.id, CHECKS.c.run_id, CHECKS.c.evaluation_event_storage_id,
                      CHECKS.c.materialization_event_storage_id).where(
                CHECKS.c.asset_key == asset_key, CHECKS.c.check_name == check_name, CHECKS.c.partition == partition)
        ).all()
        out[(asset_key, check_name, partition)] = [CheckRow(*row) for row in rows]
    return out


def refuse_if_latest(conn, slice_plan: SlicePlan) -> None:
    """Raise :class:`RetentionRefused` if the plan holds any partition's
    newest asset event of a kind, or a check's newest row on a partition, as
    read now by a query of its own."""
    for run_id, slices in slice_plan.asset_slices.items():
        for (asset_key, partition), ids in slices.items():
            newest = conn.execute(
                db.select(EVENTS.c.dagster_event_type, db.func.max(EVENTS.c.id)).where(
                    EVENTS.c.asset_key == asset_key, EVENTS.c.partition == partition,
                    EVENTS.c.dagster_event_type.in_(ASSET_EVENT_TYPES)).group_by(EVENTS.c.dagster_event_type)
            ).all()
            for event_type, newest_id in newest:
                if newest_id in ids:
                    raise RetentionRefused(
                        f"refusing to delete the latest {event_type} of {asset_key} partition {partition!r} "
                        f"(event {newest_id}, run {run_id}); nothing deleted")
    for run_id, rows in slice_plan.check_rows.items():
        for (asset_key, check_name, partition), row in rows:
            newest_id = conn.execute(
                db.select(db.func.max(CHECKS.c.id)).where(
                    CHECKS.c.asset_key == asset_key, CHECKS.c.check_name == check_name,
                    CHECKS.c.partition == partition)
            ).scalar()
            if newest_id == row.id:
                raise RetentionRefused(
                    f"refusing to delete the latest result of check {check_name} on {asset_key} partition "
                    f"{partition!r} (row {row.id}, run {run_id}); nothing deleted")


def delete_slices(storage, slice_plan: SlicePlan) -> int:
    """Delete the plan's rows, run by run: from the index (events, their
    tags, check rows), then from the run's own event log (its asset events
    by slot, its evaluations by their stored text, read from the index
    first). Returns the index event rows deleted; the caller compacts the
    runs' own logs (:func:`~duocthu_assets.runtime.run_log_retention.compact_run_logs`)."""
    deleted = 0
    for run_id in sorted(slice_plan.runs):
        slots = slice_plan.asset_slices.get(run_id, {})
        checks = [row for _, row in slice_plan.check_rows.get(run_id, [])]
        evaluations = sorted(r.evaluation_id for r in checks if r.evaluation_id)
        event_ids = sorted({i for ids in slots.values() for i in ids} | set(evaluations))
        with storage.index_connection() as conn:
            texts = [text for chunk in _chunks(evaluations)
                     for (text,) in conn.execute(db.select(EVENTS.c.event).where(EVENTS.c.id.in_(chunk)))]
            for chunk in _chunks(event_ids):
                conn.execute(TAGS.delete().where(TAGS.c.event_id.in_(chunk)))
                deleted += conn.execute(EVENTS.delete().where(EVENTS.c.id.in_(chunk))).rowcount or 0
            for chunk in _chunks(sorted(r.id for r in checks)):
                conn.execute(CHECKS.delete().where(CHECKS.c.id.in_(chunk)))
        # the run's own log (on PostgreSQL the same table: nothing left to find)
        with storage.run_connection(run_id) as conn:
            for asset_key, partition in slots:
                conn.execute(EVENTS.delete().where(
                    EVENTS.c.run_id == run_id, EVENTS.c.asset_key == asset_key, EVENTS.c.partition == partition,
                    EVENTS.c.dagster_event_type.in_(ASSET_EVENT_TYPES)))
            for chunk in _chunks(texts, 50):
                conn.execute(EVENTS.delete().where(
                    EVENTS.c.run_id == run_id, EVENTS.c.dagster_event_type == CHECK_EVALUATION,
                    EVENTS.c.event.in_(chunk)))
    return deleted


def _chunks(items: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
