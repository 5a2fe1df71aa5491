"""A table's extent, its parts and its frame (issue 15 items 1, 3, 6): pure
functions fed synthetic lines, then the real documents that needed them.

- rows under a header band that keep its grid, with group-label rows
  between them (``camelot__edge_tol.pdf``), and the last line of a wrapped
  cell (``doclingparse__case_03…`` p. 1) belong to the table; a caption or a
  prose line under a table does not;
- a continued table's parts are linked across a page whose margin holds a
  vertical running head or navigation labels;
- rules dividing a page into panels of running text are a layout frame,
  not a table (``docling__redp5110_sampled.pdf`` p. 18);
- a table set sideways on an upright page is cropped the way it reads.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pytest

from duocthu_assets.model import BlockKind, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.assemble import _is_minor
from duocthu_assets.parse.pdf.crops import crop_box, render_block_crop
from duocthu_assets.parse.pdf.engine import open_pdf
from duocthu_assets.parse.pdf.blocks.extent import grow_down
from duocthu_assets.parse.pdf.geometry import center, contains_point
from duocthu_assets.parse.pdf.layout.paragraphs import Para
from duocthu_assets.parse.pdf.records import Fragment, Word, make_fragment
from duocthu_assets.parse.pdf.read.page import read_page
from duocthu_assets.settings.pdf import resolve_pdf_settings
from duocthu_assets.parse.pdf.blocks.scoring import frames_running_text
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path

_ids = iter(range(1, 10**6))


def line(text: str, x0: float, y0: float, width: float | None = None, size: float = 10.0) -> Fragment:
    """One fragment: ``text``'s words set from ``x0`` on the line at ``y0``."""
    words = []
    x = x0
    step = (width / max(len(text.split()), 1)) if width else None
    lid = next(_ids)
    for w in text.split():
        wide = step if step else 5.0 * len(w)
        words.append(Word(w, (x, y0, x + wide - 3, y0 + size), size, False, False, lid))
        x += wide
    return make_fragment(words, lid)


def key_figures(under: list[Fragment]) -> list[Fragment]:
    """A header band (``2016`` right-aligned) and ``under`` below it."""
    return [line("2016", 505, 142, 30), *under]


HEADER_BAND = (69.5, 140.0, 543.0, 154.5)


def test_rows_under_a_header_band_with_group_labels_join_it():
    rows = [
        line("(all amounts in EUR)", 71, 156, 100),
        line("Class A", 71, 181, 40),
        line("Net Asset Value at 31 December", 71, 203, 155), line("5,111,372", 483, 203, 52),
        line("Number of outstanding units", 71, 224, 150), line("49,136", 499, 224, 36),
        line("Net Asset Value per unit", 71, 246, 130), line("104.03", 499, 246, 36),
        line("Class B", 71, 279, 40),
        line("Net Asset Value at 31 December", 71, 301, 155), line("49,144,825", 477, 301, 58),
    ]
    grown = grow_down(HEADER_BAND, key_figures(rows))
    assert grown[3] == pytest.approx(311, abs=0.5)  # down to the last row of cells, the labels between taken


def test_a_caption_or_prose_under_a_table_is_not_taken():
    rows = [
        line("Net Asset Value at 31 December", 71, 160, 155), line("5,111,372", 483, 160, 52),
        line("Table 2 Key figures of the fund", 71, 181, 150),
        line("Net Asset Value at 31 December", 71, 203, 155), line("49,136", 499, 203, 36),
    ]
    grown = grow_down(HEADER_BAND, key_figures(rows))
    assert grown[3] == pytest.approx(170, abs=0.5)  # the caption stops the table; the row under it is another table's
    prose = [
        line("Net Asset Value at 31 December", 71, 160, 155), line("5,111,372", 483, 160, 52),
        line("The fund was launched on 8 April 2016 and its units are", 71, 181, 460),
    ]
    assert grow_down(HEADER_BAND, key_figures(prose))[3] == pytest.approx(170, abs=0.5)


def test_label_rows_alone_under_a_table_are_not_taken():
    """Short lines under a table with no row of cells after them: a heading
    and the prose of the next section, not group labels."""
    rows = [
        line("Net Asset Value at 31 December", 71, 160, 155), line("5,111,372", 483, 160, 52),
        line("Outlook", 71, 181, 40),
        line("The fund expects", 71, 195, 90),
    ]
    assert grow_down(HEADER_BAND, key_figures(rows))[3] == pytest.approx(170, abs=0.5)


def test_the_last_line_of_a_wrapped_cell_joins_the_table_a_note_does_not():
    table = [
        line("Facies 5", 48, 470, 40), line("tool marks, load", 241, 470, 50), line("of laminae", 445, 470, 40),
        line("Graded", 48, 481, 40), line("casts, low-angle", 241, 481, 50), line("silt, grains", 445, 481, 40),
    ]
    bbox = (47.0, 469.0, 710.0, 491.0)
    wrapped = line("lamination", 241, 492.5, 32)
    assert grow_down(bbox, table + [wrapped])[3] == pytest.approx(502.5, abs=0.5)
    note = line("*Bi = bioturbation", 48, 492.5, 80)  # under the first column: a note
    assert grow_down(bbox, table + [note]) == bbox
    loose = line("lamination", 241, 500, 32)  # a line's gap below: not the same cell
    assert grow_down(bbox, table + [loose]) == bbox


