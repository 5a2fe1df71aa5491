"""DOCX and XLSX built in memory by a test's own callback (python-docx,
openpyxl), and the texts of a parse's segments."""

from __future__ import annotations

import io

from duocthu_assets.model import SegmentKind


def build_docx(build) -> bytes:
    """A new Word document passed to ``build(doc)``, saved to bytes."""
    from docx import Document

    doc = Document()
    build(doc)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def xlsx_bytes(build) -> bytes:
    """A new workbook passed to ``build(wb)``, saved to bytes."""
    from openpyxl import Workbook

    wb = Workbook()
    build(wb)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def texts(doc, kind: SegmentKind | None = None) -> list[str]:
    """The text of each segment of a parse (only those of ``kind`` if given)."""
    return [s.text for s in doc.segments if kind is None or s.kind is kind]
