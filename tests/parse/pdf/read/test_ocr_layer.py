"""A scanned page under an OCR program's invisible reading of it (ocrmypdf,
Tesseract's GlyphLessFont, a "searchable image" PDF): text render mode 3
over a page image, or ordinary text the page's image is drawn over (ABBYY
FineReader's "text under the page image"). Every text extractor reads that text; nobody sees it, and
its misreadings (``0,376`` for ``0,375``, ``Nghị ãinh`` for ``Nghị định``)
cannot be told from the text. Before this it was ingested ok as the page's
text; now such a page needs OCR checked by a person (``no_pages_need_ocr``
blocks the document, naming the layer) unless the collection accepts OCR
text as it reads (``[pdf] accept_ocr_text = true``)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.read.hidden import INVISIBLE_TEXT, invisible_chars
from duocthu_assets.settings.pdf import PdfSettings
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path
from tests.support.ingest import ingest_inbox
from tests.support.pdf_pages import dejavu

NO_OCR = Settings(pdf=PdfSettings(ocr=False))  # the detection alone: OCR off, today's loud block

SEEN = ["Liều dùng ở người suy thận", "Clcr 30 – 50 ml/phút: 0,375 g mỗi lần, cách 12 giờ."]
READ = ["Liều dùng ở người suy thận", "Clcr 30 – 50 ml/phút: 0,376 g mỗi lần, cách 12 giờ."]  # the OCR program's misreading


def _lines(page, lines: list[str], **how) -> None:
    for k, line in enumerate(lines):
        page.insert_text((72, 100 + 20 * k), line, **dejavu(12), **how)


def _scan(seen: list[str]) -> bytes:
    """A 150 dpi image of a page printing ``seen``: its scan."""
    paper = pymupdf.open()
    page = paper.new_page()
    _lines(page, seen)
    return page.get_pixmap(dpi=150).tobytes("png")


def scanned_under_ocr(hidden: list[str] = READ, seen: list[str] = SEEN) -> bytes:
    """A page that is one image of ``seen`` (a scan), ``hidden`` laid over it
    in text render mode 3, as an OCR program does."""
    doc = pymupdf.open()
    out = doc.new_page()
    out.insert_image(out.rect, stream=_scan(seen))
    _lines(out, hidden, render_mode=3)
    return doc.tobytes()


def text_under_its_scan(read: list[str] = READ, seen: list[str] = SEEN) -> bytes:
    """The other way OCR programs make a scan searchable (ABBYY FineReader's
    "text under the page image"): the reading drawn as ordinary text, the
    page's image drawn over it."""
    doc = pymupdf.open()
    out = doc.new_page()
    _lines(out, read)
    out.insert_image(out.rect, stream=_scan(seen))  # drawn last: over the text
    return doc.tobytes()


def born_digital(hidden: list[str] = ()) -> bytes:
    font = dejavu(12)
    doc = pymupdf.open()
    page = doc.new_page()
    for k, line in enumerate(SEEN * 3):
        page.insert_text((72, 100 + 20 * k), line, **font)
    for k, line in enumerate(hidden):
        page.insert_text((72, 300 + 20 * k), line, render_mode=3, **font)
    return doc.tobytes()


def test_invisible_characters_are_counted():
    page = pymupdf.open(stream=scanned_under_ocr(), filetype="pdf")[0]
    assert invisible_chars(page.get_textpage().extractDICT()) == len("".join("".join(READ).split()))
    page = pymupdf.open(stream=born_digital(), filetype="pdf")[0]
    assert invisible_chars(page.get_textpage().extractDICT()) == 0


def test_a_scanned_page_under_an_ocr_layer_needs_ocr():
    parsed = parse_document(scanned_under_ocr(), Format.PDF, NO_OCR)
    assert parsed.pages_needing_ocr == [1]
    warning = next(w for w in parsed.warnings if INVISIBLE_TEXT in w)
    assert f"per page: page 1: {len(''.join(''.join(READ).split()))}" in warning and "1 page(s) mostly such text, blocked" in warning, warning
    assert "accept_ocr_text = true under [pdf]" in warning


def test_text_under_a_scan_of_its_page_needs_ocr_too():
    parsed = parse_document(text_under_its_scan(), Format.PDF, NO_OCR)
    assert parsed.pages_needing_ocr == [1]
    assert any(INVISIBLE_TEXT in w and "1 page(s) mostly such text, blocked" in w for w in parsed.warnings), parsed.warnings


