"""What the UI shows per document for a check: each partitioned evaluation is
tied to that document's own materialization (``target_materialization_data``),
so Dagster counts it current — the check's Partitions tab, GraphQL
``partitionStatuses`` and the graph roll-up read this same partition info."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from checks.registry import ALL_RULES
from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.instance import open_instance
from duocthu_assets.jobs import INGEST_JOB

from .docgen import make_docx, make_scanned_pdf, make_xlsx


def _partition_infos(instance, doc_ids):
    keys = [dg.AssetCheckKey(dg.AssetKey(rule.asset), rule.name) for rule in ALL_RULES]
    return instance.event_log_storage.get_asset_check_partition_info(keys, partition_keys=doc_ids)


def _latest_materialization_id(instance, asset, doc_id):
    records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[doc_id]), limit=1).records
    return records[0].storage_id if records else None


def test_each_evaluation_targets_its_own_documents_materialization(tmp_path: Path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    make_docx(inbox / "a.docx", [("Một", ["Đoạn văn thứ nhất."])])
    make_xlsx(inbox / "b.xlsx", ["Tên", "Số lượng"], [["x", 1], ["y", 2]])
    make_scanned_pdf(inbox / "scan.pdf", pages=2)
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 1  # the scan is blocked

    instance = open_instance(str(warehouse))
    # one document again, alone in its run (as the UI launches it)
    run = build_definitions(str(warehouse)).resolve_job_def(INGEST_JOB).execute_in_process(
        instance=instance, partition_key="a.docx", raise_on_error=False
    )
    assert run.success

    docs = ["a.docx", "b.xlsx", "scan.pdf"]
    infos = _partition_infos(instance, docs)
    evaluated = [i for i in infos if i.latest_execution_status.value in ("SUCCEEDED", "FAILED")]
    assert {i.partition_key for i in evaluated} == set(docs)
    for info in evaluated:
        own = _latest_materialization_id(instance, info.check_key.asset_key.path[-1], info.partition_key)
        assert own is not None
        assert info.latest_target_materialization_storage_id == own, (info.check_key.name, info.partition_key)
        assert info.is_current, (info.check_key.name, info.partition_key)

    # the scan's own result: failed on parsed_documents, current, not hidden by the others' passes
    scan = {i.check_key.name: i for i in evaluated if i.partition_key == "scan.pdf"}
    assert scan["no_pages_need_ocr"].latest_execution_status.value == "FAILED"
    assert scan["no_pages_need_ocr"].is_current
    good = {i.check_key.name: i for i in evaluated if i.partition_key == "a.docx"}
    assert good["no_pages_need_ocr"].latest_execution_status.value == "SUCCEEDED"
    # the single run's evaluation targets the single run's materialization
    records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=dg.AssetKey("chunks"), asset_partitions=["a.docx"]), limit=1).records
    assert records[0].run_id == run.run_id
