"""Display math: formulas set on lines of their own, lifted as
``formula_2d`` blocks whatever the font (a stacked fraction whose bar is not
a separate rule, a sum or an integral with limits, a matrix, stacked
sub/superscripts, radicals).

    may_hold_math     cheap gate: a math glyph, an unmapped glyph, or an
                      equation number on the page
    math_rows         text rows that hold no running text and read as math
    group_rows        consecutive math rows (limits, numerators and
                      denominators are rows of their own) into one region
    find_display_math the regions that are two-dimensional, as candidates

A row is math when it holds no run of words (at most a few words of three or
more letters: ``where``, ``and``) and its tokens are mostly formula pieces
(:func:`duocthu_assets.parse.pdf_leaks._fragment_token`: lone variables,
symbols, operators, ``i=1``, ``x2``) or it carries a math operator or an
unmapped glyph (a bracket piece of a Computer Modern extension font). A
region is lifted only when it is two-dimensional: two or more rows, glyphs
of two sizes offset from one another (scripts), or a big operator or
bracket; a plain line like ``x = 3`` stays in prose. Inline math inside a
paragraph line is never lifted (the line is running text).
"""

from __future__ import annotations

import re

from ..model import BlockKind, BlockShape
from .pdf_candidates import BlockCandidate
from .pdf_geometry import union
from .pdf_leaks import _bad_glyph, _fragment_token, _math_char
from .pdf_page import Fragment
from .pdf_table_scoring import row_box, text_rows

EQUATION_NUMBER = re.compile(r"^\(\d{1,3}[a-z]?\)$")
MAX_WORDS = 3  # words of 3+ letters a math row may hold ("where", "and", "for all")
MIN_MATH_FRAC = 0.5  # of a row's tokens that are formula pieces
BIG = set("∑∏∫∮√⎛⎜⎝⎞⎟⎠⎡⎢⎣⎤⎥⎦⎧⎨⎩⎫⎬⎭")


def may_hold_math(fragments: list[Fragment]) -> bool:
    """A math operator, an unmapped glyph or an equation number on the page."""
    for f in fragments:
        if EQUATION_NUMBER.match(f.text.strip()) or any(_math_char(c) or _bad_glyph(c) for c in f.text):
            return True
    return False


def _words(text: str) -> int:
    return sum(1 for t in text.split() if sum(c.isalpha() for c in t) >= 3 and not any(_math_char(c) for c in t))


def _strong(ch: str) -> bool:
    """A math operator that does not occur in tables of numbers (the minus
    sign U+2212 does)."""
    return _math_char(ch) and ch != "\u2212"


def _variable(token: str) -> bool:
    """A lone Latin or Greek letter, or one with an index or a power
    (``x``, ``x2``, ``i=1``, ``n+1``): what a row of numbers never holds."""
    t = token.strip(",.;:()[]{}")
    return bool(t) and t[0].isalpha() and len(t) <= 4 and _fragment_token(t)


def _cells(row: list[Fragment]) -> bool:
    """Two or more wide gaps along the row: cells of a table (whose cells
    may hold formulas), not one formula."""
    frags = sorted((f for f in row if not EQUATION_NUMBER.match(f.text.strip())), key=lambda f: f.bbox[0])
    wide = sum(1 for a, b in zip(frags, frags[1:]) if b.bbox[0] - a.bbox[2] >= 2 * max(a.size, b.size, 1.0))
    return wide >= 2


def is_math_row(row: list[Fragment]) -> bool:
    if _cells(row):
        return False
    text = " ".join(f.text for f in row if not EQUATION_NUMBER.match(f.text.strip()))
    tokens = text.split()
    if tokens and len(tokens[0]) == 1 and _bad_glyph(tokens[0]):
        tokens = tokens[1:]  # a bullet set in a symbol font
    text = " ".join(tokens)
    if not tokens or _words(text) > MAX_WORDS:
        return False
    if any(_strong(c) for c in text) or sum(_bad_glyph(c) for c in text) >= 2:
        return True
    if not any(_variable(t) for t in tokens) and "=" not in text:
        return False  # a row of numbers and dashes is a table's
    return sum(_fragment_token(t) for t in tokens) >= MIN_MATH_FRAC * len(tokens) and len(tokens) >= 2


GUTTER = 6.0  # points between a display formula and the other column's text (fragments are already split at wide gaps)


def _own_column(row: list[Fragment]) -> list[Fragment]:
    """The row without the lines of running text of another column: a
    display formula in one column shares its text row with the prose of
    the other. A line of running text that the rest of the row touches is
    kept (inline math stays inline)."""
    prose = [f for f in row if _words(f.text) > MAX_WORDS]
    rest = [f for f in row if _words(f.text) <= MAX_WORDS]
    if not prose or not rest:
        return row
    if all(max(p.bbox[0] - f.bbox[2], f.bbox[0] - p.bbox[2]) >= GUTTER for f in rest for p in prose):
        return rest
    return row


def is_satellite_row(row: list[Fragment]) -> bool:
    """A row of one to three formula pieces (a sum's limits ``n`` and
    ``i=1``, a lone exponent): part of the math row it sits against."""
    tokens = " ".join(f.text for f in row).split()
    return 1 <= len(tokens) <= 3 and all(_fragment_token(t) or t.isdigit() for t in tokens)


def group_rows(rows: list[list[Fragment]], flags: list[bool]) -> list[list[list[Fragment]]]:
    """Runs of consecutive math rows no further apart than a line."""
    groups: list[list[list[Fragment]]] = []
    prev: list[Fragment] | None = None
    for row, math in zip(rows, flags):
        if not math:
            prev = None
            continue
        box = row_box(row)
        if prev is not None:
            pb = row_box(prev)
            height = max(pb[3] - pb[1], box[3] - box[1], 1.0)
            if box[1] - pb[3] <= 0.6 * height:
                groups[-1].append(row)
                prev = row
                continue
        groups.append([row])
        prev = row
    return groups


def _two_dimensional(group: list[list[Fragment]]) -> bool:
    frags = [f for row in group for f in row if not EQUATION_NUMBER.match(f.text.strip())]
    if len(group) >= 2:
        return True
    if any(c in BIG or _bad_glyph(c) for f in frags for c in f.text):
        return True
    sizes = {round(w.size) for f in frags for w in f.words}
    if len(sizes) >= 2:
        return True
    tops = sorted(f.bbox[1] for f in frags)
    return len(tops) >= 2 and tops[-1] - tops[0] > 0.3 * max(f.height for f in frags)


def find_display_math(fragments: list[Fragment]) -> list[BlockCandidate]:
    """Display formulas among ``fragments`` (text no other block took)."""
    if not fragments:
        return []
    heights = sorted(f.height for f in fragments)
    typical = heights[len(heights) // 2]
    # a tall fragment (a rotated margin stamp, set sideways) would join every row it spans
    rows = [_own_column(r) for r in text_rows([f for f in fragments if f.height <= 3 * typical])]
    math = [is_math_row(r) for r in rows]
    flags = [m or is_satellite_row(r) for m, r in zip(math, rows)]
    real = {id(r) for r, m in zip(rows, math) if m}
    out = []
    for group in group_rows(rows, flags):
        if not any(id(r) in real for r in group) or not _two_dimensional(group):
            continue  # limits or indices alone are not a formula
        out.append(BlockCandidate(BlockKind.FORMULA, BlockShape.FORMULA_2D, union(f.bbox for row in group for f in row), "display"))
    return out
