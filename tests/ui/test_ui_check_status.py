"""What the UI shows per document for a check: each partitioned evaluation is
tied to that document's own materialization (``target_materialization_data``),
so Dagster counts it current — the check's Partitions tab, GraphQL
``partitionStatuses`` and the graph roll-up read this same partition info."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from checks.registry import ALL_RULES
from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.jobs import INGEST_JOB

from tests.support.docgen import make_docx, make_scanned_pdf, make_xlsx
from tests.support.ui_helpers import dagster_webserver, free_port, partition_statuses


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

    # a passed rule stores no evidence (its message is the description); a failed one keeps it all
    key = dg.AssetCheckKey(dg.AssetKey("parsed_documents"), "no_pages_need_ocr")
    history = instance.event_log_storage.get_asset_check_execution_history(key, limit=20)
    passed = [r.evaluation for r in history if r.partition == "a.docx" and r.status.value == "SUCCEEDED"]
    assert passed and dict(passed[0].metadata) == {} and passed[0].description
    failed = [r.evaluation for r in history if r.partition == "scan.pdf" and r.status.value == "FAILED"]
    assert failed and {"message", "count", "offending_ids", "offending", "pages"} <= set(failed[0].metadata)
    assert failed[0].metadata["pages"].value == [1, 2]


INGEST_ASSETS = ["raw_documents", "parsed_documents", "crops", "chunks", "embeddings"]


@pytest.mark.slow
def test_the_ui_reads_unreached_checks_as_not_evaluated_and_failed_partitions(tmp_path: Path):
    """What the UI reads (GraphQL partitionStatuses of a real webserver over
    the instance `duocthu ingest` wrote): a rule that failed reads *failed*;
    the checks a blocked document never reached have no evaluation for it
    (neither *skipped* nor *execution failed*: runtime/planned_checks.py);
    its unbuilt assets read *failed* (red) where its run planned them, a
    document never run *missing* (grey); good documents *succeeded* /
    *materialized*."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    make_docx(inbox / "a.docx", [("Một", ["Đoạn văn thứ nhất."])])
    make_xlsx(inbox / "b.xlsx", ["Tên", "Số lượng"], [["x", 1], ["y", 2]])
    make_scanned_pdf(inbox / "scan.pdf", pages=2)  # blocked by parsed_documents.no_pages_need_ocr
    (inbox / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)  # refused: raw_documents.document_accepted
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 1
    instance = open_instance(str(warehouse))
    instance.add_dynamic_partitions("documents", ["never.docx"])  # a partition never run
    instance.dispose()

    server = dagster_webserver(warehouse, free_port(), tmp_path / "web.log")
    try:
        server.start(timeout=240)
        ui = partition_statuses(server, INGEST_ASSETS)
    finally:
        server.stop()

    def docs(statuses, kind):
        return set(statuses.get(kind) or [])

    good, blocked = {"a.docx", "b.xlsx"}, {"scan.pdf", "old.doc"}
    # the rule that failed reads failed, for that document only
    ocr = ui["parsed_documents"]["checks"]["no_pages_need_ocr"]
    assert docs(ocr, "failedPartitions") == {"scan.pdf"} and docs(ocr, "succeededPartitions") == good
    accepted = ui["raw_documents"]["checks"]["document_accepted"]
    assert docs(accepted, "failedPartitions") == {"old.doc"}
    # every check a blocked document never reached: no evaluation, neither skipped nor execution failed
    for asset in ("crops", "chunks", "embeddings"):
        for name, statuses in ui[asset]["checks"].items():
            assert docs(statuses, "executionFailedPartitions") == set(), (asset, name, statuses)
            assert docs(statuses, "failedPartitions") == set(), (asset, name, statuses)
            assert docs(statuses, "skippedPartitions") == set(), (asset, name, statuses)
            assert docs(statuses, "succeededPartitions") == good, (asset, name, statuses)
    for name, statuses in ui["parsed_documents"]["checks"].items():
        assert docs(statuses, "skippedPartitions") == set(), (name, statuses)
        assert docs(statuses, "executionFailedPartitions") == set(), (name, statuses)
        assert "old.doc" not in docs(statuses, "succeededPartitions") | docs(statuses, "failedPartitions"), (name, statuses)
    # the assets' own partition bars: blocked red (failed) where its run planned them, never run grey (missing)
    for asset in ("crops", "chunks", "embeddings"):
        bar = ui[asset]["asset"]
        assert docs(bar, "materializedPartitions") == good, (asset, bar)
        assert "scan.pdf" in docs(bar, "failedPartitions"), (asset, bar)
        # (Dagster lists a failed partition as unmaterialized too; the bar paints it failed)
        assert docs(bar, "unmaterializedPartitions") - blocked == {"never.docx"}, (asset, bar)
    assert docs(ui["parsed_documents"]["asset"], "failedPartitions") == {"old.doc"}
