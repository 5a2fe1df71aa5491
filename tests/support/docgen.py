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
