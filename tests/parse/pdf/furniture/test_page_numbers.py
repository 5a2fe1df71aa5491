"""Printed page numbers read from the page furniture (issue 15, round 5):
a number is a page's printed page only when it is proven, and a page number
is furniture, never prose, when its place proves it.

The PDFs are generated here with PyMuPDF, each in the shape of a corpus
file: ``case_03`` (a two-page journal excerpt: ``68`` alone at the foot of
p. 1, ``Borkhataria et al.  69`` on p. 2 with the number on a baseline of
its own) and ``code_and_formula`` (two LaTeX pages, Letter then A4, each
printing ``1`` at the same spot, which on the taller page lies above the
foot band). The corpus files themselves are checked at the end (skipped
when the corpus is absent)."""

from __future__ import annotations

from functools import lru_cache

import pytest

from duocthu_assets.model import Format, FurnitureKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path
from tests.support.docgen import FONT

LETTER, A4 = (612, 792), (595.28, 841.89)
LINE = "Thuốc được thải trừ chủ yếu qua thận, vì vậy phải giảm liều ở người bệnh suy thận nặng."
LEAD = 12.5
BODY_TOP = 72.0


def _page(doc, size, body_lines: int, furniture: list[tuple[float, float, str]]):
    page = doc.new_page(width=size[0], height=size[1])
    page.insert_font(fontname="dv", fontfile=FONT)
    words = LINE.split()
    for k in range(body_lines):
        turn = (k + 7 * doc.page_count) % len(words)  # every line differs: none repeats at one place from page to page
        text = " ".join(words[turn:] + words[:turn])
        page.insert_text((72, BODY_TOP + LEAD * k), text, fontname="dv", fontsize=10)
    for x, y, text in furniture:
        page.insert_text((x, y), text, fontname="dv", fontsize=10)
    return page


def _last_baseline(body_lines: int) -> float:
    return BODY_TOP + LEAD * (body_lines - 1)


def journal_pair(second_number: str | None, lines: int = 50) -> bytes:
    """case_03's shape: p. 1's foot prints ``68`` alone at the left; p. 2's
    foot prints a running title and, 2 pt lower, ``second_number`` at the
    right, a little more than a line height under the body (less than the
    height of the two together)."""
    doc = pymupdf.open()
    foot = _last_baseline(lines) + 24.2  # 12.6 pt of white: more than a line (11.6), less than the row (13.6)
    _page(doc, LETTER, lines, [(72, foot, "68"), (110, foot, "The Lower Muschelkalk")])
    second = [(380, foot, "Borkhataria et al.")]
    if second_number is not None:
        second.append((520, foot + 2.0, second_number))
    _page(doc, LETTER, lines, second)
    return doc.tobytes()


def two_latex_pages(second_x: float = 303.0) -> bytes:
    """code_and_formula's shape: a Letter page and an A4 page, each with
    ``1`` centred at y 705 (on the A4 page 16 % of its height from the
    foot, above the 15 % band); the A4 page's ``1`` at ``second_x``."""
    doc = pymupdf.open()
    _page(doc, LETTER, 40, [(303, 705, "1")])
    _page(doc, A4, 40, [(second_x, 705, "1")])
    return doc.tobytes()


@lru_cache(maxsize=None)
def parsed(data: bytes):
    return parse_document(data, Format.PDF, Settings())


def page_labels(data: bytes) -> list[str]:
    return parsed(data).page_labels


def numbers_in_prose(data: bytes) -> list[tuple[int, str]]:
    return [(s.page_no, s.text) for s in parsed(data).segments if s.text.strip().isdigit()]


def furniture(data: bytes, page: int) -> list[tuple[str, str]]:
    return [(f.kind.value, f.text) for f in parsed(data).furniture if f.page_no == page]


def test_a_pair_of_numbers_in_sequence_is_proof():
    data = journal_pair("69")
    assert page_labels(data) == ["68", "69"]
    assert {s.printed_page for s in parsed(data).segments} == {68, 69}
    # the running title and the number 2 pt lower are one row, a line of whitespace from the body
    assert (FurnitureKind.PAGE_LABEL.value, "69") in furniture(data, 2)
    assert (FurnitureKind.RUNNING_FOOTER.value, "Borkhataria et al.") in furniture(data, 2)
    assert not any("Borkhataria" in s.text for s in parsed(data).segments)


def test_a_lone_number_on_a_two_page_document_is_no_proof():
    # p. 2 prints no number: "68" is furniture (a number alone at the foot), but not p. 1's printed page
    data = journal_pair(None)
    assert page_labels(data) == ["", ""]
    assert {s.printed_page for s in parsed(data).segments} == {None}
    assert (FurnitureKind.PAGE_LABEL.value, "68") in furniture(data, 1)
    assert numbers_in_prose(data) == []


def test_a_pair_out_of_sequence_is_no_proof():
    data = journal_pair("12")
    assert page_labels(data) == ["", ""]


def test_a_number_at_another_pages_page_number_spot_is_furniture_not_prose():
    data = two_latex_pages()
    assert numbers_in_prose(data) == []
    assert furniture(data, 2) == [(FurnitureKind.PAGE_LABEL.value, "1")]
    # page 1 prints 1 (its physical page); page 2 repeats "1": no sequence, no printed page
    assert page_labels(data) == ["1", ""]


