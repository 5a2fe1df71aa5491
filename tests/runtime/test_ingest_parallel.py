"""`duocthu ingest` over many documents: how runs are planned, the parallel
worker processes, and the pooled event log storage behind them.

The fixed cost per document (issue 2) is paid down by running a large range
as one part per worker process and by keeping the event log's connections
open; neither may change what a document gets or what the instance records.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from duocthu_assets.cli import main
from duocthu_assets.ingest.run import ingest
from duocthu_assets.ingest.plan import EMBEDDING_ASSET, SPLIT_AT, WORKERS_ENV, PlannedRun, plan_runs, split_evenly
from duocthu_assets.runtime.dagster_private import SqliteEventLogStorage
from duocthu_assets.runtime.instance import dagster_home_for, open_instance
from duocthu_assets import warehouse as storage
from duocthu_assets.warehouse import Warehouse

from tests.support.docgen import make_scanned_pdf
from tests.support.ingest import tree_digest
from tests.support.paths import INBOX

PRE_EMBEDDING = frozenset({"raw_documents", "segments", "lifted_blocks", "parsed_documents", "crops", "chunks"})
ALL = PRE_EMBEDDING | {EMBEDDING_ASSET}


# -- planning (pure) ---------------------------------------------------------
def test_split_evenly_keeps_order_and_every_key():
    keys = [f"d{i:02d}" for i in range(7)]
    parts = split_evenly(keys, 3)
    assert parts == [["d00", "d01", "d02"], ["d03", "d04"], ["d05", "d06"]]
    assert split_evenly(["a"], 4) == [["a"]]


def test_large_range_is_split_per_worker_and_embeds_later():
    order = [f"d{i:03d}" for i in range(SPLIT_AT + 2)]
    runs = plan_runs({doc: ALL for doc in order}, order, workers=2)
    assert [len(r.keys) for r in runs] == [SPLIT_AT // 2 + 1, SPLIT_AT // 2 + 1]
    assert all(r.assets == PRE_EMBEDDING and not r.embeds for r in runs)
    assert sum((list(r.keys) for r in runs), []) == order

    # next round: only embeddings are left, one run over the whole range, here
    assert plan_runs({doc: frozenset({EMBEDDING_ASSET}) for doc in order}, order, workers=2) == [
        PlannedRun(tuple(order), frozenset({EMBEDDING_ASSET}))
    ]


def test_small_range_or_one_worker_is_one_run_with_embeddings():
    order = [f"d{i:03d}" for i in range(SPLIT_AT + 2)]
    assert plan_runs({doc: ALL for doc in order}, order, workers=1) == [PlannedRun(tuple(order), ALL)]
    few = order[: SPLIT_AT - 1]
    assert plan_runs({doc: ALL for doc in few}, order, workers=2) == [PlannedRun(tuple(few), ALL)]


def test_a_document_refused_on_sight_gets_a_run_of_its_own():
    order = [f"d{i:03d}" for i in range(201)]
    runs = plan_runs({doc: ALL for doc in order}, order, workers=2, apart=["d100"])
    assert sorted((r.keys[0], r.keys[-1], r.assets) for r in runs) == [
        ("d000", "d099", PRE_EMBEDDING), ("d100", "d100", PRE_EMBEDDING), ("d101", "d200", PRE_EMBEDDING),
    ]


def test_scattered_documents_are_not_split_into_runs_without_embeddings():
    order = [f"d{i:03d}" for i in range(120)]
    changed = order[:60:2] + order[60:100]  # 30 lone documents, then one range of 40
    runs = plan_runs({doc: ALL for doc in changed}, order, workers=2)
    lone = [r for r in runs if len(r.keys) == 1]
    assert len(lone) == 30 and all(r.assets == ALL for r in lone)
    parts = [r for r in runs if len(r.keys) > 1]
    assert [len(r.keys) for r in parts] == [20, 20] and all(r.assets == PRE_EMBEDDING for r in parts)


def test_documents_needing_different_assets_are_planned_apart():
    order = ["a", "b", "c", "d"]
    remaining = {"a": ALL, "b": frozenset({EMBEDDING_ASSET}), "c": ALL, "d": ALL}
    runs = plan_runs(remaining, order, workers=2)
    assert sorted((r.keys, r.assets == ALL) for r in runs) == [(("a",), True), (("b",), False), (("c", "d"), True)]


# -- the decoded-table cache -------------------------------------------------
def test_a_replaced_parquet_file_is_never_answered_from_the_cache(tmp_path: Path):
    warehouse = Warehouse(str(tmp_path))
    warehouse.write_table("notes", pa.table({"text": ["trước"]}), "a.csv")
    assert warehouse.read_table("notes", "a.csv").column("text").to_pylist() == ["trước"]
    assert warehouse.read_table("notes", "a.csv").column("text").to_pylist() == ["trước"]  # decoded once, kept
    before = warehouse.read_table_and_sha256("notes", "a.csv")
    warehouse.write_table("notes", pa.table({"text": ["sau"]}), "a.csv")  # replaced by a rename
    assert warehouse.read_table("notes", "a.csv").column("text").to_pylist() == ["sau"]
    # what the search index records as its source: this file's bytes, never a cached file's
    table, sha256 = warehouse.read_table_and_sha256("notes", "a.csv")
    assert table.column("text").to_pylist() == ["sau"]
    assert sha256 == hashlib.sha256(warehouse.asset_path("notes", "a.csv").read_bytes()).hexdigest() != before[1]
    warehouse.asset_path("notes", "a.csv").unlink()
    assert warehouse.read_table("notes", "a.csv") is None
    assert warehouse.read_table_and_sha256("notes", "a.csv") == (None, "missing")


def test_a_step_s_files_are_written_together_atomically_and_the_same_as_one_by_one(tmp_path: Path):
    tables = {f"doc_{i}.csv": pa.table({"text": [f"dòng {i}"] * (i + 1)}) for i in range(5)}
    together, alone = Warehouse(str(tmp_path / "together")), Warehouse(str(tmp_path / "alone"))
    together.write_tables("notes", tables)
    for doc_id, table in tables.items():
        alone.write_table("notes", table, doc_id)
    assert sorted(p.name for p in (tmp_path / "together" / "notes").iterdir()) == [f"{d}.parquet" for d in sorted(tables)]
    for doc_id in tables:
        assert together.asset_path("notes", doc_id).read_bytes() == alone.asset_path("notes", doc_id).read_bytes()

    # a write that fails half way leaves no temporary file and no new name
    (tmp_path / "together" / "blocked").write_text("a file where a folder should be")
    with pytest.raises(OSError):
        together.write_many_bytes_atomic({
            together.asset_path("notes", "new.csv"): b"first",
            together.path("blocked", "x", "y.parquet"): b"second",
        })
    assert sorted(p.name for p in (tmp_path / "together" / "notes").iterdir()) == [f"{d}.parquet" for d in sorted(tables)]


SAMPLES = INBOX


@pytest.mark.slow
def test_a_table_kept_on_write_is_the_table_a_read_of_its_file_returns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Every table the pipeline writes (the sample collections: PDF, DOCX,
    XLSX, CSV, Persian and Vietnamese; every asset), as kept in the cache,
    equals what decoding its file gives: values, types, list child names and
    metadata. Otherwise a reader's schema would depend on the cache."""
    written: list[tuple[pa.Table, bytes]] = []
    real_encode = storage.encode_parquet

    def recording_encode(table: pa.Table) -> bytes:
        data = real_encode(table)
        written.append((table, data))
        return data

    monkeypatch.setattr(storage, "encode_parquet", recording_encode)
    monkeypatch.setenv(WORKERS_ENV, "1")
    result = ingest([str(SAMPLES)], str(tmp_path / "wh"), out=io.StringIO(), show_progress=False)
    assert all(d.status == "ok" for d in result.documents)

    assets = set()
    for table, data in written:
        read = storage.parquet_from_bytes(data)
        kept = storage.as_read_back(table)
        assert kept is not None, table.schema
        assert kept.equals(read, check_metadata=True)
        assert kept.schema.to_string(show_schema_metadata=True) == read.schema.to_string(show_schema_metadata=True)
        assets.add(read.schema.metadata[storage.ASSET_KEY].decode())
    assert {"raw_documents", "segments", "lifted_blocks", "parsed_documents", "crops", "chunks", "embeddings"} <= assets

    # and the files written in this process are answered from the cache
    chunks = sorted((tmp_path / "wh" / "chunks").glob("*.parquet"))
    assert chunks and all(storage.DECODED.get(storage._file_key(str(p), os.stat(p))) is not None for p in chunks)


