"""Blocked at a glance: the review asset and its document_status check list
every blocked document with the rule that stopped it and that rule's
evidence; read back from Dagster after a real `duocthu ingest`."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg

from checks.rules import Rule, RuleResult
from duocthu_assets.cli import main
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.review import blocked_documents, file_status, markdown_table, summary_line

from tests.support.docgen import make_docx, make_scanned_pdf, make_xlsx


def _rule(name: str, asset: str) -> Rule:
    return Rule(name=name, asset=asset, description=name, evaluate=lambda rows: RuleResult(passed=True))


def test_the_first_failing_rule_in_pipeline_order_is_named_with_its_evidence():
    rules = [_rule("document_accepted", "raw_documents"), _rule("no_pages_need_ocr", "parsed_documents"), _rule("c", "chunks")]
    statuses = {
        "ok.docx": {"document_accepted": "SUCCEEDED", "no_pages_need_ocr": "SUCCEEDED", "c": "SUCCEEDED"},
        "scan.pdf": {"document_accepted": "SUCCEEDED", "no_pages_need_ocr": "FAILED", "c": "FAILED"},
        "never.pdf": {"document_accepted": "SUCCEEDED"},  # never reached the later checks: not blocked by them
    }
    evidence = lambda rule, doc: RuleResult(False, 2, ("page 1", "page 2"), (1, 2), "2 pages need OCR | no text layer")
    blocked = blocked_documents(statuses, rules, evidence)
    assert [(b.doc_id, b.blocked_by, b.other_failed) for b in blocked] == [("scan.pdf", "parsed_documents.no_pages_need_ocr", ("chunks.c",))]
    table = markdown_table(blocked, 3)
    assert "| scan.pdf | blocked | `parsed_documents.no_pages_need_ocr` | 1, 2 |" in table
    assert ("- **scan.pdf** — blocked (`parsed_documents.no_pages_need_ocr`): Some pages are pictures of text (a scan) that "
            "could not be read well enough, or OCR is off for this collection (pages 1, 2). What to do: scan the pages again") in table
    assert "  *Details:* 2 pages need OCR \\| no text layer" in table  # the rule's own words, beside its id
    assert table.startswith("**1 blocked, 0 rejected, 0 failed, 2 ok of 3 documents**")
    assert summary_line(blocked, 3) == (
        "1 blocked, 0 rejected, 0 failed, 2 ok of 3 documents — scan.pdf: blocked (parsed_documents.no_pages_need_ocr)"
    )
    assert blocked_documents({"ok.docx": statuses["ok.docx"]}, rules, evidence) == []
    assert markdown_table([], 1).startswith("No blocked documents")


def test_a_rejected_or_failed_document_is_not_blocked():
    """The document's own rows say rejected or failed (file_status), as the
    ingest summary says it; only a document its rows call fine is blocked."""
    rules = [_rule("document_accepted", "raw_documents"), _rule("document_parsed", "parsed_documents")]
    statuses = {"old.doc": {"document_accepted": "FAILED"}, "locked.pdf": {"document_accepted": "SUCCEEDED", "document_parsed": "FAILED"}}
    rows = {
        "old.doc": ({"status": "rejected", "reason": "unsupported format: legacy Office"}, None),
        "locked.pdf": ({"status": "accepted", "reason": ""}, {"status": "rejected", "reason": "encrypted PDF"}),
    }
    evidence = lambda rule, doc: RuleResult(False, 1, (doc,), (), "whatever the rule said")
    found = blocked_documents(statuses, rules, evidence, lambda doc: file_status(*rows[doc]))
    assert [(d.doc_id, d.status, d.blocked_by, d.message) for d in found] == [
        ("locked.pdf", "rejected", "parsed_documents.document_parsed", "encrypted PDF"),
        ("old.doc", "rejected", "raw_documents.document_accepted", "unsupported format: legacy Office"),
    ]
    assert file_status({"status": "accepted", "reason": ""}, {"status": "failed", "reason": "chunking failed: x"}) == ("failed", "chunking failed: x")
    assert file_status({"status": "accepted", "reason": ""}, {"status": "ok", "reason": ""}) is None
    assert summary_line(found, 4).startswith("0 blocked, 2 rejected, 0 failed, 2 ok of 4 documents")


def test_review_lists_the_blocked_scan_and_its_check_fails_through_dagster(tmp_path: Path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    make_docx(inbox / "a.docx", [("Một", ["Đoạn văn thứ nhất."])])
    make_xlsx(inbox / "b.xlsx", ["Tên", "Số lượng"], [["x", 1]])
    make_scanned_pdf(inbox / "scan.pdf", pages=2)
    (inbox / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)  # a legacy .doc: refused
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 1

    instance = open_instance(str(warehouse))
    records = instance.fetch_materializations(dg.AssetKey("review"), limit=1).records
    assert records, "the review asset was not materialized by the ingest's index refresh"
    metadata = records[0].asset_materialization.metadata
    assert [row["doc_id"] for row in metadata["blocked_documents"].value] == ["scan.pdf"]  # the .doc is rejected, not blocked
    rows = {row["doc_id"]: row for row in metadata["documents_not_ok"].value}
    assert set(rows) == {"scan.pdf", "old.doc"}, rows
    assert rows["old.doc"]["status"] == "rejected" and rows["scan.pdf"]["status"] == "blocked"
    assert (metadata["blocked_count"].value, metadata["rejected_count"].value, metadata["ok_count"].value) == (1, 1, 2)
    scan = rows["scan.pdf"]
    assert scan["blocked_by"] in ("parsed_documents.no_pages_need_ocr", "parsed_documents.document_parsed")
    if scan["blocked_by"] == "parsed_documents.no_pages_need_ocr":
        assert scan["pages"] == [1, 2] and scan["offending_ids"] == ["page 1", "page 2"]
    assert rows["old.doc"]["blocked_by"] == "raw_documents.document_accepted"
    assert "| scan.pdf |" in metadata["blocked"].value and "| old.doc |" in metadata["blocked"].value

    status = instance.event_log_storage.get_latest_asset_check_execution_by_key(
        [dg.AssetCheckKey(dg.AssetKey("review"), "document_status")]
    )
    (record,) = status.values()
    evaluation = record.event.get_dagster_event().event_specific_data
    assert evaluation.passed is False
    assert evaluation.description.startswith(
        "1 blocked, 1 rejected, 0 failed, 2 ok of 4 documents — scan.pdf: blocked (parsed_documents."
    ), evaluation.description
    assert "old.doc: rejected (raw_documents.document_accepted)" in evaluation.description
    assert json.loads(json.dumps(evaluation.metadata["documents_not_ok"].value)) == metadata["documents_not_ok"].value
