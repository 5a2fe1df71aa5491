"""A history to prune, and what Dagster's readers say of it
(tests/runtime/test_partition_retention.py, tests/scale/test_scale_postgres.py)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from duocthu_assets.cli import main
from tests.support.ingest import write_price_csv

DOCUMENTS = ("a.csv", "b.csv", "c.csv")


def rebuilt_once(root: Path, names: tuple[str, ...] = ("a", "b", "c")) -> Path:
    """``names`` ingested in one range run, then ``a`` changed and rebuilt
    alone by a second `duocthu ingest`; returns the warehouse (under the
    instance the environment selects)."""
    inbox, warehouse = root / "inbox", root / "wh"
    inbox.mkdir(parents=True)
    for name in names:
        write_price_csv(inbox / f"{name}.csv", f"Thuoc {name}", 100)
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0
    write_price_csv(inbox / "a.csv", "Thuoc a", 200)
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0
    return warehouse


def latest_state(instance: dg.DagsterInstance, check_keys) -> dict:
    """Each partition's latest materialization (storage id, run) per asset,
    each asset's latest materialization's run, and each check's latest state
    per partition, as Dagster's readers return them."""
    state: dict = {}
    for key in sorted(instance.get_asset_keys(), key=lambda k: k.to_string()):
        event = instance.get_latest_materialization_event(key)
        state[("latest", key.to_string())] = event.run_id if event else None
        for doc in DOCUMENTS:
            records = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=key, asset_partitions=[doc]), limit=1).records
            state[(key.to_string(), doc)] = (records[0].storage_id, records[0].run_id) if records else None
    for info in instance.event_log_storage.get_asset_check_partition_info(list(check_keys)):
        state[(info.check_key.to_user_string(), info.partition_key)] = info
    return state


def partitions_in_run(instance: dg.DagsterInstance, run_id: str) -> dict[str, set[str]]:
    """The partitions the run's own log names: in asset events, in check evaluations."""
    out: dict[str, set[str]] = {"asset": set(), "check": set()}
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is None:
            continue
        if event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            out["check"].add(event.event_specific_data.partition)
        elif event.partition:
            out["asset"].add(event.partition)
    return out


def ingest_runs(instance: dg.DagsterInstance) -> list[str]:
    """The ingest runs' ids, oldest first."""
    return [r.run_id for r in reversed(instance.get_runs()) if r.job_name == "ingest"]  # get_runs: newest first
