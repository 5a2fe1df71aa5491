"""2D formulas: short horizontal rules (or bars typed as text) with text
centred above and below → :func:`find_fractions` → ``formula_2d``."""

from __future__ import annotations

import re

from ..model import BlockKind, BlockShape
from .pdf_candidates import BlockCandidate
from .pdf_fractions import BIG_OPERATOR_EM
from .pdf_geometry import BBox, center, contains_point, merge_overlapping, union
from .pdf_page import Fragment, Rule, line_extent
from .pdf_settings import PdfSettings

FRACTION_MIN_BAR = 8.0  # points: a display fraction's bar is at least this long
IMAGE_BAR_MAX_EM = 12.0  # a bar drawn as an image is at most this many ems of the body text long (aaai's table rules are longer)
_BAR_TEXT = re.compile(r"^[\u2500\u2501\u2014\u2013_\-=]{3,}$")


def bar_fragments(fragments: list[Fragment]) -> list[Fragment]:
    """Fragments that are a fraction bar typed as text (───, ____)."""
    return [f for f in fragments if _BAR_TEXT.match(f.text.replace(" ", ""))]


def display_bars(short_bars, body_size: float) -> list[Rule]:
    """Of the page's bars (:attr:`.pdf_page.PageContent.bars`), the ones long
    enough for a display fraction: drawn strokes that long are rules, so these
    are the bars drawn as raster images (jcap draws every fraction bar so). One
    longer than :data:`IMAGE_BAR_MAX_EM` is a table's rule drawn the same way
    (aaai's booktabs), left to the table finders' reading of the text."""
    return [b for b in short_bars if FRACTION_MIN_BAR <= b.x1 - b.x0 <= IMAGE_BAR_MAX_EM * body_size]


def find_fractions(bars: list[Rule], fragments: list[Fragment], settings: PdfSettings) -> list[BlockCandidate]:
    """Stacked fractions: a short horizontal bar with a numerator centred just
    above it and a denominator centred just below it, both within its length,
    and not an underline (the text above an underline is as wide as it); the
    left- and right-hand sides on the bar's axis join the formula."""
    text_bars = bar_fragments(fragments)
    candidates = [(r.x0, r.pos, r.x1) for r in bars] + [(f.bbox[0], (f.bbox[1] + f.bbox[3]) / 2, f.bbox[2]) for f in text_bars]
    others = [f for f in fragments if f not in text_bars]
    found: list[BBox] = []
    for bx0, by, bx1 in candidates:
        length = bx1 - bx0
        if length < FRACTION_MIN_BAR:
            continue
        num = _stacked(others, bx0, by, bx1, settings, above=True)
        den = _stacked(others, bx0, by, bx1, settings, above=False)
        if not num or not den:
            continue
        if _spread(num) or _spread(den):
            continue  # column headings under a spanning header, not a numerator/denominator
        nb, db = union(f.bbox for f in num), union(f.bbox for f in den)
        nw, dw = nb[2] - nb[0], db[2] - db[0]
        if min(nw, dw) > 0.92 * length:
            continue  # an underlined line above another line
        mid = (bx0 + bx1) / 2
        allowed = settings.fraction_center_frac * length + 2
        if abs(center(nb)[0] - mid) > allowed or abs(center(db)[0] - mid) > allowed:
            continue
        parts = [nb, db, (bx0, by - 0.5, bx1, by + 0.5)]
        size = max(f.size for f in num + den)
        parts += [f.bbox for f in _axis_sides(others, bx0, by, bx1, size, settings)]
        found.append(union(parts))
    merged = merge_overlapping(found)
    return [BlockCandidate(BlockKind.FORMULA, BlockShape.FORMULA_2D, b, "fraction") for b in merged]


