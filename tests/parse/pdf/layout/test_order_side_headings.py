"""A column of short bold side headings beside running text (redp5110's
back cover highlights) is a column of its own, read whole; a table's bold
first column, level with its rows, is not (issue 15 residual)."""

from __future__ import annotations

from duocthu_assets.parse.pdf.layout.columns import prose_gutter, side_headings
from duocthu_assets.parse.pdf.layout.items import Item
from duocthu_assets.parse.pdf.records import Fragment, Word
from duocthu_assets.settings.pdf import resolve_pdf_settings


def _frag(text: str, x0: float, y0: float, size: float, bold: bool) -> Fragment:
    words, x = [], x0
    for w in text.split():
        words.append(Word(w, (x, y0, x + 5 * len(w), y0 + size), size, bold, False, 0))
        x += 5 * len(w) + 3
    return Fragment(tuple(words), (x0, y0, x - 3, y0 + size), 0, text, size, bold)


HEADINGS = ["Implement roles and", "separation of duties", "Leverage row", "permissions on the"]
PROSE = [
    "This IBM Redpaper publication provides information about the IBM i",
    "feature of IBM DB2 for i Row and Column Access Control and it",
    "offers a broad description of the function and advantages of",
    "controlling access to data in a comprehensive and transparent way",
    "publication helps you understand the capabilities of RCAC and more",
]


def _page(head_y0: float, pitch: float, bold: bool = True) -> list[Fragment]:
    heads = [_frag(t, 27, head_y0 + pitch * k, 12, bold) for k, t in enumerate(HEADINGS)]
    prose = [_frag(t, 153, 242.7 + 12 * k, 10, False) for k, t in enumerate(PROSE)]
    return heads + prose


def test_side_headings_off_the_texts_baselines_are_a_column():
    frags = _page(242.2, 14)
    heads, prose = frags[:4], frags[4:]
    assert side_headings(heads, prose) is True
    gutter = prose_gutter([Item(f.bbox, fragment=f) for f in frags], resolve_pdf_settings(None), 2)
    assert gutter is not None and 100 < gutter[0] < gutter[1] <= 153


def test_a_tables_bold_first_column_level_with_its_rows_is_not():
    frags = _page(242.7 - 2, 12)  # the headings sit on the text's baselines: rows of a table
    heads, prose = frags[:4], frags[4:]
    assert side_headings(heads, prose) is False
    assert prose_gutter([Item(f.bbox, fragment=f) for f in frags], resolve_pdf_settings(None), 2) is None


def test_lines_that_are_not_bold_or_not_short_are_not_side_headings():
    frags = _page(242.2, 14, bold=False)
    assert side_headings(frags[:4], frags[4:]) is False
    long = [_frag("a heading of far more than four words", 27, 242.2 + 14 * k, 12, True) for k in range(3)]
    assert side_headings(long, frags[4:]) is False
