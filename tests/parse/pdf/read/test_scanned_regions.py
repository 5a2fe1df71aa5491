"""Scanned pictures inside a page with a text layer (``read/scans``): an
image of 1 bit a pixel, as a scanner makes it, over 5 % of the page or more
with next to no text over it is a picture of text (or of a drawing) that no
text extractor reads. Before, such a page needed OCR only when it held
almost no text: the Federal Register's scanned procedures between lines of
text, and the first page of a chinhphu.vn signed scan (its signature's 126
characters over the scanned decree) were in no chunk, with nothing said —
a one-page signed scan ingested ok with the signature as its only text."""

from __future__ import annotations

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.read.scans import SCANNED_REGION
from duocthu_assets.settings import Settings
from duocthu_assets.settings.pdf import PdfSettings

NO_OCR = Settings(pdf=PdfSettings(ocr=False))  # the detection alone: OCR off, today's loud block

from tests.support.paths import corpus_path
from tests.support.ingest import ingest_inbox

PROSE = "Renal function is checked before every dose change and the dose is adjusted to the creatinine clearance."


def bilevel(text: str, width: float = 300, height: float = 60) -> bytes:
    """``text`` scanned: rendered at 300 dpi and made 1 bit a pixel (a PBM)."""
    src = pymupdf.open()
    page = src.new_page(width=width, height=height)
    page.insert_text((10, height / 2 + 6), text, fontsize=16)
    pix = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY, alpha=False)
    samples = pix.samples  # a copy of the buffer at each access
    rows = []
    for y in range(pix.height):
        bits = bytearray((pix.width + 7) // 8)
        for x in range(pix.width):
            if samples[y * pix.stride + x] < 128:
                bits[x // 8] |= 0x80 >> (x % 8)
        rows.append(bytes(bits))
    return b"P4\n%d %d\n" % (pix.width, pix.height) + b"".join(rows)


def page_with(picture: bytes | None, rect: tuple, lines: int = 20, over: str = "", photo: bool = False) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    for k in range(lines):
        page.insert_text((72, 72 + 14 * k), PROSE, fontsize=9)
    if picture is not None:
        if photo:  # the same picture, 8 bits a pixel in colour: a photograph or a chart
            pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.Pixmap(picture))
            page.insert_image(pymupdf.Rect(rect), pixmap=pix)
        else:
            page.insert_image(pymupdf.Rect(rect), stream=picture)
    if over:
        page.insert_text((rect[0] + 4, rect[1] + 12), over, fontsize=8)
    return doc.tobytes()


DOSE = bilevel("Clcr 30-50: 0,375 g / 12 h")


def _parse(data: bytes):
    return parse_document(data, Format.PDF, NO_OCR)


def test_a_scanned_table_between_lines_of_text_needs_ocr():
    parsed = _parse(page_with(DOSE, (72, 400, 522, 490)))
    assert parsed.pages_needing_ocr == [1]
    [warning] = [w for w in parsed.warnings if SCANNED_REGION in w]
    assert warning.startswith("1 scanned region(s) with no text over them") and "page 1: 8 %" in warning


def test_photographs_small_scans_and_scans_under_text_are_not_regions():
    small = _parse(page_with(DOSE, (72, 400, 222, 430)))  # a signature's size: 0.9 % of the page
    photo = _parse(page_with(DOSE, (72, 400, 522, 490), photo=True))
    under = _parse(page_with(bilevel("DRAFT"), (72, 60, 522, 340)))  # a watermark under 20 lines of text
    for parsed in (small, photo, under):
        assert parsed.pages_needing_ocr == [] and not any(SCANNED_REGION in w for w in parsed.warnings)


SIGNATURE = "Signed by: Ministry of Health, Office of the Minister, 12.04.2024 14:37:17 +07:00"


@pytest.mark.parametrize("photo", [False, True], ids=["bilevel", "colour"])
def test_a_scan_under_a_signature_stamp_needs_ocr(photo):
    """A whole page scanned (in colour too, to keep a red seal), a digital
    signature's text set over it: before, the page read as the signature."""
    stamped = page_with(bilevel("Clcr 30-50: 0,375 g / 12 h", 300, 390), (0, 0, 612, 792), lines=0, over=SIGNATURE, photo=photo)
    assert _parse(stamped).pages_needing_ocr == [1]


def test_a_photograph_over_part_of_a_page_with_a_caption_is_not_a_scan():
    parsed = _parse(page_with(bilevel("photo", 300, 200), (72, 300, 540, 612), lines=3, over=SIGNATURE, photo=True))
    assert parsed.pages_needing_ocr == [] and not any(SCANNED_REGION in w for w in parsed.warnings)


@pytest.mark.corpus
def test_corpus_federal_register_scanned_procedures():
    """The Federal Register's airworthiness directive prints its procedures
    as scanned figures (1 bit a pixel, 300 dpi) between lines of text:
    eleven of them, 8-52 % of their pages."""
    parsed = _parse(corpus_path("pdfplumber__federal-register-2020-17221.pdf").read_bytes())
    assert parsed.pages_needing_ocr == [7, 8, 9, 10, 11, 12, 13, 14]
    [warning] = [w for w in parsed.warnings if SCANNED_REGION in w]
    assert warning.startswith("11 scanned region(s)") and "page 7: 8 %, page 8: 52 %, page 9: 51 %, page 10: 34 %" in warning


@pytest.mark.corpus
def test_corpus_signed_scan_first_page_needs_ocr():
    """chinhphu.vn's signed scans: page 1 carries the signature's text."""
    for name, pages in (("vnlaw__06-bct.signed.pdf", 3), ("vnlaw__28-pt.signed.pdf", 10)):
        assert _parse(corpus_path(name).read_bytes()).pages_needing_ocr == list(range(1, pages + 1))


@pytest.mark.corpus
@pytest.mark.slow
def test_ingest_of_a_one_page_signed_scan_is_blocked(tmp_path):
    """Through ``duocthu ingest``, OCR off: ok before, with the signature as its only text
    (OCR on reads it: tests/e2e/test_ocr_ingest.py)."""
    src = pymupdf.open(corpus_path("vnlaw__06-bct.signed.pdf"))
    one = pymupdf.open()
    one.insert_pdf(src, from_page=0, to_page=0)
    (tmp_path / "inbox" / "off").mkdir(parents=True)
    (tmp_path / "inbox" / "off" / "collection.toml").write_text("[pdf]\nocr = false\n", encoding="utf-8")
    docs = ingest_inbox(tmp_path, {"off/cong_van.pdf": one.tobytes()})["docs"]
    doc = next(d for k, d in docs.items() if "cong_van" in k)
    assert doc["status"] == "blocked", docs
    assert doc["failed_checks"] == ["no_pages_need_ocr"]
    assert "1 scanned region(s) with no text over them" in str(doc)
