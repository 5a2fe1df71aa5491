"""A page of three columns of running text reads column by column (issue
15: no prose read across columns), with narrow gutters like the Federal
Register's (9 pt): each side of the first gutter is not one column of
running text, but the right side is two of its own."""

from __future__ import annotations

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path

WORDS = "the agency evaluated all the relevant information and determined that the unsafe condition exists".split()


def _column_text(k: int) -> str:
    return " ".join(f"{w}{k}" if i % 5 == 0 else w for i, w in enumerate(WORDS * 6))


def _three_column_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for k, x in enumerate((45, 222, 399)):
        page.insert_textbox(pymupdf.Rect(x, 60, x + 168, 700), _column_text(k), fontsize=8, fontname="tiro")
    return doc.tobytes()


def test_three_columns_read_column_by_column():
    parsed = parse_document(_three_column_pdf(), Format.PDF, Settings())
    text = " ".join(s.text for s in parsed.segments)
    starts = [text.find(_column_text(k)[:60]) for k in range(3)]
    assert all(s >= 0 for s in starts), "each column's text reads whole"
    assert starts == sorted(starts)
    for k in range(3):
        assert _column_text(k) in text  # never interleaved with another column


@pytest.mark.corpus
def test_federal_register_three_columns():
    """pdfplumber's Federal Register p. 2: three columns 9 pt apart (before:
    read across, ``737–8 airplane operated by Ethiopian for the FCC
    operational program that a single erroneously high angle of …``)."""
    parsed = parse_document(corpus_path("pdfplumber__federal-register-2020-17221.pdf").read_bytes(), Format.PDF, Settings())
    text = " ".join(s.text for s in parsed.segments)
    assert "Hatta International Airport in Jakarta, Indonesia, resulting in 189 fatalities. Investigation of the accident has been completed" in text
    assert "operated by Ethiopian for the FCC" not in text
    assert all(a.accounted for a in parsed.page_accounts)
