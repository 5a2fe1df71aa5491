"""Issue 20 item 6: the custom SQLite event log (``PooledSqliteEventLogStorage``,
the single-machine fast path) writes what Dagster's stock storage reads.

The same inbox is ingested twice through the real pipeline: once into an
instance whose history is written by the custom class (the dagster.yaml
duocthu writes), once into one written by Dagster's stock SQLite storage (a
hand-written dagster.yaml). Then both are read the way the UI reads them —
runs, materializations per asset and document, check evaluations per check
and document (execution records and evaluation events, with their messages),
materialized partitions — through the stock storage, and the custom-written
history is also read through the custom class. All three answers must be
equal. A Dagster upgrade that changes the tables, the columns or the event
encoding the custom class relies on breaks this test, loudly.
"""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import dagster as dg
import pytest

from duocthu_assets.definitions import build_definitions
from duocthu_assets.runtime.event_log import PooledSqliteEventLogStorage
from duocthu_assets.ingest.run import ingest
from duocthu_assets.runtime.instance import dagster_home_for, ensure_dagster_home

pytestmark = pytest.mark.slow

CSV = "ten_thuoc,gia\nAmoxicilin,1200\nGentamicin,5400\n"
LEGACY_DOC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "WordDocument".encode("utf-16-le") + b"\0" * 1024


def _inbox(root: Path) -> Path:
    inbox = root / "inbox"
    inbox.mkdir(parents=True)
    for i in range(3):
        (inbox / f"doc_{i}.csv").write_text(CSV.replace("1200", str(1200 + i)))
    (inbox / "old_format.doc").write_bytes(LEGACY_DOC)  # refused: its blocking check fails
    return inbox


def _stock_reader(home: Path, config_dir: Path) -> dg.DagsterInstance:
    """An instance over ``home``'s files with every storage Dagster's stock
    SQLite class (no ``event_log_storage`` override)."""
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "dagster.yaml").write_text(
        f"telemetry:\n  enabled: false\nstorage:\n  sqlite:\n    base_dir: {str(home)!r}\n"
    )
    return dg.DagsterInstance.from_config(str(config_dir))


def _check_keys() -> list[dg.AssetCheckKey]:
    defs = build_definitions(warehouse_root="memory://contract")
    return sorted(defs.resolve_asset_graph().asset_check_keys, key=lambda k: (k.asset_key.to_user_string(), k.name))


def _volatile(metadata_key: str) -> bool:
    """Metadata that differs between two ingests of the same inbox: where the
    warehouse is, and how long a step took."""
    return metadata_key == "path" or any(word in metadata_key for word in ("seconds", "duration", "_ms", "elapsed"))


def ui_view(instance: dg.DagsterInstance, check_keys: list[dg.AssetCheckKey]) -> dict:
    """What the UI shows, without the ids and times that differ between two
    ingests of the same inbox."""
    runs = instance.get_runs()
    run_view = Counter((r.job_name, r.status.value, r.tags.get("dagster/partition", ""),
                        r.tags.get("dagster/asset_partition_range_start", ""),
                        r.tags.get("dagster/asset_partition_range_end", "")) for r in runs)
    asset_keys = sorted(instance.get_asset_keys(), key=lambda k: k.to_user_string())
    materializations, partitions = {}, {}
    for key in asset_keys:
        records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=key), limit=10_000).records
        materializations[key.to_user_string()] = Counter(
            (r.partition_key, tuple(sorted((k, str(v.value)) for k, v in r.asset_materialization.metadata.items()
                                           if not _volatile(k))))
            for r in records
        )
        partitions[key.to_user_string()] = sorted(instance.get_materialized_partitions(key))
    checks, evaluations = {}, Counter()
    for check_key in check_keys:
        history = instance.event_log_storage.get_asset_check_execution_history(check_key, limit=10_000)
        checks[f"{check_key.asset_key.to_user_string()}:{check_key.name}"] = Counter(
            (r.partition, r.status.value) for r in history
        )
    for run in runs:
        for entry in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION):
            evaluation = entry.dagster_event.event_specific_data
            message = evaluation.metadata.get("message")
            evaluations[(evaluation.asset_key.to_user_string(), evaluation.check_name, evaluation.partition,
                         evaluation.passed, message.value if message else None)] += 1
    return {"runs": run_view, "materializations": materializations, "partitions": partitions,
            "check_executions": checks, "check_evaluations": evaluations,
            "dynamic_partitions": sorted(instance.get_dynamic_partitions("documents"))}


