"""Retention of a run's log: the plumbing events of older runs, deleted.

A nightly re-ingest runs one document per run (Dagster runs one partition or
a contiguous range), and such a run's own event log is ~0.47 MB, more than
the document's whole share of a batched ingest (~0.32 MB). About 45 % of it
is Dagster's plumbing, one event per output or input of every step:
``STEP_OUTPUT`` (one per asset and per check: 42 events, 63 KB),
``STEP_INPUT``, ``LOADED_INPUT`` and ``HANDLED_OUTPUT`` (36 KB). Nothing
reads them but the run's own log page (the Runs page's event list):
Dagster's run and step statistics (status, timings, the Gantt chart's
markers) come from the run's row and its step, engine and resource events
(``STEP_STATS_EVENT_TYPES``), all kept; the asset and check pages read the
index. Dagster's own guide to shrinking its database deletes the same
kinds of events from older runs ("Cleaning older data from your Dagster
database", docs.dagster.io).

So for every successful run that is not among the newest ``keep_recent``
(a failed run keeps them: re-execution from failure reads its outputs),
those event types are deleted from its own event log, and the log compacted
(on SQLite the run's own file, ``VACUUM``-ed; written by nobody once the run
finished). What stays in every run: its start and end, every step's start
and outcome, the engine's and resources' events, its materializations, check
evaluations and plans, the captured logs' pointer (``LOGS_CAPTURED``), and
every message a step logged. A run
already compacted has none left, so a later prune deletes nothing and
compacts nothing there. Tested in tests/runtime/test_partition_retention.py
(run and step statistics read the same before and after).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import dagster as dg

from .dagster_private import SqlEventLogStorageTable as EVENTS

PLUMBING = sorted(t.value for t in (
    dg.DagsterEventType.STEP_OUTPUT,
    dg.DagsterEventType.STEP_INPUT,
    dg.DagsterEventType.LOADED_INPUT,
    dg.DagsterEventType.HANDLED_OUTPUT,
))


def delete_plumbing(storage, run_ids: Iterable[str]) -> dict[str, int]:
    """Delete the plumbing events of each run in ``run_ids`` (finished runs
    the caller keeps) from its own event log. Returns ``{run_id: events
    deleted}`` for the runs that lost some (the caller compacts them)."""
    deleted: dict[str, int] = {}
    for run_id in sorted(run_ids):
        if not _has_own_log(storage, run_id):
            continue
        with storage.run_connection(run_id) as conn:
            count = conn.execute(EVENTS.delete().where(
                EVENTS.c.run_id == run_id, EVENTS.c.dagster_event_type.in_(PLUMBING))).rowcount or 0
        if count:
            deleted[run_id] = count
    return deleted


def compact_run_logs(storage, run_ids: Iterable[str]) -> None:
    """Give the freed pages of these runs' own logs back (SQLite: ``VACUUM``
    of each run's file; PostgreSQL: nothing, its autovacuum reuses them)."""
    compact = getattr(storage, "compact_run_storage", None)
    if compact is None:
        return
    for run_id in sorted(run_ids):
        compact(run_id)


def _has_own_log(storage, run_id: str) -> bool:
    """False for a run with no file of its own on SQLite: opening one would
    create it, with every table of Dagster's schema."""
    path_for_shard = getattr(storage, "path_for_shard", None)
    return path_for_shard is None or os.path.exists(path_for_shard(run_id))
