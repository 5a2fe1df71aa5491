"""A ruled table's cells told apart by the rules drawn between them
(``blocks/grids.cut_at_rules``): two cells whose text stands closer than a word
gap are one line to MuPDF, and before this their text was one cell in the
block's text (``lifted_blocks.text``): ``0,375 g mỗi lần 12 giờ``, a dose and
its interval, ``3,850 Áo``, a height and a country."""

from __future__ import annotations


import pytest

from duocthu_assets.model import BlockKind, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.blocks.grids import cut_at_rules
from duocthu_assets.parse.pdf.records import Rule, Word, make_fragment
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path
from tests.support.pdf_pages import html_page


def word(text: str, x0: float, x1: float, y0: float = 100.0, y1: float = 110.0) -> Word:
    return Word(text, (x0, y0, x1, y1), 10.0, False, False, 1)


def column_rule(x: float, y0: float = 95.0, y1: float = 115.0) -> Rule:
    return Rule(x, y0, x, y1, False)


LINE = make_fragment([word("0,375", 40, 62), word("g", 64, 69), word("lần", 71, 88), word("12", 91, 101), word("giờ", 103, 118)], 1)


def test_a_rule_between_two_words_cuts_the_line():
    cut = cut_at_rules([LINE], [column_rule(89.5)])
    assert [f.text for f in cut] == ["0,375 g lần", "12 giờ"]
    assert [w for f in cut for w in f.words] == list(LINE.words)  # the same words: the page's account follows them


@pytest.mark.parametrize(
    "rule",
    [
        column_rule(66.0),  # through a word's letters ("g" spans 64-69): not between words
        column_rule(89.5, 120, 140),  # a rule of the row below: it does not run through this line
        column_rule(30.0),  # the table's left edge, outside the line
    ],
)
def test_a_rule_that_does_not_pass_between_words_leaves_the_line(rule):
    assert cut_at_rules([LINE], [rule]) == [LINE]


def test_a_right_to_left_lines_words_are_cut_too():
    # MuPDF gives a right-to-left line's words right to left
    line = make_fragment([word("ارائه", 200, 230), word("تاريخ", 170, 198), word("1403", 120, 140)], 1)
    assert [f.text for f in cut_at_rules([line], [column_rule(160)])] == ["ارائه تاريخ", "1403"]


RENAL = (
    "<p>Liều dùng ở người suy thận</p><table>"
    "<tr><td>Clcr (ml/phút)</td><td>Liều</td><td>Khoảng cách</td></tr>"
    "<tr><td>&gt; 50</td><td>0,75 g mỗi lần</td><td>48 giờ</td></tr>"
    "<tr><td>30 – 50</td><td>0,375 g mỗi lần</td><td>12 giờ</td></tr></table>"
)


def test_a_bordered_tables_cells_two_points_apart_are_cells():
    """A renal-dosing table whose cells each draw their own border, 2 pt
    apart (HTML's separate borders, as Chromium and MuPDF's own HTML writer
    print them): the block's rows read cell by cell. Before:
    ``Clcr (ml/phút) Liều | Khoảng cách`` and ``30 – 50 | 0,375 g mỗi lần 12 giờ``."""
    css = "@font-face {font-family: sans-serif; src: url(DejaVuSans.ttf);} * {font-family: sans-serif; font-size: 12pt} td {border: 1px solid black; padding: 1px}"
    parsed = parse_document(html_page(RENAL, css), Format.PDF, Settings())
    tables = [b for b in parsed.blocks if b.kind is BlockKind.TABLE]
    assert [t.text for t in tables] == ["Clcr (ml/phút) | Liều | Khoảng cách\n> 50 | 0,75 g mỗi lần | 48 giờ\n30 – 50 | 0,375 g mỗi lần | 12 giờ"]
    assert all(a.accounted for a in parsed.page_accounts)


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "rows"),
    [
        # a mountain's height and its country were one cell
        ("doclingparse__font_04_vietnamese_table.pdf", ["Mount Felora | 3,850 | Áo | Đá vôi, đỉnh nhọn | Tham quan, leo", "Mount Zalgar | 4,200 | Nhật Bản"]),
        # a row's number and its bank
        ("pymupdf__chinese-tables.pdf", ["10 | 恒丰银行南京江北支行 | 93,900.00", "11 | 上海银行盐城分行 | 46,265.00"]),
        # a city and the number of workers laid off
        ("pdfplumber__WARN-Report-for-7-1-2015-to-03-25-2016.pdf", ["Walmart | Hawaiian Gardens | 77 | Closure Permanent", "Inc. | Yosemite National | 1718 |"]),
    ],
)
def test_corpus_ruled_tables_keep_their_cells_apart(name, rows):
    parsed = parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())
    text = "\n".join(b.text for b in parsed.blocks if b.kind is BlockKind.TABLE)
    for row in rows:
        assert row in text, (row, text[:2000])