def test_dagsters_stock_storage_reads_what_the_custom_event_log_writes(tmp_path: Path):
    inbox = _inbox(tmp_path)
    custom_wh, stock_wh = tmp_path / "custom" / "wh", tmp_path / "stock" / "wh"

    # the stock-written instance: a dagster.yaml duocthu did not write is left alone
    stock_home = dagster_home_for(str(stock_wh))
    stock_home.mkdir(parents=True)
    (stock_home / "dagster.yaml").write_text("telemetry:\n  enabled: false\nnux:\n  enabled: false\n")
    ensure_dagster_home(stock_home)

    results = {}
    for name, warehouse in (("custom", custom_wh), ("stock", stock_wh)):
        results[name] = ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
    statuses = {d.source.rsplit("/", 1)[-1]: d.status for d in results["custom"].documents}
    assert statuses == {d.source.rsplit("/", 1)[-1]: d.status for d in results["stock"].documents}
    assert statuses["old_format.doc"] != "ok" and sum(s == "ok" for s in statuses.values()) == 3

    custom_home = dagster_home_for(str(custom_wh))
    assert "PooledSqliteEventLogStorage" in (custom_home / "dagster.yaml").read_text()
    checks = _check_keys()

    written_by_custom = dg.DagsterInstance.from_config(str(custom_home))
    assert isinstance(written_by_custom.event_log_storage, PooledSqliteEventLogStorage)
    read_by_stock = _stock_reader(custom_home, tmp_path / "reader_custom")
    assert type(read_by_stock.event_log_storage).__name__ == "SqliteEventLogStorage"
    stock_written = _stock_reader(stock_home, tmp_path / "reader_stock")
    try:
        by_custom = ui_view(written_by_custom, checks)
        by_stock = ui_view(read_by_stock, checks)
        reference = ui_view(stock_written, checks)
    finally:
        for instance in (written_by_custom, read_by_stock, stock_written):
            instance.dispose()

    # the history is not empty: every check evaluated per document, the refused one failed
    evaluations = by_stock["check_evaluations"]
    failed = [key for key in evaluations if key[3] is False and key[2]]
    assert [key[:3] for key in failed] == [("raw_documents", "document_accepted", "old_format.doc")], failed
    assert "legacy Word .doc" in failed[0][4]
    passed_documents = {key[2] for key in evaluations if key[3] is True and key[2]}
    assert {"doc_0.csv", "doc_1.csv", "doc_2.csv"} <= passed_documents
    assert sum(len(records) for records in by_stock["check_executions"].values()) > 0
    assert len(by_stock["materializations"]["chunks"]) == 3
    # Dagster's own storage also keeps a PLANNED row per document a run planned; the custom one
    # stores only evaluations (runtime/planned_checks.py: a check a blocked document never reached
    # has no row, where Dagster's reads execution failed)
    reference["check_executions"] = {
        key: Counter({k: n for k, n in rows.items() if k[1] != "PLANNED"}) for key, rows in reference["check_executions"].items()
    }
    for part in ("runs", "materializations", "partitions", "check_executions", "check_evaluations", "dynamic_partitions"):
        assert by_stock[part] == by_custom[part], f"the stock storage reads {part} differently from the custom one"
        assert by_stock[part] == reference[part], f"the custom event log wrote {part} unlike Dagster's own storage"