def over_its_bars(block: BlockCandidate, bars: list[Rule], fragments: list[Fragment], settings: PdfSettings) -> BlockCandidate:
    """A formula block grown over the numerators and denominators of the bars
    it holds: a display finder that took an equation by its axis line leaves
    out what stands over and under its bars (jcap p. 5's ``Θ = Ṙ′/R′ +
    2Ṙ/R``: both numerators stayed in prose and out of the crop)."""
    if block.kind is not BlockKind.FORMULA:
        return block
    box = block.bbox
    # a line's height at most: a big operator standing beside a bar (the formula sheet's ``∫``
    # under ``df/dx``'s bar's end) is no denominator, and growing over it takes the next line
    lines = [f for f in fragments if f.height <= BIG_OPERATOR_EM * f.size]
    for bar in bars:
        if not contains_point(block.bbox, (bar.x0 + bar.x1) / 2, bar.pos, pad=1.0):
            continue
        num = _stacked(lines, bar.x0, bar.pos, bar.x1, settings, above=True)
        den = _stacked(lines, bar.x0, bar.pos, bar.x1, settings, above=False)
        # a fraction's two sides: each found, or already the block's (a denominator read with the
        # operator after it, ``R′ + 2``); not a line that happens to stand near a bar
        reach = 0.5 * max((f.size for f in num + den), default=0.0)  # half a line past the bar
        if (num or block.bbox[1] <= bar.pos - reach) and (den or block.bbox[3] >= bar.pos + reach) and (num or den):
            box = union([box, *(f.bbox for f in num + den)])
    return block if box == block.bbox else BlockCandidate(block.kind, block.shape, box, block.finder)


def _spread(frags: list[Fragment]) -> bool:
    """Several fragments set apart along a line (cells), not one expression."""
    if len(frags) >= 3:
        return True
    if len(frags) == 2:
        a, b = sorted(frags, key=lambda f: f.bbox[0])
        return b.bbox[0] - a.bbox[2] > 1.5 * max(a.size, b.size, 1.0)
    return False


TRAILING_PUNCT = ",.;:"  # a formula's closing punctuation, set after its last fraction's bar
PUNCT_EM = 0.4  # ... at most this wide (ems of its size)


def _end(f: Fragment) -> float:
    """Where a fragment's text ends, its closing punctuation aside (jcap
    p. 5's denominator ``R²(r, t)R′(r, t),`` runs past its bar by the comma)."""
    return f.bbox[2] - (PUNCT_EM * f.size if f.text[-1:] in TRAILING_PUNCT else 0.0)


def _stacked(fragments, bx0, by, bx1, settings: PdfSettings, above: bool) -> list[Fragment]:
    out = []
    for f in fragments:
        if f.bbox[0] < bx0 - 2 or _end(f) > bx1 + 2:
            continue
        gap = settings.fraction_max_gap_em * f.size
        y0, y1 = line_extent(f)  # not a tall parenthesis's box reaching over the bar (jcap p. 5's ``t),``)
        if above and by - gap <= y1 <= by + 1.5 and y0 < by - 1:
            out.append(f)
        elif not above and by - 1.5 <= y0 <= by + gap and y1 > by + 1:
            out.append(f)
    if not out:
        return []
    # only the row nearest the bar
    key = (lambda f: -f.bbox[3]) if above else (lambda f: f.bbox[1])
    nearest = min(out, key=key)
    return [f for f in out if min(f.bbox[3], nearest.bbox[3]) - max(f.bbox[1], nearest.bbox[1]) > 0.3 * nearest.height]


def _axis_sides(fragments, bx0, by, bx1, size, settings: PdfSettings) -> list[Fragment]:
    """Short fragments on the bar's axis chained to its left and right."""
    on_axis = [
        f
        for f in fragments
        if abs(center(f.bbox)[1] - by) <= 0.9 * size and f.height <= 2.2 * size and len(f.words) <= settings.fraction_side_max_words
    ]
    picked: list[Fragment] = []
    left, right = bx0, bx1
    changed = True
    while changed:
        changed = False
        for f in on_axis:
            if f in picked:
                continue
            if 0 <= left - f.bbox[2] <= settings.fraction_side_gap or 0 <= f.bbox[0] - right <= settings.fraction_side_gap:
                picked.append(f)
                left, right = min(left, f.bbox[0]), max(right, f.bbox[2])
                changed = True
    return picked
