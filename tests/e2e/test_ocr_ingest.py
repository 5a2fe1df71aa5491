"""Issue 39 end to end, through ``duocthu ingest`` as a user runs it: a
scanned page is read by OCR (its prose chunked and marked ``ocr``, its ruled
table lifted from the image, its signature a picture, each paragraph's
region cropped), the parse record names what read it, the blocking check on
uncertain numbers passes, and search answers say the text was read from a
scan and offer the crop. The same scan under a collection whose confidence
floor no word reaches stays blocked, named by page; with OCR off it is
today's loud block. Skipped, saying why, where ``make ocr`` has not
installed Tesseract."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from duocthu_assets.parse.pdf.warnings import OCR_BLOCKED
from duocthu_assets.retrieval.searcher import answer
from duocthu_assets.settings.pdf import PdfSettings
from duocthu_assets.warehouse import Warehouse
from tests.support.ingest import ingest_inbox
from tests.support.scans import PROSE, needs_tesseract, scanned_pdf

TABLE = [["Tuổi", "Liều", "Số lần"], ["6-12", "250 mg", "2"], [">12", "500 mg", "3"]]

pytestmark = pytest.mark.slow


def _table(tmp_path, asset: str, doc_id: str) -> list[dict]:
    return pq.read_table(tmp_path / "wh" / asset / f"{doc_id}.parquet").to_pylist()


def test_a_scan_is_read_by_ocr_accountably(tmp_path):
    needs_tesseract()
    inbox = tmp_path / "inbox"
    for folder, toml in (("strict", "[pdf]\nocr_confidence_floor = 100.0\n"), ("off", "[pdf]\nocr = false\n")):
        (inbox / folder).mkdir(parents=True)
        (inbox / folder / "collection.toml").write_text(toml, encoding="utf-8")
    scan = scanned_pdf(PROSE, table=TABLE, signature=True)
    docs = ingest_inbox(tmp_path, {"scan.pdf": scan, "strict/scan.pdf": scan, "off/scan.pdf": scan})["docs"]

    read = docs["scan.pdf"]
    assert read["status"] == "ok", read
    parsed = _table(tmp_path, "parsed_documents", "scan.pdf")[0]
    assert (parsed["ocr_engine"], parsed["ocr_languages"], parsed["ocr_dpi"], parsed["pages_ocr"]) == ("tesseract", PdfSettings().ocr_languages, 300, [1])
    assert parsed["ocr_version"].startswith("5."), parsed["ocr_version"]
    assert parsed["pages_needing_ocr"] == []

    blocks = _table(tmp_path, "lifted_blocks", "scan.pdf")
    assert sorted(b["kind"] for b in blocks) == ["picture", "table"], blocks
    table = next(b for b in blocks if b["kind"] == "table")
    assert "250 mg" in table["text"] and "Số lần" in table["text"], table["text"]
    chunks = _table(tmp_path, "chunks", "scan.pdf")
    prose = [c for c in chunks if c["chunk_kind"] == "prose"]
    assert prose and all(c["text_source"] == "ocr" for c in prose)
    assert "uống 500 mg mỗi 8 giờ" in " ".join(c["text"] for c in prose)
    assert not any("Số lần" in c["text"] or "6-12" in c["text"] for c in prose), "the table's text stays out of the chunks"

    segments = _table(tmp_path, "segments", "scan.pdf")
    crops = {c["block_id"]: c for c in _table(tmp_path, "crops", "scan.pdf")}
    assert all(s["segment_id"] in crops for s in segments if s["text_source"] == "ocr"), "every OCR'd paragraph has its crop"
    assert (tmp_path / "wh" / crops[segments[0]["segment_id"]]["path"]).is_file()

    hits = answer(Warehouse(str(tmp_path / "wh")), "liều dùng cho người lớn uống mỗi 8 giờ", k=3)
    top = next(h for h in hits if h.doc_id == "scan.pdf" and h.chunk_kind == "prose")
    assert any("Read from a scanned page by OCR" in n and "crop:" in n for n in top.notices), top.notices
    assert any(c.kind == "scan" and c.exists for c in top.crops), top.crops

    strict = next(d for k, d in docs.items() if k.startswith("strict"))
    assert strict["status"] == "blocked" and strict["failed_checks"] == ["no_pages_need_ocr"], strict
    assert OCR_BLOCKED in strict["reason"] and "page 1" in strict["reason"], strict["reason"]

    off = next(d for k, d in docs.items() if k.startswith("off"))
    assert off["status"] == "blocked" and off["failed_checks"] == ["no_pages_need_ocr"], off
    assert "OCR is off or not installed" in off["reason"], off["reason"]


def test_a_reingest_reads_no_page_again(tmp_path):
    """The OCR cache, by page-image hash: the second ingest of the same scan
    under another name (a new document) takes every page from the cache."""
    needs_tesseract()
    scan = scanned_pdf(PROSE)
    first = ingest_inbox(tmp_path, {"a.pdf": scan})["docs"]["a.pdf"]
    assert first["status"] == "ok", first
    cached = sorted(p.name for p in (tmp_path / "wh" / "ocr_cache").rglob("*.json"))
    assert len(cached) == 1
    stamp = {p: p.stat().st_mtime_ns for p in (tmp_path / "wh" / "ocr_cache").rglob("*.json")}
    second = ingest_inbox(tmp_path, {"b.pdf": scan})["docs"]["b.pdf"]
    assert second["status"] == "ok", second
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "wh" / "ocr_cache").rglob("*.json")} == stamp
    assert _table(tmp_path, "chunks", "a.pdf")[0]["text"] == _table(tmp_path, "chunks", "b.pdf")[0]["text"]