# -- end to end --------------------------------------------------------------
LEGACY_DOC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "WordDocument".encode("utf-16-le") + b"\0" * 512


def test_a_file_refused_on_sight_does_not_cut_the_others_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(WORKERS_ENV, "1")
    box = tmp_path / "inbox"
    box.mkdir()
    (box / "a.csv").write_text("ten_thuoc,gia\nAmoxicilin,1200\n")
    (box / "b.doc").write_bytes(LEGACY_DOC)
    (box / "c.csv").write_text("ten_thuoc,gia\nGentamicin,5400\n")
    result = ingest([str(box)], str(tmp_path / "wh"), out=io.StringIO(), show_progress=False)

    assert {d.doc_id: d.status for d in result.documents} == {"a.csv": "ok", "b.doc": "rejected", "c.csv": "ok"}
    # registered last, so a.csv and c.csv are one range: one run for them,
    # one for the refused file, one index refresh (a range cut in two: four)
    assert open_instance(str(tmp_path / "wh")).get_dynamic_partitions("documents") == ["a.csv", "c.csv", "b.doc"]
    assert result.runs == 3


def _many_documents(box: Path, n: int) -> None:
    box.mkdir(parents=True)
    for i in range(n):
        (box / f"doc_{i:03d}.csv").write_text(f"ten_thuoc,ham_luong\nThuoc {i},{i * 25} mg\nThuoc {i + 1},{i * 50} mg\n")
    make_scanned_pdf(box / "doc_010_scan.pdf", pages=1)


