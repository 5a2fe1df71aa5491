"""A scanned page read by Tesseract (read/ocr.py, read/ocr_pages.py,
read/scan_page.py): words with boxes and confidences, pages in parallel
with progress, the cache by page-image hash, blank pages not read, a page
OCR cannot read kept blocked; OCR off keeps today's block."""

from __future__ import annotations

import pytest

from duocthu_assets.model import Format, TextSource
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.read import ocr_pages
from duocthu_assets.parse.pdf.read.ocr import OcrOptions, ocr_pdf_page
from duocthu_assets.parse.pdf.read.ocr_pages import OcrCache, read_scans
from duocthu_assets.parse.pdf.warnings import OCR_BLOCKED
from duocthu_assets.settings import Settings
from duocthu_assets.settings.pdf import PdfSettings
from tests.support.scans import PROSE, needs_tesseract, scanned_pdf


@pytest.fixture(scope="module")
def scan() -> bytes:
    needs_tesseract()
    return scanned_pdf(PROSE)


def test_words_come_with_boxes_and_confidences(scan):
    page = ocr_pdf_page(scan, 1, OcrOptions(dpi=200))
    assert page.engine == "tesseract" and page.version.startswith("5.") and page.dpi == 200
    assert page.text().splitlines() == PROSE
    for w in page.words:
        assert 0 <= w.confidence <= 100
        assert 60 <= w.bbox[0] < w.bbox[2] <= 595 and 60 <= w.bbox[1] < w.bbox[3] <= 200


def test_pages_run_in_parallel_with_progress_and_are_cached(scan, tmp_path, monkeypatch):
    two = pymupdf.open()
    two.insert_pdf(pymupdf.open(stream=scan), from_page=0, to_page=0)
    two.new_page(width=595, height=842)  # a blank page: nothing to read, never sent to Tesseract
    two.insert_pdf(pymupdf.open(stream=scan), from_page=0, to_page=0)
    data = two.tobytes()
    seen = []
    settings = PdfSettings(ocr_workers=2, ocr_dpi=200)
    first = read_scans(data, [1, 2, 3], settings, OcrCache(tmp_path), lambda *a: seen.append(a))
    assert [d for d, *_ in seen] == [1, 2, 3] and all(total == 3 for _, total, _, _ in seen)
    assert first[2].ocr.words == () and first[2].image.blank
    assert first[1].ocr == first[3].ocr  # the same image reads the same
    monkeypatch.setattr(ocr_pages, "ocr_image", lambda *a, **k: pytest.fail("read again instead of from the cache"))
    again = read_scans(data, [1, 2, 3], settings, OcrCache(tmp_path))
    assert [again[p].ocr.words for p in (1, 2, 3)] == [first[p].ocr.words for p in (1, 2, 3)]


def test_a_scan_is_parsed_from_its_ocr_with_provenance(scan):
    parsed = parse_document(scan, Format.PDF, Settings())
    assert parsed.pages_needing_ocr == [] and parsed.ocr.pages == (1,) and parsed.ocr.languages == PdfSettings().ocr_languages
    assert [s.text for s in parsed.segments] == PROSE
    assert all(s.text_source is TextSource.OCR for s in parsed.segments)
    assert parse_document(scan, Format.PDF, Settings()).segments == parsed.segments  # deterministic


def test_a_page_whose_words_are_mostly_uncertain_stays_blocked_named(scan):
    parsed = parse_document(scan, Format.PDF, Settings(pdf=PdfSettings(ocr_confidence_floor=100.0)))
    assert parsed.pages_needing_ocr == [1] and not parsed.segments
    assert any(w.startswith(f"page 1: {OCR_BLOCKED}: OCR read ") for w in parsed.warnings), parsed.warnings


def test_ocr_off_is_todays_block(scan):
    parsed = parse_document(scan, Format.PDF, Settings(pdf=PdfSettings(ocr=False)))
    assert parsed.pages_needing_ocr == [1] and parsed.ocr is None and not parsed.segments


@pytest.mark.parametrize("field, value, message", [
    ("ocr_languages", "vie eng", "ocr_languages"), ("ocr_dpi", 50, "ocr_dpi"), ("ocr_confidence_floor", 120.0, "ocr_confidence_floor"),
    ("ocr_max_uncertain_frac", 0.0, "ocr_max_uncertain_frac"), ("ocr", "yes", "ocr"), ("ocr_workers", -1, "ocr_workers"),
])
def test_ocr_settings_are_validated(field, value, message):
    with pytest.raises(ValueError, match=message):
        PdfSettings(**{field: value})


def test_a_pdfs_time_limit_grows_with_its_pages_when_ocr_is_on():
    from duocthu_assets.stages import ParseJob

    on = ParseJob("a.pdf", "/wh", "0" * 64, "pdf", Settings(parse_timeout_s=120), pages=900)
    off = ParseJob("a.pdf", "/wh", "0" * 64, "pdf", Settings(parse_timeout_s=120, pdf=PdfSettings(ocr=False)), pages=900)
    docx = ParseJob("a.docx", "/wh", "0" * 64, "docx", Settings(parse_timeout_s=120), pages=0)
    assert (on.timeout_s, off.timeout_s, docx.timeout_s) == (120 + 900 * 20.0, 120, 120)
