"""Pieces for the PDF pages a test draws with PyMuPDF: DejaVu Sans (it sets
Vietnamese), a writer that says where its text ends, and a page laid out by
MuPDF's own HTML writer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from duocthu_assets.parse.pdf.engine import pymupdf

from tests.support.docgen import FONT

DEJAVU_DIR = str(Path(FONT).parent)


def dejavu(fontsize: float = 11) -> dict:
    """``insert_text``'s keywords for DejaVu Sans at ``fontsize``; the test
    is skipped when the font is not installed."""
    if not os.path.isfile(FONT):
        pytest.skip("DejaVu Sans not installed")
    return {"fontname": "dejavu", "fontfile": FONT, "fontsize": fontsize}


def text_writer(page, fontname: str = "tiro"):
    """``put(x, y, text, size)`` writing ``text`` on ``page`` with its
    baseline at ``y`` and returning where it ends, and the font."""
    font = pymupdf.Font(fontname)

    def put(x, y, text, size):
        page.insert_text((x, y), text, fontsize=size, fontname=fontname)
        return x + font.text_length(text, size)

    return put, font


def html_page(html: str, css: str) -> bytes:
    """A PDF of one page whose box (50, 50, 550, 400) holds ``html`` laid out
    by ``insert_htmlbox`` (HarfBuzz shaping), ``css`` finding its fonts in
    DejaVu's folder; the test is skipped when DejaVu Sans is not installed."""
    if not os.path.isfile(FONT):
        pytest.skip("DejaVu Sans not installed")
    doc = pymupdf.open()
    doc.new_page().insert_htmlbox(pymupdf.Rect(50, 50, 550, 400), html, css=css, archive=pymupdf.Archive(DEJAVU_DIR))
    return doc.tobytes()
