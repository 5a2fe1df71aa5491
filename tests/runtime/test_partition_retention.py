"""Retention inside a kept run (duocthu_assets/runtime/partition_retention.py,
run_log_retention.py, through retention.prune_superseded_runs): a rebuilt
document's rows leave the range run that keeps the others, and every
partition's latest state reads the same through Dagster's own readers."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from duocthu_assets.definitions import build_definitions
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.runtime.partition_retention import (
    MATERIALIZATION,
    AssetRow,
    CheckRow,
    RetentionRefused,
    plan,
    refuse_if_latest,
    superseded_asset_events,
    superseded_check_rows,
)
from duocthu_assets.runtime.retention import prune_superseded_runs
from duocthu_assets.runtime.run_log_retention import PLUMBING
from tests.support.retention import (
    ingest_runs,
    latest_state,
    partitions_in_run,
    rebuilt_once,
)

PLANNED = dg.DagsterEventType.ASSET_MATERIALIZATION_PLANNED.value
FAILED = dg.DagsterEventType.ASSET_FAILED_TO_MATERIALIZE.value


# -- the plan, on rows -------------------------------------------------------
def test_a_rebuilt_partitions_older_run_goes_and_the_newest_stays():
    rows = [AssetRow(1, "old", PLANNED), AssetRow(2, "old", MATERIALIZATION),
            AssetRow(7, "new", PLANNED), AssetRow(8, "new", MATERIALIZATION)]
    assert superseded_asset_events(rows, {"old", "new"}, set()) == {"old": [1, 2]}


def test_a_partition_materialized_once_keeps_its_run():
    rows = [AssetRow(1, "only", PLANNED), AssetRow(2, "only", MATERIALIZATION)]
    assert superseded_asset_events(rows, {"only"}, set()) == {}


def test_runs_not_deletable_or_holding_a_newest_event_are_kept():
    rows = [AssetRow(1, "seed", MATERIALIZATION), AssetRow(5, "rebuilt", MATERIALIZATION),
            AssetRow(3, "running", PLANNED),  # not finished: the caller leaves it out of deletable
            AssetRow(9, "failed_after", PLANNED), AssetRow(10, "failed_after", FAILED)]
    # the newest planned and failed events are a later failed run's: kept (the UI shows the partition failed)
    assert superseded_asset_events(rows, {"seed", "rebuilt", "failed_after"}, set()) == {"seed": [1]}
    # a run whose events are not all older than the newest materialization is kept whole
    rows = [AssetRow(1, "range", MATERIALIZATION), AssetRow(6, "range", PLANNED), AssetRow(5, "one", MATERIALIZATION)]
    assert superseded_asset_events(rows, {"range", "one"}, set()) == {}


def test_a_materialization_a_kept_check_row_targets_is_kept():
    rows = [AssetRow(1, "seed", MATERIALIZATION), AssetRow(5, "rebuilt", MATERIALIZATION)]
    assert superseded_asset_events(rows, {"seed", "rebuilt"}, referenced={1}) == {}


def test_a_checks_newest_row_on_a_partition_is_never_superseded():
    rows = [CheckRow(1, "seed", 10, 2), CheckRow(4, "rebuilt", 40, 5)]
    assert superseded_check_rows(rows, {"seed", "rebuilt"}) == [rows[0]]
    # the newer run did not evaluate this check (the document was blocked first): the seed's row is the newest
    assert superseded_check_rows(rows[:1], {"seed"}) == []
    assert superseded_check_rows(rows, {"rebuilt"}) == []


# -- on a real instance --------------------------------------------------------
@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory) -> Path:
    return rebuilt_once(tmp_path_factory.mktemp("rebuilt"))


@pytest.mark.slow
def test_prune_deletes_a_rebuilt_documents_rows_in_the_run_kept_for_the_others(rebuilt: Path):
    check_keys = build_definitions(str(rebuilt)).resolve_asset_graph().asset_check_keys
    instance = open_instance(str(rebuilt))
    try:
        range_run, a_run = ingest_runs(instance)
        before = latest_state(instance, check_keys)
        run_stats, step_stats = instance.get_run_stats(range_run), instance.get_run_step_stats(range_run)
        assert partitions_in_run(instance, range_run) == {"asset": {"a.csv", "b.csv", "c.csv"},
                                                           "check": {"a.csv", "b.csv", "c.csv"}}

        result = prune_superseded_runs(instance, check_keys, keep_recent=0)
        after = latest_state(instance, check_keys)
        remaining = {r.run_id for r in instance.get_runs()}
        in_range_run = partitions_in_run(instance, range_run)
        plumbing_left = [e for e in instance.all_logs(range_run)
                         if e.dagster_event and e.dagster_event.event_type_value in PLUMBING]
        run_stats_after, step_stats_after = instance.get_run_stats(range_run), instance.get_run_step_stats(range_run)
        again = prune_superseded_runs(instance, check_keys, keep_recent=0)
    finally:
        instance.dispose()

    assert {range_run, a_run} <= remaining, "both runs hold some document's latest state"
    assert result.partition_slices >= 6 and result.check_rows >= 20, result.summary()
    # the range run no longer names a.csv; b.csv and c.csv are untouched
    assert in_range_run == {"asset": {"b.csv", "c.csv"}, "check": {"b.csv", "c.csv"}}
    # every partition's latest materialization and every check's latest state read the same
    assert after == before
    assert after[('["chunks"]', "a.csv")][1] == a_run and after[('["chunks"]', "b.csv")][1] == range_run
    # the run's own log lost its plumbing, not its statistics (the run page, the Gantt chart)
    assert not plumbing_left and result.plumbing_events > 0
    assert run_stats_after.steps_succeeded == run_stats.steps_succeeded
    assert run_stats_after.start_time == run_stats.start_time and run_stats_after.end_time == run_stats.end_time
    assert [(s.step_key, s.status, s.start_time, s.end_time, s.markers) for s in step_stats_after] == [
        (s.step_key, s.status, s.start_time, s.end_time, s.markers) for s in step_stats]
    # a second prune finds nothing left to delete
    assert (again.partition_slices, again.check_rows, again.plumbing_events, again.runs_deleted) == (0, 0, 0, [])


@pytest.mark.slow
def test_a_plan_holding_a_partitions_newest_row_is_refused_and_nothing_deleted(tmp_path: Path):
    warehouse = rebuilt_once(tmp_path, names=("a", "b"))
    instance = open_instance(str(warehouse))
    try:
        range_run, a_run = ingest_runs(instance)
        newest = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("raw_documents"), asset_partitions=["a.csv"]), limit=1
        ).records[0]
        assert newest.run_id == a_run
        storage = instance.event_log_storage
        with storage.index_connection() as conn:
            slices = plan(conn, {range_run, a_run})
            assert set(slices.asset_slices) == {range_run}, "a's newest run is never in the plan"
            refuse_if_latest(conn, slices)  # the real plan passes
            slices.asset_slices[a_run][('["raw_documents"]', "a.csv")] = [newest.storage_id]
            with pytest.raises(RetentionRefused, match=r"refusing to delete the latest ASSET_MATERIALIZATION of "
                               r"\[\"raw_documents\"\] partition 'a.csv' \(event \d+, run .*\); nothing deleted"):
                refuse_if_latest(conn, slices)
            slices.asset_slices.pop(a_run)
            check_slot, newest_row = next(
                (slot, row) for rows in plan(conn, {range_run}).check_rows.values() for slot, row in rows)
            slices.check_rows[a_run].append((check_slot, newest_row.__class__(
                id=_newest_check_row_id(conn, check_slot), run_id=a_run, evaluation_id=None, materialization_id=None)))
            with pytest.raises(RetentionRefused, match=rf"refusing to delete the latest result of check "
                               rf"{check_slot[1]} on .* partition 'a.csv'"):
                refuse_if_latest(conn, slices)
        assert instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("raw_documents"), asset_partitions=["a.csv"]), limit=10
        ).records[0].storage_id == newest.storage_id
        assert "a.csv" in partitions_in_run(instance, range_run)["asset"], "refused: nothing deleted"
    finally:
        instance.dispose()


def _newest_check_row_id(conn, slot: tuple[str, str, str]) -> int:
    from duocthu_assets.runtime.partition_retention import CHECKS

    asset_key, check_name, partition = slot
    return conn.execute(
        CHECKS.select().with_only_columns(CHECKS.c.id).where(
            CHECKS.c.asset_key == asset_key, CHECKS.c.check_name == check_name, CHECKS.c.partition == partition)
        .order_by(CHECKS.c.id.desc()).limit(1)).scalar()
