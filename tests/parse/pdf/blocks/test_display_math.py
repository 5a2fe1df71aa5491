"""Display math set beside the other column's prose, and stacked pieces
(a fraction's short denominator, a script stacked on a script) are one
formula, not table cells nor prose (issue 15 item 2)."""

from __future__ import annotations

import pytest

from duocthu_assets.model import BlockKind, BlockShape, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.blocks.display_math import _own_column, is_math_row
from duocthu_assets.parse.pdf.records import Fragment
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path


def frag(text: str, x0: float, y0: float, x1: float, y1: float, size: float = 9.0) -> Fragment:
    return Fragment((), (x0, y0, x1, y1), 0, text, size)


# IEEE differential privacy p. 7: exp(−‖z − z′‖₁ / β) ≤ Pr(z + N = s) / Pr(z′ + N = s) ≤ exp(‖z − z′‖₁ / β)
FRACTIONS = [
    frag("exp", 303, 528, 320, 538),
    frag("−∥z −z^′∥^1", 327, 520, 376, 538),
    frag("β", 352, 535, 358, 545),
    frag("≤Pr(z + N = s)", 385, 522, 450, 538),
    frag("Pr(z^′ + N = s) ≤exp", 396, 528, 488, 545),
    frag("∥z −z_′∥_1", 491, 514, 540, 533),
    frag("β", 515, 535, 521, 545),
    frag(".", 547, 528, 549, 538),
]


def test_a_fractions_short_denominators_are_not_table_cells():
    assert is_math_row(FRACTIONS)
    # the same pieces spread apart with empty space between them are cells
    cells = [frag("x", 50, 0, 56, 9), frag("y = 1", 120, 0, 150, 9), frag("z", 220, 0, 226, 9)]
    assert not is_math_row(cells)


def test_a_paragraphs_short_last_line_in_the_other_column_goes_with_its_column():
    # aaai p. 3: the left column's prose, its last line "require human
    # involvement." and display (3) in the right column share text rows
    prose = frag("construct the task examples manually, but that would again", 54, 662, 292, 672)
    last = frag("require human involvement.", 54, 672, 160, 682)
    math = [frag("Z = [d_{1:m}; p", 326, 656, 372, 667), frag("c(X1,Y1)", 355, 668, 380, 678), frag("1:s", 355, 677, 366, 684)]
    assert _own_column([prose, last, *math]) == math
    assert is_math_row(_own_column([prose, last, *math]))
    # inline math touching the running text stays with it: the row is prose
    inline = frag("x_i", 293, 662, 300, 672)
    assert _own_column([prose, inline]) == [prose, inline]


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name, page, piece",
    [
        ("papermage__2202.00535v1_aaai.pdf", 3, "c(X2,Y2)"),  # display (3), scripts stacked on scripts
        ("pdfminer__issue-1061-ieee-differential-privacy.pdf", 7, "≤Pr(z + N = s)"),  # stacked fractions
        ("grobid__0908.0054v1_arxiv_revtex.pdf", 2, "(4)"),  # ∂ ln f0 / ∂ ln q
    ],
)
def test_displays_once_left_in_prose_are_lifted(name, page, piece):
    parsed = parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())
    formulas = [b for b in parsed.blocks if b.kind is BlockKind.FORMULA and b.page_no == page and piece in b.text]
    assert len(formulas) == 1 and formulas[0].shape is BlockShape.FORMULA_2D
    assert not any(piece in s.text for s in parsed.segments if s.page_no == page and piece != "(4)")  # "Eq. (4)" is prose


@pytest.mark.corpus
def test_a_paragraphs_first_line_holding_inline_math_stays_prose():
    """dpr p. 3: ``Let D = {⟨q_i, p^+_i, …⟩}^m_{i=1} be the`` opens a
    paragraph, indented, flush with the column's right edge: a line of
    prose with its scripts marked, not a display formula lifted out of the
    paragraph."""
    data = corpus_path("unstructured__multi-column_dpr.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    assert not any(b.page_no == 3 and b.kind.value == "formula" and b.bbox[1] < 110 and b.bbox[0] > 300 for b in parsed.blocks)
    assert any(s.text.startswith("Let D = {⟨q_i, p^+_i, p^−_{i,1}") and "be the training data" in s.text for s in parsed.segments if s.page_no == 3)