@pytest.mark.slow
def test_parallel_ingest_keeps_isolation_and_matches_one_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    box = tmp_path / "inbox"
    _many_documents(box, SPLIT_AT + 4)
    outputs, reports = {}, {}
    for workers in ("2", "1"):
        monkeypatch.setenv(WORKERS_ENV, workers)
        warehouse, report = tmp_path / f"wh{workers}", tmp_path / f"r{workers}.json"
        assert main(["ingest", str(box), "--warehouse", str(warehouse), "--report", str(report), "--quiet"]) == 1
        reports[workers] = {d["doc_id"]: d for d in json.loads(report.read_text())["documents"]}
        outputs[workers] = tree_digest(warehouse)

    docs = reports["2"]
    assert docs["doc_010_scan.pdf"]["status"] == "blocked"
    assert docs["doc_010_scan.pdf"]["failed_checks"] == ["no_pages_need_ocr"]
    good = [d for d in docs if d != "doc_010_scan.pdf"]
    assert len(good) == SPLIT_AT + 4 and all(docs[d]["status"] == "ok" and docs[d]["chunks"] > 0 for d in good)
    indexed = set(pq.read_table(tmp_path / "wh2" / "search_index" / "index.parquet").column("doc_id").to_pylist())
    assert indexed == set(good)

    # the range really was cut in two: two runs of the stages before embedding
    instance = open_instance(str(tmp_path / "wh2"))
    first_runs = [
        r for r in instance.get_runs()
        if r.asset_selection and dg.AssetKey("raw_documents") in r.asset_selection
    ]
    assert len(first_runs) == 2, [(r.tags.get("dagster/asset_partition_range_start"), r.asset_selection) for r in first_runs]
    assert all(dg.AssetKey(EMBEDDING_ASSET) not in r.asset_selection for r in first_runs)

    # two workers or one: the same statuses and the same bytes
    assert {d: (r["status"], r["chunks"]) for d, r in reports["1"].items()} == {
        d: (r["status"], r["chunks"]) for d, r in docs.items()
    }
    assert outputs["2"] == outputs["1"]


# -- the pooled event log against Dagster's own ------------------------------
STOCK_YAML = "telemetry:\n  enabled: false\n"  # hand-written: duocthu leaves it alone, Dagster's stock storage


def _check_statuses(instance: dg.DagsterInstance) -> dict[tuple[str, str], list[str]]:
    statuses = {}
    for key in _check_keys(instance):
        history = instance.event_log_storage.get_asset_check_execution_history(key, limit=1000)
        for record in history:
            statuses.setdefault((key.to_user_string(), record.partition), []).append(record.status.value)
    return {k: sorted(v) for k, v in statuses.items()}


def _check_keys(instance: dg.DagsterInstance) -> list[dg.AssetCheckKey]:
    from duocthu_assets.definitions import build_definitions

    return sorted(build_definitions().resolve_asset_graph().asset_check_keys, key=lambda k: k.to_user_string())


def _materialized(instance: dg.DagsterInstance) -> dict[str, set[str]]:
    return {
        asset: set(instance.get_materialized_partitions(dg.AssetKey(asset)))
        for asset in sorted(ALL)
    }


