"""Glyphs drawn a second time over a line already read (redp5110 p. 10:
``S ifi th t th i i i t b i iti ll di bl d`` over ``Specifies that the row
permission is to be initially disabled``) are read once: the page shows one
line, and leak_02 no longer sees an unreadable line."""

from __future__ import annotations

import pytest

from duocthu_assets.parse.pdf.engine import open_pdf
from duocthu_assets.parse.pdf.read.overprint import overprinted_lines
from duocthu_assets.parse.pdf.read.page import read_page
from duocthu_assets.settings.pdf import resolve_pdf_settings

from tests.support.paths import CORPUS

LINE = ((311.7, 376.7, 527.6, 384.5), "Specifies that the row permission is to be initially disabled", "Calibri", 9.2)


def test_a_partial_copy_drawn_over_a_line_is_overprint():
    lines = [
        ((311.7, 376.7, 316.0, 384.5), "S", "Calibri", 9.2),
        ((346.4, 376.7, 371.7, 384.5), "th t th", "Calibri", 9.2),
        LINE,
    ]
    assert overprinted_lines(lines) == {0, 1}


@pytest.mark.parametrize(
    "line",
    [
        ((346.4, 390.0, 371.7, 397.8), "th t th", "Calibri", 9.2),  # the next line down
        ((346.4, 376.7, 371.7, 384.5), "th t th", "Calibri,Bold", 9.2),  # another face: a word set over it on purpose
        ((346.4, 376.7, 371.7, 384.5), "xyz", "Calibri", 9.2),  # letters the line does not hold
        ((300.0, 376.7, 371.7, 384.5), "th t th", "Calibri", 9.2),  # sticks out of the line
        ((311.7, 376.7, 527.6, 384.5), LINE[1], "Calibri", 9.2),  # a copy of the same length is kept (not shorter)
    ],
)
def test_lines_that_are_not_a_copy_drawn_over_another_are_kept(line):
    assert overprinted_lines([line, LINE]) == set()


REDP = CORPUS / "docling__redp5110_sampled.pdf"


@pytest.mark.skipif(not REDP.exists(), reason="corpus not present")
def test_redp5110_page_10_reads_the_line_once():
    doc = open_pdf(REDP.read_bytes())
    try:
        page = read_page(doc[9], resolve_pdf_settings(None))
    finally:
        doc.close()
    texts = [f.text for f in page.fragments]
    assert sum("initially disabled" in t for t in texts) == 1
    assert "ifi" not in {w.text for w in page.words} and "bl" not in {w.text for w in page.words}
