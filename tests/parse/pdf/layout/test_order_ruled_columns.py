"""A drawn vertical line between two columns (a rule, or the edge of a filled
box: redp5110's red back-cover sidebar) divides them for the reading order,
although the box's short lines are not "running text" for the whitespace
cut; a table's columns, level with each other, are never cut (issue 15
residual)."""

from __future__ import annotations

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.layout.columns import ruled_columns, ruled_cut
from duocthu_assets.parse.pdf.layout.items import Item
from duocthu_assets.parse.pdf.records import Fragment, Rule, Word
from duocthu_assets.settings import Settings

from tests.support.paths import CORPUS

PROSE = [
    "This publication provides information about the seventh",
    "feature of the database for row and column access control. It",
    "offers a broad description of the function and advantages of",
    "controlling access to data in a comprehensive and clear way.",
    "This publication helps you understand the capabilities and",
    "provides examples of defining and implementing the permissions.",
]
SIDEBAR = ["INTERNATIONAL", "TECHNICAL", "SUPPORT", "ORGANIZATION", "Redbooks are", "developed by the", "support team."]


def _page(box: bool) -> bytes:
    """Running text at the left (12 pt pitch) and short sidebar lines (14 pt
    pitch) at the right, the sidebar on a filled red box or on white."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    if box:
        page.draw_rect(pymupdf.Rect(445, 228, 611, 792), color=None, fill=(1, 0, 0))
    for k, line in enumerate(PROSE):
        page.insert_text((153, 251 + 12 * k), line, fontsize=9, fontname="helv")
    for k, line in enumerate(SIDEBAR):
        page.insert_text((467, 258 + 14 * k), line, fontsize=11, fontname="hebo" if k < 4 else "helv")
    return doc.tobytes()


def _texts(data: bytes) -> list[str]:
    return [s.text for s in parse_document(data, Format.PDF, Settings()).segments]


def test_a_filled_box_beside_running_text_is_a_column_of_its_own():
    texts = _texts(_page(box=True))
    assert texts[0].startswith("This publication provides") and texts[0].endswith("implementing the permissions.")
    assert not any(w in texts[0] for w in SIDEBAR[:4])
    assert "INTERNATIONAL TECHNICAL SUPPORT ORGANIZATION" in " ".join(texts[1:])


def test_without_the_box_the_same_lines_are_read_across():
    """The control: on white the whitespace cut refuses the sidebar (its lines
    are short), so only the drawn edge makes the columns. (Its one-word
    lines stand past the column's edge across a gutter and are read after
    the column, as a figure's labels are: ``layout/order._with_asides``; its
    two-word lines still read across.)"""
    texts = _texts(_page(box=False))
    assert any("implementing the permissions. Redbooks are" in t for t in texts)
    assert "INTERNATIONAL TECHNICAL SUPPORT ORGANIZATION" in texts


def _frag(text: str, x0: float, baseline: float, size: float = 9.0) -> Fragment:
    words, x = [], x0
    for w in text.split():
        words.append(Word(w, (x, baseline - size, x + 4 * len(w), baseline), size, False, False, 0))
        x += 4 * len(w) + 3
    return Fragment(tuple(words), (x0, baseline - size, x - 3, baseline), 0, text, size, False)


def _items(frags: list[Fragment]) -> list[Item]:
    return [Item(f.bbox, fragment=f) for f in frags]


SEPARATOR = Rule(445.6, 227.5, 445.6, 792.0, False)
LEFT = [_frag(t, 153, 251 + 12 * k) for k, t in enumerate(PROSE)]
RIGHT = [_frag(t, 467, 258 + 14 * k, 11) for k, t in enumerate(SIDEBAR)]


def test_the_cut_puts_the_text_above_the_band_first_and_splits_the_band():
    title = _frag("Row and Column Access Control", 27, 100, 24)
    cut = ruled_cut(_items([title, *LEFT, *RIGHT]), [SEPARATOR], 4)
    assert cut is not None
    above, left, right, below = cut
    assert [i.fragment for i in above] == [title] and below == []
    assert [i.fragment for i in left] == LEFT and [i.fragment for i in right] == RIGHT


def test_a_tables_columns_level_with_each_other_are_not_cut():
    """A ruled table's label column beside wrapped cells: every label sits on
    a row's baseline."""
    labels = [_frag(w, 467, 251 + 24 * k) for k, w in enumerate(["ALLOWED", "DENIED", "UNKNOWN"])]
    assert ruled_columns(LEFT, labels, 4) is False
    assert ruled_cut(_items(LEFT + labels), [SEPARATOR], 4) is None


def test_short_lines_on_both_sides_are_not_cut():
    short = [_frag("a label", 153, 251 + 17 * k) for k in range(6)]
    assert ruled_columns(short, RIGHT, 4) is False


@pytest.mark.parametrize(
    "extra",
    [
        _frag("a line running across the separator into the box", 300, 330),  # crosses it
        _frag("Big", 153, 256, 36),  # starts above the separator, ends among its lines: neither in its band nor above it
    ],
)
def test_no_cut_when_an_item_crosses_the_separator_or_straddles_its_band(extra):
    assert ruled_cut(_items([*LEFT, *RIGHT, extra]), [SEPARATOR], 4) is None


def test_a_separator_too_short_for_the_lines_beside_it_cuts_nothing():
    short = Rule(445.6, 240.0, 445.6, 300.0, False)
    assert ruled_cut(_items(LEFT + RIGHT), [short], 4) is None


REDP = CORPUS / "docling__redp5110_sampled.pdf"


@pytest.mark.skipif(not REDP.exists(), reason="corpus not present")
def test_redp5110_back_cover_reads_text_then_sidebar():
    segments = [s for s in parse_document(REDP.read_bytes(), Format.PDF, Settings()).segments if s.page_no == 18]
    texts = [s.text for s in segments]
    first = next(t for t in texts if t.startswith("This IBM Redpaper publication"))
    assert "INTERNATIONAL" not in first and "TECHNICAL" not in first
    assert first.endswith("and column masks in a relational database environment.")
    sidebar = texts.index("INTERNATIONAL TECHNICAL SUPPORT ORGANIZATION")
    assert texts.index(first) < sidebar
    # the highlights stay whole headings, read before the text
    assert texts.index("Leverage row permissions on the database") < texts.index(first)
