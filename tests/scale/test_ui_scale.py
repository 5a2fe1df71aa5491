"""Scale-out: the same code location runs on other executors and stores. The
warehouse IO manager round-trips partitions on any fsspec/UPath location (a
local folder, an in-memory filesystem), the multiprocess executor's step limit
comes from DUOCTHU_MAX_CONCURRENT, and the instance `make ui` uses queues runs."""

from __future__ import annotations

import uuid
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pytest

from duocthu_assets.assets.partitions import documents
from duocthu_assets.definitions import MAX_CONCURRENT_ENV, build_definitions
from duocthu_assets.runtime.instance import dagster_home_for, dagster_yaml, ensure_dagster_home
from duocthu_assets.model import SCHEMA_VERSION, DocumentIdentity
from duocthu_assets.resources import ParquetWarehouseIOManager
from duocthu_assets.schemas import SCHEMA_VERSION_KEY, table_from_rows
from duocthu_assets.settings import Settings
from duocthu_assets.warehouse import Warehouse

DOCS = ["a.pdf", "b.docx", "c.xlsx"]


def _raw_row(doc_id: str, size: int) -> dict:
    return {
        "doc_id": doc_id, "source_name": doc_id, "collection": "", "profile": "generic", "normalization": "nfc",
        "sha256": f"{size:064x}", "size_bytes": size, "format": doc_id.rsplit(".", 1)[1], "page_count": 1,
        "status": "accepted", "reason": "", "stored_path": f"sources/00/{size:064x}", "settings": Settings().as_record(),
        "identity": DocumentIdentity().as_record(), "profile_evidence": [], "schema_version": SCHEMA_VERSION,
    }


@pytest.fixture(params=["local", "memory"])
def root(request, tmp_path: Path) -> str:
    if request.param == "local":
        yield str(tmp_path / "warehouse")
        return
    bucket = f"duocthu-{uuid.uuid4().hex}"
    location = f"memory://{bucket}/warehouse"
    yield location
    Warehouse(location).root.fs.rm(f"/{bucket}", recursive=True)


@pytest.fixture
def instance():
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents.name, DOCS)
        yield instance


def test_io_manager_round_trips_each_partition(root: str, instance):
    manager = ParquetWarehouseIOManager(root=root)
    key = dg.AssetKey("raw_documents")
    written = {}
    for size, doc_id in enumerate(DOCS, 1):
        table = table_from_rows("raw_documents", [_raw_row(doc_id, size)])
        out = dg.build_output_context(asset_key=key, partition_key=doc_id, asset_partitions_def=documents, instance=instance)
        manager.handle_output(out, {doc_id: table})
        written[doc_id] = table

    warehouse = Warehouse(root)
    assert warehouse.root.protocol in (("memory",) if root.startswith("memory://") else ("", "file", "local"))
    assert warehouse.doc_ids("raw_documents") == DOCS
    assert not [p.name for p in warehouse.path("raw_documents").iterdir() if not p.name.endswith(".parquet")], "no temp files left"
    for doc_id in DOCS:
        context = dg.build_input_context(asset_key=key, partition_key=doc_id, asset_partitions_def=documents, instance=instance)
        loaded = manager.load_input(context)
        assert list(loaded) == [doc_id]
        assert loaded[doc_id].equals(written[doc_id].replace_schema_metadata(loaded[doc_id].schema.metadata))
        assert loaded[doc_id].schema.metadata[SCHEMA_VERSION_KEY] == str(SCHEMA_VERSION).encode()

    # a step over a range of documents reads every partition of the range
    many = dg.build_input_context(
        asset_key=key, asset_partition_key_range=dg.PartitionKeyRange("a.pdf", "c.xlsx"),
        asset_partitions_def=documents, instance=instance,
    )
    assert sorted(manager.load_input(many)) == DOCS


