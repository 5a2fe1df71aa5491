"""The inbox sensor and the nightly schedule: a partition per new file, a run
only for new or changed content, removal leaves the index, history kept."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from duocthu_assets.automation import inbox_sensor, nightly_reingest, record_built
from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.inbox import Registry, doc_id_for
from duocthu_assets.instance import open_instance
from duocthu_assets.jobs import INGEST_JOB
from duocthu_assets.resources import WarehouseResource
from duocthu_assets.storage import Warehouse
from duocthu_assets.version import code_version

from .docgen import make_docx, make_xlsx


@pytest.fixture
def setup(tmp_path: Path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    make_docx(inbox / "a.docx", [("Một", ["Đoạn văn thứ nhất."])])
    make_xlsx(inbox / "b.xlsx", ["Tên", "Số lượng"], [["x", 1], ["y", 2]])
    monkeypatch.setenv("DUOCTHU_INBOX", str(inbox))
    warehouse = tmp_path / "wh"
    instance = open_instance(str(warehouse))
    return inbox, warehouse, instance


def _tick(instance, warehouse):
    context = dg.build_sensor_context(instance=instance, resources={"warehouse": WarehouseResource(root=str(warehouse))})
    return inbox_sensor(context)


def test_sensor_adds_partitions_and_runs_only_new_or_changed(setup):
    inbox, warehouse, instance = setup
    result = _tick(instance, warehouse)
    assert [r.partitions_def_name for r in result.dynamic_partitions_requests] == ["documents"]
    assert sorted(result.dynamic_partitions_requests[0].partition_keys) == ["a.docx", "b.xlsx"]
    assert sorted(r.partition_key for r in result.run_requests) == ["a.docx", "b.xlsx"]

    instance.add_dynamic_partitions("documents", ["a.docx", "b.xlsx"])
    record_built(Registry(Warehouse(warehouse)), ["a.docx", "b.xlsx"], code_version())
    assert _tick(instance, warehouse).run_requests == []

    make_xlsx(inbox / "b.xlsx", ["Tên", "Số lượng"], [["z", 3]])
    changed = _tick(instance, warehouse)
    assert [r.partition_key for r in changed.run_requests] == ["b.xlsx"]
    assert changed.dynamic_partitions_requests == []


def test_nightly_schedule_skips_unchanged_documents(setup):
    inbox, warehouse, instance = setup
    _tick(instance, warehouse)
    instance.add_dynamic_partitions("documents", ["a.docx", "b.xlsx"])
    record_built(Registry(Warehouse(warehouse)), ["a.docx", "b.xlsx"], code_version())
    context = dg.build_schedule_context(instance=instance, resources={"warehouse": WarehouseResource(root=str(warehouse))})
    assert nightly_reingest.cron_schedule == "0 2 * * *"
    assert list(nightly_reingest(context).run_requests) == []
    # a code change (a different code version) makes every document due
    registry = Registry(Warehouse(warehouse))
    record_built(registry, ["a.docx"], "an-older-version")
    assert [r.partition_key for r in nightly_reingest(context).run_requests] == ["a.docx"]


def test_removed_file_leaves_the_index_and_keeps_its_history(setup):
    inbox, warehouse, instance = setup
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0
    assert (warehouse / "chunks" / "a.docx.parquet").exists()
    (inbox / "a.docx").unlink()

    result = _tick(instance, warehouse)
    assert [r.partition_key for r in result.run_requests] == ["a.docx"]
    defs = build_definitions(str(warehouse))
    run = defs.resolve_job_def(INGEST_JOB).execute_in_process(instance=instance, partition_key="a.docx", raise_on_error=False)
    assert not run.success  # the document_accepted gate stops it
    defs.resolve_job_def("refresh_search_index").execute_in_process(instance=instance)

    raw = pq.read_table(warehouse / "raw_documents" / "a.docx.parquet").to_pylist()[0]
    assert raw["status"] == "removed"
    for asset in ("segments", "chunks", "embeddings", "parsed_documents"):
        assert not (warehouse / asset / "a.docx.parquet").exists(), asset
    indexed = set(pq.read_table(warehouse / "search_index" / "index.parquet").column("doc_id").to_pylist())
    assert indexed == {"b.xlsx"}
    assert "a.docx" in instance.get_dynamic_partitions("documents")
    history = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=dg.AssetKey("chunks"), asset_partitions=["a.docx"]), limit=5)
    assert history.records, "the partition's materialization history is kept"


@pytest.mark.parametrize(
    "path, expected",
    [
        ("formulary/duoc_thu_mau.pdf", "formulary-duoc_thu_mau.pdf"),
        ("office/report.xlsx", "office-report.xlsx"),
    ],
)
def test_doc_ids_are_readable_when_faithful(path, expected):
    assert doc_id_for(path) == expected


@pytest.mark.parametrize("path", ["a...b.pdf", "x\ny.pdf", "../../etc/passwd", "Hợp đồng/قرارداد 1.docx", "A" * 200 + ".pdf", "a/b.pdf"])
def test_doc_ids_are_sanitized_and_unique(path):
    doc_id = doc_id_for(path)
    assert len(doc_id) <= 64
    assert all(c in "abcdefghijklmnopqrstuvwxyz0123456789._-" for c in doc_id)
    assert ".." not in doc_id and "\n" not in doc_id and not doc_id.startswith(".")
    assert doc_id != doc_id_for(path + "x")
