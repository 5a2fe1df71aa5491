"""Scanned pages made for the OCR tests (issue 39): a page of text (and,
when asked, a ruled table and a signature) set with a real font, rendered
to a grey image and put back as a page with no text layer — a scan whose
truth is known. ``needs_tesseract`` skips a test where ``make ocr`` has not
installed Tesseract, saying why."""

from __future__ import annotations

import shutil

import pytest

from duocthu_assets.parse.pdf.engine import pymupdf
from tests.support.pdf_pages import dejavu

PROSE = [
    "Liều dùng cho người lớn: uống 500 mg mỗi 8 giờ.",
    "Trẻ em từ 6 đến 12 tuổi: 250 mg mỗi 12 giờ.",
    "Không dùng quá 4 g trong 24 giờ.",
]


def needs_tesseract() -> None:
    """Skip the calling test when Tesseract or its vie/eng data is missing."""
    if shutil.which("tesseract") is None:
        pytest.skip("tesseract is not installed (run `make ocr`: Debian's tesseract-ocr with vie, eng, fas)")
    import pytesseract

    missing = {"vie", "eng"} - set(pytesseract.get_languages(config=""))
    if missing:
        pytest.skip(f"tesseract has no {'+'.join(sorted(missing))} data (run `make ocr`)")


def scanned_pdf(lines: list[str] = PROSE, dpi: int = 200, table: list[list[str]] | None = None,
                signature: bool = False, size: float = 13) -> bytes:
    """One A4 page: ``lines`` of text from the top, then a ruled ``table``
    (rows of cells) and a signature squiggle when asked, rendered in grey at
    ``dpi`` and put back as the page's only content (no text layer)."""
    src = pymupdf.open()
    page = src.new_page(width=595, height=842)
    y = 90.0
    for line in lines:
        page.insert_text((72, y), line, **dejavu(size))
        y += size * 1.8
    if table:
        y += 20
        top, row_h, col_w = y, 28.0, 140.0
        cols = max(len(r) for r in table)
        for r, row in enumerate(table):
            for c, cell in enumerate(row):
                page.insert_text((72 + c * col_w + 6, top + r * row_h + 19), cell, **dejavu(11))
        for r in range(len(table) + 1):
            page.draw_line((72, top + r * row_h), (72 + cols * col_w, top + r * row_h), width=1.2)
        for c in range(cols + 1):
            page.draw_line((72 + c * col_w, top), (72 + c * col_w, top + len(table) * row_h), width=1.2)
        y = top + len(table) * row_h + 30
    if signature:
        y += 30
        for k in range(6):
            page.draw_bezier((380 + 10 * k, y + 40), (390 + 15 * k, y - 40), (430 + 5 * k, y + 90), (470 + 8 * k, y), width=2.5)
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    out = pymupdf.open()
    scan = out.new_page(width=595, height=842)
    scan.insert_image(scan.rect, pixmap=pix)
    return out.tobytes(garbage=4, deflate=True, no_new_id=True)