def test_a_picture_behind_text_hides_nothing():
    """A page-size background image drawn first, a page of text over it:
    seen. (With only a line or two over it, the page would be a scan under a
    stamp's text: ``read/scans``.)"""
    font = dejavu(12)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_image(page.rect, stream=pymupdf.open(stream=born_digital(), filetype="pdf")[0].get_pixmap(dpi=150).tobytes("png"))  # a scan's size: the drawing order decides
    for k in range(30):
        page.insert_text((72, 100 + 20 * k), SEEN[k % 2], **font)
    parsed = parse_document(doc.tobytes(), Format.PDF, Settings())
    assert parsed.pages_needing_ocr == [] and not any(INVISIBLE_TEXT in w for w in parsed.warnings)


def test_a_collection_that_accepts_ocr_text_reads_it_and_says_so():
    parsed = parse_document(scanned_under_ocr(), Format.PDF, Settings(pdf=PdfSettings(accept_ocr_text=True)))
    assert parsed.pages_needing_ocr == []
    assert "0,376 g mỗi lần" in " ".join(s.text for s in parsed.segments)  # as the OCR program read it
    assert any(INVISIBLE_TEXT in w and "read as text: the collection accepts OCR text" in w for w in parsed.warnings)


def test_a_few_hidden_words_on_a_page_of_visible_text_are_named_not_blocked():
    parsed = parse_document(born_digital(hidden=["khóa tìm kiếm ẩn"]), Format.PDF, Settings())
    assert parsed.pages_needing_ocr == []
    assert any(INVISIBLE_TEXT in w and "page 1: 13" in w for w in parsed.warnings), parsed.warnings
    assert not any(INVISIBLE_TEXT in w for w in parse_document(born_digital(), Format.PDF, Settings()).warnings)


def test_accept_ocr_text_is_a_boolean():
    with pytest.raises(ValueError, match="accept_ocr_text"):
        PdfSettings(accept_ocr_text="yes")


@pytest.mark.slow
def test_ingest_blocks_an_ocr_layer_and_a_collection_may_accept_it(tmp_path):
    """Through ``duocthu ingest``, OCR off: the OCR'd scan is blocked by
    ``no_pages_need_ocr``, its message naming the invisible layer; the same
    file in a folder whose collection.toml accepts OCR text is ok."""
    inbox = tmp_path / "inbox"
    (inbox / "off").mkdir(parents=True)
    (inbox / "accepting").mkdir(parents=True)
    (inbox / "off" / "collection.toml").write_text("[pdf]\nocr = false\n", encoding="utf-8")
    (inbox / "accepting" / "collection.toml").write_text("[pdf]\nocr = false\naccept_ocr_text = true\n", encoding="utf-8")
    scan = scanned_under_ocr()
    docs = ingest_inbox(tmp_path, {"off/scan.pdf": scan, "accepting/scan.pdf": scan})["docs"]
    blocked = next(d for k, d in docs.items() if "off" in k)
    assert blocked["status"] == "blocked" and "no_pages_need_ocr" in " ".join(blocked["failed_checks"]), blocked
    assert INVISIBLE_TEXT in blocked["reason"] and "an OCR program's reading of a scanned image" in blocked["reason"], blocked["reason"]
    assert "drawn invisibly or under an image of the page" in blocked["reason"], blocked["reason"]
    accepted = next(d for k, d in docs.items() if "accepting" in k)
    assert accepted["status"] == "ok", accepted


@pytest.mark.corpus
def test_a_corpus_scan_ocred_by_ocrmypdf_is_blocked(tmp_path):
    """A real OCR program: ocrmypdf (Tesseract) over the corpus's scanned
    page; skipped where ocrmypdf is not installed."""
    if shutil.which("ocrmypdf") is None:
        pytest.skip("ocrmypdf not installed (apt-get install ocrmypdf)")
    source = corpus_path("docling__ocr_test_scanned.pdf")
    out = tmp_path / "ocred.pdf"
    subprocess.run(["ocrmypdf", "-q", "--output-type", "pdf", str(source), str(out)], check=True, timeout=600)
    parsed = parse_document(out.read_bytes(), Format.PDF, NO_OCR)
    assert parsed.pages_needing_ocr == [1]
    assert any(INVISIBLE_TEXT in w for w in parsed.warnings)
