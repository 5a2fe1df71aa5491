"""Retention (duocthu_assets/runtime/retention.py): superseded runs deleted
through Dagster's public API, every document's latest state kept as the UI
reads it."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.runtime.instance import dagster_home_for, open_instance
from duocthu_assets.runtime.retention import live_runs, prune_superseded_runs
from tests.support.ingest import write_price_csv
from tests.support.ui_helpers import (
    check_executions,
    dagster_webserver,
    free_port,
    latest_materialization,
    partition_statuses,
)

ASSETS = ["raw_documents", "parsed_documents", "chunks", "embeddings"]
DOCUMENTS = ["a.csv", "b.csv", "c.csv"]


def _documents_as_the_ui_reads_them(server, check: dg.AssetCheckKey) -> dict:
    """Each document's latest materialization of ``chunks`` and latest
    execution of ``check``, through the webserver's GraphQL."""
    out = {}
    for doc in DOCUMENTS:
        executions = check_executions(server, check.asset_key.path[-1], check.name, doc)
        out[doc] = (latest_materialization(server, "chunks", doc), executions[0] if executions else None)
    return out


def _ingest(inbox: Path, warehouse: Path) -> None:
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0


def _history(tmp_path: Path) -> tuple[Path, Path]:
    """Three documents ingested, then ``a`` changed and ingested twice: the
    first run of ``a`` alone is superseded, so are the earlier index refreshes;
    the first range run still holds ``b`` and ``c``."""
    inbox, warehouse = tmp_path / "inbox", tmp_path / "wh"
    inbox.mkdir()
    for name in ("a", "b", "c"):
        write_price_csv(inbox / f"{name}.csv", f"Thuoc {name}", 100)
    _ingest(inbox, warehouse)
    for price in (200, 300):
        write_price_csv(inbox / "a.csv", "Thuoc a", price)
        _ingest(inbox, warehouse)
    return inbox, warehouse


def _latest_runs(instance: dg.DagsterInstance, documents: list[str]) -> dict:
    """The run of each document's latest materialization, per asset."""
    out = {}
    for asset in ASSETS:
        for doc in documents:
            records = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[doc]), limit=1
            ).records
            out[(asset, doc)] = records[0].run_id if records else None
    return out


def _run_files(warehouse: Path) -> set[str]:
    runs = dagster_home_for(str(warehouse)) / "history" / "runs"
    return {p.stem for p in runs.glob("*.db") if p.stem != "index"}


@pytest.mark.slow
def test_prune_keeps_every_documents_latest_state_as_the_ui_reads_it(tmp_path: Path):
    _, warehouse = _history(tmp_path)
    check_keys = build_definitions(str(warehouse)).resolve_asset_graph().asset_check_keys
    instance = open_instance(str(warehouse))
    try:
        before_runs = {r.run_id for r in instance.get_runs()}
        latest_before = _latest_runs(instance, ["a.csv", "b.csv", "c.csv"])
    finally:
        instance.dispose()
    server = dagster_webserver(warehouse, free_port(), tmp_path / "web.log")
    try:
        server.start(timeout=240)
        ui_before = partition_statuses(server, ASSETS)
        chunks_check = min(k.name for k in check_keys if k.asset_key == dg.AssetKey("chunks"))
        chunks_check = dg.AssetCheckKey(dg.AssetKey("chunks"), chunks_check)
        docs_before = _documents_as_the_ui_reads_them(server, chunks_check)
        instance = open_instance(str(warehouse))
        try:
            result = prune_superseded_runs(instance, check_keys, keep_recent=0)
            after_runs = {r.run_id for r in instance.get_runs()}
            latest_after = _latest_runs(instance, ["a.csv", "b.csv", "c.csv"])
            live = live_runs(instance, check_keys)
            a_rows = instance.event_log_storage.get_asset_check_execution_history(
                next(k for k in check_keys if k.asset_key == dg.AssetKey("chunks")), limit=100
            )
        finally:
            instance.dispose()
        ui_after = partition_statuses(server, ASSETS)
        docs_after = _documents_as_the_ui_reads_them(server, chunks_check)
    finally:
        server.stop()

    deleted = set(result.runs_deleted)
    # something was superseded (a's first rebuild, the earlier index refreshes) and is gone
    assert len(deleted) >= 2, result.summary()
    assert after_runs == before_runs - deleted
    assert not deleted & _run_files(warehouse), "a deleted run's own SQLite file is removed"
    assert {row.run_id for row in a_rows} <= after_runs, "a deleted run's check rows go with it"
    # every run still there holds some document's latest state, or is the newest
    assert latest_after == latest_before and None not in latest_after.values()
    assert set(latest_before.values()) <= after_runs <= live | set(latest_before.values())
    # what the UI reads: every partition's status and every check's, unchanged
    assert ui_after == ui_before
    assert set(ui_after["chunks"]["asset"]["materializedPartitions"]) == {"a.csv", "b.csv", "c.csv"}
    # each document's latest materialization and latest check execution, unchanged; inside the range run
    # kept for b and c, a's superseded rows were deleted (runtime/partition_retention.py)
    assert docs_after == docs_before and all(m and e for m, e in docs_after.values())
    assert result.partition_slices > 0 and result.check_rows > 0, result.summary()


def test_prune_refuses_a_negative_keep_recent(tmp_path: Path):
    instance = dg.DagsterInstance.ephemeral()
    with pytest.raises(ValueError, match="keep_recent must be 0 or more, not -1"):
        prune_superseded_runs(instance, [], keep_recent=-1)


def test_prune_on_an_empty_instance_deletes_nothing(tmp_path: Path, capsys):
    assert main(["prune", "--warehouse", str(tmp_path / "wh"), "--dry-run"]) == 0
    assert "would delete 0 superseded run(s) of 0 finished" in capsys.readouterr().out