def _para(text: str, box, size: float = 10.0) -> Para:
    frag = line(text, box[0], box[1], box[2] - box[0], size)
    return Para(1, ((frag,),), box)


def test_margin_labels_beside_a_table_do_not_break_its_continuation():
    table = (47.8, 44.0, 708.0, 522.9)
    assert _is_minor(_para("January", (726, 190, 737, 223), 9.0), 10.0, table)  # navigation label in the margin
    assert _is_minor(_para("Muschelkalk", (22, 117, 32, 159)), 10.0, table)  # vertical running head
    assert not _is_minor(_para("The overall large-scale cycle is", (313, 467, 546, 607)), 10.0, (47.8, 44.0, 300.0, 522.9))
    assert not _is_minor(_para("Discussion", (100, 530, 160, 540)), 10.0, table)  # under the table, inside its width


def test_panels_of_running_text_are_a_frame_not_a_table():
    prose = [line(f"This publication provides information about the feature number {k}", 153, 242 + 12 * k, 260) for k in range(9)]
    side = [line("INTERNATIONAL TECHNICAL", 467, 246 + 14 * k, 90) for k in range(6)]
    assert frames_running_text(prose + side, [445.0], [])
    assert not frames_running_text(prose[:5] + side, [445.0], [])  # a long cell of a few lines
    assert not frames_running_text(prose + side, [445.0], [300.0, 360.0])  # many rows: a table of long cells


@lru_cache(maxsize=None)
def parsed(name: str):
    return parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())


@pytest.mark.corpus
def test_borderless_key_figures_table_is_one_block():
    name = "camelot__edge_tol.pdf"
    doc = parsed(name)
    (table,) = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert not [b for b in doc.blocks if b.kind is BlockKind.FORMULA]  # the total over its rule is a cell, not a fraction
    for cell in ("2016", "(all amounts in EUR)", "Class A", "Net Asset Value at 31 December | 5,111,372", "Total for the Fund",
                 "(106,870)", "Total investment result for the period", "1,969,797", "Total investment result per unit | 3.78"):
        assert cell in table.text
    assert table.bbox[3] > 603  # the rule under the last total is inside
    prose = " ".join(s.text for s in doc.segments)
    assert "Class A" not in prose and "5,111,372" not in prose
    assert prose.startswith("Privium Done Hedge Fund Key figures")


@pytest.mark.corpus
def test_turned_page_table_is_one_block_continued_on_the_next_page():
    name = "doclingparse__case_03_rotated_split_table.pdf"
    doc = parsed(name)
    first, second = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert first.page_no == 1 and second.page_no == 2
    for k in range(1, 6):
        assert f"Facies {k}" in first.text
    assert "lamination" in first.text.split("Facies 5")[1]
    # the caption "Table 1. Lower Muschelkalk Facies" is prose; no row ("Facies 2 Gray …") is
    assert not any(re.search(r"Facies \d", s.text) or "lamination" == s.text for s in doc.segments if s.page_no == 1)
    assert second.continues == first.block_id
    assert first.shape.value == second.shape.value == "cross_page_continuation"


@pytest.mark.corpus
def test_sideways_table_crop_reads_upright():
    name = "doclingparse__case_03_rotated_split_table.pdf"
    data = corpus_path(name).read_bytes()
    (block,) = [b for b in parsed(name).blocks if b.page_no == 2]
    x0, y0, x1, y1 = block.bbox
    assert y1 - y0 > x1 - x0  # tall and narrow on the upright page
    _, width, height = render_block_crop(data, 2, block.bbox, 150, 4.0)
    assert width > 3 * height  # shown the way its rows read: wide
    assert width == pytest.approx((y1 - y0 + 8) * 150 / 72, abs=2)


@pytest.mark.corpus
def test_back_cover_panels_are_prose_not_a_table():
    doc = parsed("docling__redp5110_sampled.pdf")
    assert not [b for b in doc.blocks if b.page_no == 18]
    prose = " ".join(s.text for s in doc.segments if s.page_no == 18)
    assert "This IBM Redpaper publication provides information" in prose
    assert "IBM Redbooks are developed by the IBM International Technical Support Organization." in prose


@pytest.mark.corpus
def test_turned_page_table_crop_holds_every_word_of_its_block():
    """p. 1 of case_03 is read turned (the whole page set sideways): every
    word the block lifts lies inside its crop, in the reading frame."""
    name = "doclingparse__case_03_rotated_split_table.pdf"
    data = corpus_path(name).read_bytes()
    (block,) = [b for b in parsed(name).blocks if b.page_no == 1]
    doc = open_pdf(data)
    content = read_page(doc[0], resolve_pdf_settings(None))
    doc.close()
    x0, y0, x1, y1 = crop_box(block.bbox, Settings().crop_margin_pt)
    words = [w for f in content.fragments if contains_point(block.bbox, *center(f.bbox), pad=1.0) for w in f.words]
    assert len(words) > 300
    assert all(x0 <= w.bbox[0] and w.bbox[2] <= x1 and y0 <= w.bbox[1] and w.bbox[3] <= y1 for w in words)
    _, width, height = render_block_crop(data, 1, block.bbox, 150, Settings().crop_margin_pt)
    assert width > height  # the turned page's table shown the way it reads