def test_a_first_page_number_above_the_conference_lines_is_furniture():
    # acl's p. 1: "4969" where the next pages print 4970, 4971, with two lines under it
    doc = pymupdf.open()
    _page(doc, LETTER, 40, [(288, 740, "4969"), (103, 756, "Proceedings of the 58th Annual Meeting"), (174, 767, "July 5 - 10, 2020.")])
    for number in ("4970", "4971"):
        _page(doc, LETTER, 40, [(288, 740, number)])
    data = doc.tobytes()
    assert numbers_in_prose(data) == []
    assert page_labels(data) == ["4969", "4970", "4971"]
    assert any(s.text.startswith("Proceedings of the 58th") for s in parsed(data).segments)  # content under it stays


def test_a_lone_number_above_the_band_elsewhere_on_the_page_stays_prose():
    # the A4 page's "1" sits 150 pt right of page 1's: its place proves nothing
    data = two_latex_pages(second_x=453.0)
    assert numbers_in_prose(data) == [(2, "1")]
    assert furniture(data, 2) == []


def test_a_lone_number_close_under_the_body_stays_prose():
    # set at the next line's pitch, it is the last line of the text, not furniture
    doc = pymupdf.open()
    _page(doc, LETTER, 40, [(303, 705, "1")])
    _page(doc, A4, 51, [(303, _last_baseline(51) + LEAD, "1")])
    data = doc.tobytes()
    assert furniture(data, 2) == []
    assert parsed(data).segments[-1].text.endswith(" 1")


def test_a_table_caption_beside_the_page_number_stays_content():
    # case_03 p. 1 read turned: "68" and the table's caption share the page's first row
    doc = pymupdf.open()
    _page(doc, LETTER, 40, [(72, 40, "68"), (110, 40, "Table 1. Lower Muschelkalk Facies")])
    _page(doc, LETTER, 40, [(72, 40, "69"), (110, 40, "Borkhataria et al.")])
    data = doc.tobytes()
    assert page_labels(data) == ["68", "69"]
    assert parsed(data).segments[0].text == "Table 1. Lower Muschelkalk Facies"
    assert furniture(data, 1) == [(FurnitureKind.PAGE_LABEL.value, "68")]
    assert (FurnitureKind.RUNNING_HEADER.value, "Borkhataria et al.") in furniture(data, 2)


def test_a_folio_upright_on_a_page_set_sideways_is_its_page_number():
    # case_03 p. 1: the page's text turned a quarter (read turned back), its folio
    # "68 The Lower Muschelkalk" upright on paper at the foot; p. 2 upright, "… 69"
    src = pymupdf.open()
    _page(src, (LETTER[1], LETTER[0]), 38, [])
    doc = pymupdf.open()
    turned = doc.new_page(width=LETTER[0], height=LETTER[1])
    turned.show_pdf_page(turned.rect, src, 0, rotate=90)
    turned.insert_text((30, 770), "68", fontname="helv", fontsize=10)
    turned.insert_text((60, 770), "The Lower Muschelkalk", fontname="helv", fontsize=10)
    foot = _last_baseline(50) + 24.2
    _page(doc, LETTER, 50, [(380, foot, "Borkhataria et al."), (520, foot, "69")])
    data = doc.tobytes()
    assert page_labels(data) == ["68", "69"]
    assert furniture(data, 1) == [(FurnitureKind.PAGE_LABEL.value, "68"), (FurnitureKind.MARGIN_STAMP.value, "The Lower Muschelkalk")]
    assert not any("Muschelkalk" in s.text for s in parsed(data).segments)


# -- the corpus files --------------------------------------------------------


@lru_cache(maxsize=None)
def corpus(name: str):
    return parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())


@pytest.mark.corpus
def test_case_03_prints_68_and_69():
    doc = corpus("doclingparse__case_03_rotated_split_table.pdf")
    assert doc.page_labels == ["68", "69"]
    assert [(b.page_no, b.printed_page) for b in doc.blocks] == [(1, 68), (2, 69)]
    page_1 = [s.text for s in doc.segments if s.page_no == 1]
    assert page_1 == ["Table 1. Lower Muschelkalk Facies"]  # the folio line and the navigation labels are furniture
    assert {(f.kind, f.text) for f in doc.furniture if f.page_no == 1} == {
        (FurnitureKind.PAGE_LABEL, "68"), (FurnitureKind.MARGIN_STAMP, "The Lower Muschelkalk"),
        (FurnitureKind.MARGIN_STAMP, "January"), (FurnitureKind.MARGIN_STAMP, "Search Index"),
        (FurnitureKind.MARGIN_STAMP, "Search Results"),
    }


@pytest.mark.corpus
def test_code_and_formula_page_2_number_is_furniture():
    doc = corpus("docling__code_and_formula.pdf")
    assert doc.page_labels == ["1", ""]
    assert not any(s.text.strip() == "1" for s in doc.segments)
    assert [(f.page_no, f.kind, f.text) for f in doc.furniture] == [(1, FurnitureKind.PAGE_LABEL, "1"), (2, FurnitureKind.PAGE_LABEL, "1")]
