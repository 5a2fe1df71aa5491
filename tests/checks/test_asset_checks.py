"""A step a rule stopped says so in plain words (checks/asset_checks.py):
Dagster's run page shows a step's failure; a blocking check that fails a
document ends its step with a ``dg.Failure`` naming the document, its status,
the rule and what to do — not Dagster's ``DagsterAssetCheckFailedError``
with its stack trace of Dagster's own frames."""

from __future__ import annotations

import dagster as dg
import pytest

from duocthu_assets.cli import main
from duocthu_assets.runtime.instance import open_instance
from tests.support.docgen import make_scanned_pdf

pytestmark = pytest.mark.slow


def test_a_blocked_documents_step_fails_with_the_rule_in_plain_words(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))  # open_instance sets it; restored after the test
    inbox, warehouse = tmp_path / "inbox", tmp_path / "wh"
    inbox.mkdir()
    make_scanned_pdf(inbox / "scan.pdf", pages=2)
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 1

    instance = open_instance(str(warehouse))
    try:
        failed = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.FAILURE]))
        assert failed, "the scan's run failed"
        failures = [
            record.event_log_entry.get_dagster_event()
            for run in failed
            for record in instance.get_records_for_run(run.run_id, of_type=dg.DagsterEventType.STEP_FAILURE).records
        ]
    finally:
        instance.dispose()
    (failure,) = failures
    data = failure.step_failure_data
    assert failure.step_key == "parsed_documents_gates"
    assert data.error.cls_name == "Failure", data.error.cls_name  # not DagsterAssetCheckFailedError
    said = data.user_failure_data
    assert said.description.startswith("scan.pdf blocked by parsed_documents.no_pages_need_ocr. Some pages are pictures of text")
    assert "(pages 1, 2)" in said.description and "What to do: scan the pages again" in said.description
    (document,) = said.metadata["documents"].value
    assert (document["doc_id"], document["status"], document["rule"]) == ("scan.pdf", "blocked", "parsed_documents.no_pages_need_ocr")