def test_io_manager_writes_a_range_and_refuses_a_missing_partition(root: str, instance):
    manager = ParquetWarehouseIOManager(root=root)
    key = dg.AssetKey("raw_documents")
    tables = {doc_id: table_from_rows("raw_documents", [_raw_row(doc_id, n)]) for n, doc_id in enumerate(DOCS, 1)}
    out = dg.build_output_context(
        asset_key=key, asset_partition_key_range=dg.PartitionKeyRange("a.pdf", "c.xlsx"),
        asset_partitions_def=documents, instance=instance,
    )
    manager.handle_output(out, tables)
    assert Warehouse(root).doc_ids("raw_documents") == DOCS

    partial = {k: v for k, v in tables.items() if k != "b.docx"}
    with pytest.raises(ValueError, match="b.docx"):
        manager.handle_output(out, partial)


def test_io_manager_unpartitioned_index_round_trips(root: str):
    manager = ParquetWarehouseIOManager(root=root)
    table = pa.table({"doc_id": ["a.pdf"], "chunk_id": ["a.pdf:s:0"], "schema_version": pa.array([SCHEMA_VERSION], pa.int32())})
    manager.handle_output(dg.build_output_context(asset_key=dg.AssetKey("search_index")), table)
    assert Warehouse(root).asset_path("search_index").name == "index.parquet"
    loaded = manager.load_input(dg.build_input_context(asset_key=dg.AssetKey("search_index")))
    assert loaded.column("chunk_id").to_pylist() == ["a.pdf:s:0"]


def _executor_config(defs: dg.Definitions) -> dict:
    executor = defs.resolve_job_def("ingest").executor_def
    assert executor.name == "per_run"  # in process for one document, multiprocess for a range
    return executor.config_schema.resolve_config({}).value["config"]


def test_multiprocess_executor_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(MAX_CONCURRENT_ENV, raising=False)
    assert _executor_config(build_definitions("memory://x"))["max_concurrent"] == 2
    monkeypatch.setenv(MAX_CONCURRENT_ENV, "5")
    assert _executor_config(build_definitions("memory://x"))["max_concurrent"] == 5
    assert _executor_config(build_definitions("memory://x", max_concurrent=1))["max_concurrent"] == 1
    assert build_definitions("memory://x").resolve_job_def("refresh_search_index").executor_def.name == "per_run"


def test_dagster_home_lives_in_the_warehouse_and_queues_runs(tmp_path: Path):
    home = ensure_dagster_home(dagster_home_for(str(tmp_path / "warehouse")))
    assert home == tmp_path / "warehouse" / "dagster_home"
    assert (home / "dagster.yaml").read_text() == dagster_yaml(home)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert type(instance.event_log_storage).__name__ == "PooledSqliteEventLogStorage"
        coordinator = instance.run_coordinator
        assert type(coordinator).__name__ == "QueuedRunCoordinator"
        assert coordinator.get_run_queue_config().max_concurrent_runs == 2
        assert instance.run_launcher.__class__.__name__ == "DefaultRunLauncher"
    # an instance someone configured by hand is left alone
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    ensure_dagster_home(home)
    assert (home / "dagster.yaml").read_text() == "telemetry:\n  enabled: false\n"


def test_per_run_executor_runs_one_document_in_process_and_a_range_in_processes():
    """Through Dagster's executor machinery: the executor a run gets is chosen
    from the run's tags when it starts."""
    from duocthu_assets.runtime.executor import PerRunExecutor, per_run_executor

    job = build_definitions("memory://x", max_concurrent=3).resolve_job_def("ingest")
    with dg.instance_for_test() as instance:
        context = dg.InitExecutorContext(
            job=dg.reconstructable(_ingest_job_for_test), executor_def=per_run_executor,
            executor_config={"max_concurrent": 3}, instance=instance,
        )
        executor = per_run_executor.executor_creation_fn(context)
    assert isinstance(executor, PerRunExecutor)
    single = executor.chosen({"dagster/partition": "a.pdf"})
    many = executor.chosen({"dagster/asset_partition_range_start": "a.pdf", "dagster/asset_partition_range_end": "b.pdf"})
    assert type(single).__name__ == "InProcessExecutor"
    assert type(many).__name__ == "MultiprocessExecutor" and many._max_concurrent == 3
    assert job.executor_def.name == "per_run"


def _ingest_job_for_test():
    return build_definitions("memory://x").resolve_job_def("ingest")