def _last_materialized(instance: dg.DagsterInstance) -> dict[str, tuple[str | None, str]]:
    last = {}
    for asset in sorted(ALL):
        entry = instance.get_latest_materialization_event(dg.AssetKey(asset))
        if entry is not None:
            job = instance.get_run_by_id(entry.run_id)
            last[asset] = (entry.dagster_event.partition, job.tags.get("dagster/asset_partition_range_start", job.tags.get("dagster/partition", "")))
    return last


@pytest.mark.slow
def test_pooled_event_log_records_what_dagsters_own_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(WORKERS_ENV, "1")
    box = tmp_path / "inbox"
    box.mkdir()
    (box / "bang_gia.csv").write_text("ten_thuoc,gia\nAmoxicilin,1200\nGentamicin,5400\n")
    make_scanned_pdf(box / "ban_scan.pdf", pages=2)
    (box / "cu.doc").write_bytes(LEGACY_DOC)

    stock = tmp_path / "stock"
    home = dagster_home_for(str(stock))
    home.mkdir(parents=True)
    (home / "dagster.yaml").write_text(STOCK_YAML)
    pooled = tmp_path / "pooled"
    for warehouse in (stock, pooled):
        assert main(["ingest", str(box), "--warehouse", str(warehouse), "--quiet"]) == 1

    stock_instance, pooled_instance = open_instance(str(stock)), open_instance(str(pooled))
    assert type(stock_instance.event_log_storage) is SqliteEventLogStorage
    assert type(pooled_instance.event_log_storage).__name__ == "PooledSqliteEventLogStorage"

    statuses = _check_statuses(pooled_instance)
    # the same evaluations; Dagster's own class also keeps a PLANNED row for each
    # document a run planned (runtime/planned_checks.py stores none: a check a
    # document never reached has no row, where Dagster's reads execution failed)
    evaluated = {k: [s for s in v if s != "PLANNED"] for k, v in _check_statuses(stock_instance).items()}
    assert statuses == {k: v for k, v in evaluated.items() if v}
    assert "FAILED" in statuses[("parsed_documents:no_pages_need_ocr", "ban_scan.pdf")]
    assert "SUCCEEDED" not in statuses[("parsed_documents:no_pages_need_ocr", "ban_scan.pdf")]
    assert "SUCCEEDED" in statuses[("parsed_documents:no_pages_need_ocr", "bang_gia.csv")]
    assert "FAILED" not in statuses[("parsed_documents:no_pages_need_ocr", "bang_gia.csv")]
    assert _materialized(pooled_instance) == _materialized(stock_instance)
    assert "bang_gia.csv" in _materialized(pooled_instance)[EMBEDDING_ASSET]
    # each asset's own row (written once per batch by the pooled storage,
    # once per event by Dagster's) names the same last materialization
    assert _last_materialized(pooled_instance) == _last_materialized(stock_instance)

    # per-document metadata sits on that document's materialization only
    def metadata(asset: str, doc_id: str) -> dict:
        records = pooled_instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[doc_id]), limit=1
        ).records
        return {k: v.value for k, v in records[0].asset_materialization.metadata.items()}

    assert metadata(EMBEDDING_ASSET, "bang_gia.csv")["vectors_computed"] == 2
    assert metadata("parsed_documents", "ban_scan.pdf")["pages_needing_ocr"] == [1, 2]
    assert metadata("parsed_documents", "bang_gia.csv")["pages_needing_ocr"] == []

    # and Dagster's own class reads what the pooled one wrote
    reader = SqliteEventLogStorage(str(dagster_home_for(str(pooled)) / "history" / "runs"))
    key = dg.AssetCheckKey(dg.AssetKey("parsed_documents"), "no_pages_need_ocr")
    assert [(r.partition, r.status.value) for r in reader.get_asset_check_execution_history(key, limit=10)] == [
        (r.partition, r.status.value) for r in pooled_instance.event_log_storage.get_asset_check_execution_history(key, limit=10)
    ]


def test_a_bad_worker_count_is_refused_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.setenv(WORKERS_ENV, "two")
    assert main(["ingest", str(tmp_path), "--warehouse", str(tmp_path / "wh"), "--quiet"]) == 2
    assert "DUOCTHU_INGEST_WORKERS must be a whole number" in capsys.readouterr().err
    assert not (tmp_path / "wh").exists(), "nothing is written before the setting is checked"
