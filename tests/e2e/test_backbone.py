"""The backbone end to end: `duocthu ingest` through the real Definitions, a
persistent Dagster instance, the Parquet warehouse, per-document isolation,
and byte-identical re-ingests."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import dagster as dg
import duckdb
import pyarrow.parquet as pq
import pytest

from duocthu_assets.cli import main
from duocthu_assets.inbox.scan import doc_id_for
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.model import SCHEMA_VERSION
from duocthu_assets.schemas import SCHEMA_VERSION_KEY

from tests.support.ingest import tree_digest
from tests.support.paths import CORPUS
from tests.support.docgen import make_docx, make_scanned_pdf, make_text_pdf, make_xlsx

pytestmark = pytest.mark.slow


def _report(path: Path) -> dict[str, dict]:
    return {d["doc_id"]: d for d in json.loads(path.read_text())["documents"]}


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    box = tmp_path / "inbox"
    (box / "notes").mkdir(parents=True)
    make_text_pdf(
        box / "notes" / "huong_dan.pdf",
        [
            ["1. Mục đích", "Tài liệu này hướng dẫn cách dùng thuốc an toàn cho người bệnh.",
             "Người bệnh cần đọc kỹ hướng dẫn trước khi dùng."],
            ["2. Bảo quản", "Bảo quản thuốc ở nơi khô ráo, tránh ánh sáng trực tiếp."],
        ],
    )
    make_docx(box / "notes" / "quy_trinh.docx", [("Quy trình", ["Bước một: kiểm tra đơn thuốc.", "Bước hai: cấp phát."])])
    make_xlsx(box / "bang_gia.xlsx", ["Tên thuốc", "Giá (đồng)"], [["Amoxicilin", 1200], ["Gentamicin", 5400], ["Vancomycin", 98000]])
    return box


def test_ingest_generated_documents_end_to_end(inbox: Path, tmp_path: Path):
    warehouse = tmp_path / "wh"
    report = tmp_path / "report.json"
    code = main(["ingest", str(inbox), "--warehouse", str(warehouse), "--report", str(report), "--quiet"])
    docs = _report(report)
    assert code == 0, docs
    assert set(docs) == {"notes-huong_dan.pdf", "notes-quy_trinh.docx", "bang_gia.xlsx"}
    assert all(d["status"] == "ok" for d in docs.values())
    assert docs["notes-huong_dan.pdf"]["pages"] == 2

    instance = open_instance(str(warehouse))
    assert set(instance.get_dynamic_partitions("documents")) == set(docs)

    for asset in ("raw_documents", "parsed_documents", "segments", "chunks", "embeddings"):
        for doc_id in docs:
            path = warehouse / asset / f"{doc_id}.parquet"
            assert path.is_file(), path
            assert pq.read_metadata(path).metadata[SCHEMA_VERSION_KEY] == str(SCHEMA_VERSION).encode()

    con = duckdb.connect()
    rows = con.execute(
        f"SELECT doc_id, count(*) FROM '{warehouse}/chunks/*.parquet' GROUP BY doc_id ORDER BY doc_id"
    ).fetchall()
    assert {doc_id for doc_id, n in rows if n > 0} == set(docs)
    xlsx_rows = con.execute(
        f"SELECT text FROM '{warehouse}/chunks/*.parquet' WHERE doc_id = 'bang_gia.xlsx' AND chunk_kind = 'table_row'"
    ).fetchall()
    assert any("Gentamicin" in t and "5400" in t for (t,) in xlsx_rows)
    versions = con.execute(f"SELECT DISTINCT schema_version FROM read_parquet('{warehouse}/*/*.parquet', union_by_name=true)").fetchall()
    assert versions == [(SCHEMA_VERSION,)]

    indexed = con.execute(f"SELECT DISTINCT doc_id FROM '{warehouse}/search_index/index.parquet'").fetchall()
    assert {d for (d,) in indexed} == set(docs)
    # the source bytes are kept in the content-addressed store
    raw = con.execute(f"SELECT sha256, stored_path FROM '{warehouse}/raw_documents/*.parquet'").fetchall()
    for sha, stored in raw:
        assert hashlib.sha256((warehouse / stored).read_bytes()).hexdigest() == sha


def test_blocked_document_stops_only_itself(inbox: Path, tmp_path: Path):
    make_scanned_pdf(inbox / "notes" / "ban_scan.pdf", pages=2)
    (inbox / "cu.doc").write_bytes((CORPUS / "docling__legacy_sample.doc").read_bytes() if (CORPUS / "docling__legacy_sample.doc").exists()
                                   else b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "WordDocument".encode("utf-16-le") + b"\0" * 512)
    warehouse = tmp_path / "wh"
    report = tmp_path / "report.json"
    code = main(["ingest", str(inbox), "--warehouse", str(warehouse), "--report", str(report), "--quiet"])
    docs = _report(report)
    assert code == 1

    scan = docs["notes-ban_scan.pdf"]
    assert scan["status"] == "blocked"
    assert scan["failed_checks"] == ["no_pages_need_ocr"]
    assert "1, 2" in scan["reason"] and "OCR" in scan["reason"]
    assert not (warehouse / "chunks" / "notes-ban_scan.pdf.parquet").exists()
    assert not (warehouse / "embeddings" / "notes-ban_scan.pdf.parquet").exists()

    legacy = docs["cu.doc"]
    assert legacy["status"] == "rejected"
    assert "save as .docx" in legacy["reason"]
    raw = pq.read_table(warehouse / "raw_documents" / "cu.doc.parquet").to_pylist()[0]
    assert (warehouse / raw["stored_path"]).is_file(), "a rejected document's bytes are kept"

    for doc_id in ("notes-huong_dan.pdf", "notes-quy_trinh.docx", "bang_gia.xlsx"):
        assert docs[doc_id]["status"] == "ok", docs[doc_id]
        assert (warehouse / "embeddings" / f"{doc_id}.parquet").is_file()
    indexed = set(pq.read_table(warehouse / "search_index" / "index.parquet").column("doc_id").to_pylist())
    assert indexed == {"notes-huong_dan.pdf", "notes-quy_trinh.docx", "bang_gia.xlsx"}

    # the failed check is recorded per document in the instance, with its evidence
    instance = open_instance(str(warehouse))
    key = dg.AssetCheckKey(dg.AssetKey("parsed_documents"), "no_pages_need_ocr")
    history = instance.event_log_storage.get_asset_check_execution_history(key, limit=10)
    failed = [r for r in history if r.partition == "notes-ban_scan.pdf" and r.status.value == "FAILED"]
    assert failed
    evaluation = failed[0].event.asset_check_evaluation
    assert evaluation.metadata["pages"].value == [1, 2]


def test_reingest_unchanged_changes_no_output_bytes(inbox: Path, tmp_path: Path):
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0
    before = tree_digest(warehouse)
    report = tmp_path / "again.json"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet", "--report", str(report)]) == 0
    assert tree_digest(warehouse) == before
    assert all(not d["rebuilt"] for d in _report(report).values())


def test_two_fresh_ingests_give_identical_parquet(inbox: Path, tmp_path: Path):
    first, second = tmp_path / "a", tmp_path / "b"
    assert main(["ingest", str(inbox), "--warehouse", str(first), "--quiet"]) == 0
    assert main(["ingest", str(inbox), "--warehouse", str(second), "--quiet"]) == 0
    a, b = tree_digest(first), tree_digest(second)
    a.pop("registry.json", None), b.pop("registry.json", None)
    assert a == b and any(k.endswith(".parquet") for k in a)


def test_changed_document_is_rebuilt_and_removed_one_leaves_the_index(inbox: Path, tmp_path: Path):
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0
    make_xlsx(inbox / "bang_gia.xlsx", ["Tên thuốc", "Giá (đồng)"], [["Amikacin", 7700]])
    report = tmp_path / "r.json"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet", "--report", str(report)]) == 0
    docs = _report(report)
    assert docs["bang_gia.xlsx"]["rebuilt"] and not docs["notes-quy_trinh.docx"]["rebuilt"]
    texts = pq.read_table(warehouse / "chunks" / "bang_gia.xlsx.parquet").column("text").to_pylist()
    assert any("Amikacin" in t for t in texts) and not any("Gentamicin" in t for t in texts)


@pytest.mark.corpus
def test_ingest_real_pdf_docx_xlsx_from_corpus(corpus, tmp_path: Path):
    box = tmp_path / "inbox"
    box.mkdir()
    for name in ("vn__an_le_so_43-2021-AL.pdf", "docling__unit_test_headers.docx", "docling__xlsx_01_multisheet_merged.xlsx"):
        shutil.copy(corpus(name), box / name)
    warehouse = tmp_path / "wh"
    report = tmp_path / "r.json"
    code = main(["ingest", str(box), "--warehouse", str(warehouse), "--report", str(report), "--quiet"])
    docs = _report(report)
    assert code == 0, docs
    pdf_id = doc_id_for("vn__an_le_so_43-2021-AL.pdf")
    assert docs[pdf_id]["pages"] == 6
    assert docs["docling__xlsx_01_multisheet_merged.xlsx"]["pages"] == 4
    for doc_id, d in docs.items():
        assert d["chunks"] > 0 and d["status"] == "ok", d
        assert (warehouse / "embeddings" / f"{doc_id}.parquet").is_file()
    segments = pq.read_table(warehouse / "segments" / f"{pdf_id}.parquet").to_pylist()
    assert any("Tòa án" in s["text"] or "TÒA ÁN" in s["text"] for s in segments)
