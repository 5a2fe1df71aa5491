"""Small generated documents for tests that must run without ../shared/corpus.
Each writes real files with the real libraries (PyMuPDF, python-docx, openpyxl)."""

from __future__ import annotations

import datetime
from pathlib import Path

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def make_text_pdf(path: Path, pages: list[list[str]]) -> Path:
    """A born-digital PDF: each page's lines as text (Vietnamese-capable font)."""
    import pymupdf

    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        y = 72
        for line in lines:
            kwargs = {"fontname": "dejavu", "fontfile": FONT} if Path(FONT).exists() else {}
            page.insert_text((72, y), line, fontsize=11, **kwargs)
            y += 16
    doc.set_metadata({"creationDate": "D:20260101000000", "modDate": "D:20260101000000", "producer": "duocthu tests"})
    path.write_bytes(doc.tobytes(garbage=4, deflate=True, no_new_id=True))
    return path


def make_scanned_pdf(path: Path, pages: int = 2) -> Path:
    """A PDF whose pages are only images (no text layer), like a scan."""
    import pymupdf

    doc = pymupdf.open()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 100), False)
    pix.set_rect(pix.irect, (200, 200, 200))
    png = pix.tobytes("png")
    for _ in range(pages):
        page = doc.new_page(width=595, height=842)
        page.insert_image(pymupdf.Rect(0, 0, 595, 842), stream=png, keep_proportion=False)
    path.write_bytes(doc.tobytes(garbage=4, deflate=True, no_new_id=True))
    return path


def make_docx(path: Path, sections: list[tuple[str, list[str]]]) -> Path:
    import docx

    document = docx.Document()
    for heading, paragraphs in sections:
        document.add_heading(heading, level=1)
        for text in paragraphs:
            document.add_paragraph(text)
    document.core_properties.created = datetime.datetime(2026, 1, 1)
    document.core_properties.modified = datetime.datetime(2026, 1, 1)
    document.save(str(path))
    return path


def make_xlsx(path: Path, header: list[str], rows: list[list[object]], sheet: str = "Data") -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    ws = workbook.active
    ws.title = sheet
    ws.append(header)
    for row in rows:
        ws.append(row)
    workbook.save(str(path))
    return path


def make_repeated_page_number_pdf(path: Path) -> Path:
    """Two pages that both print "1" at the foot, a ruled table on the
    second: the table's page number cannot be verified (page 1 prints it
    too), so chunks' ``adr0006_10_attachment_without_printed_page`` blocks
    it — the reviewer's "page-number case"."""
    import pymupdf

    doc = pymupdf.open()
    font = {"fontname": "dejavu", "fontfile": FONT} if Path(FONT).exists() else {}
    for n in range(2):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 80), f"{n + 1}. Liều dùng theo chức năng thận", fontsize=13, **font)
        page.insert_text((72, 110), "Điều chỉnh liều theo độ thanh thải creatinin như bảng sau.", fontsize=11, **font)
        if n == 1:
            rows = [["Độ thanh thải", "Liều", "Khoảng cách"], [">50", "500 mg", "8 giờ"], ["10-50", "250 mg", "12 giờ"]]
            x0, y0, w, h = 72, 140, 150, 24
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    page.insert_text((x0 + c * w + 4, y0 + r * h + 16), cell, fontsize=10, **font)
            for r in range(len(rows) + 1):
                page.draw_line((x0, y0 + r * h), (x0 + 3 * w, y0 + r * h), width=0.8)
            for c in range(4):
                page.draw_line((x0 + c * w, y0), (x0 + c * w, y0 + len(rows) * h), width=0.8)
        page.insert_text((290, 812), "1", fontsize=9, **font)
    doc.set_metadata({"creationDate": "D:20260101000000", "modDate": "D:20260101000000", "producer": "duocthu tests"})
    path.write_bytes(doc.tobytes(garbage=4, deflate=True, no_new_id=True))
    return path

