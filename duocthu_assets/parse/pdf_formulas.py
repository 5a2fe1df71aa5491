"""2D formulas: short horizontal rules (or bars typed as text) with text
centred above and below → :func:`find_fractions` → ``formula_2d``."""

from __future__ import annotations

import re

from ..model import BlockKind, BlockShape
from .pdf_candidates import BlockCandidate
from .pdf_geometry import BBox, center, merge_overlapping, union
from .pdf_page import Fragment, Rule
from .pdf_settings import PdfSettings

_BAR_TEXT = re.compile(r"^[\u2500\u2501\u2014\u2013_\-=]{3,}$")


def bar_fragments(fragments: list[Fragment]) -> list[Fragment]:
    """Fragments that are a fraction bar typed as text (───, ____)."""
    return [f for f in fragments if _BAR_TEXT.match(f.text.replace(" ", ""))]


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
        if length < 8:
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


def _spread(frags: list[Fragment]) -> bool:
    """Several fragments set apart along a line (cells), not one expression."""
    if len(frags) >= 3:
        return True
    if len(frags) == 2:
        a, b = sorted(frags, key=lambda f: f.bbox[0])
        return b.bbox[0] - a.bbox[2] > 1.5 * max(a.size, b.size, 1.0)
    return False


def _stacked(fragments, bx0, by, bx1, settings: PdfSettings, above: bool) -> list[Fragment]:
    out = []
    for f in fragments:
        x0, y0, x1, y1 = f.bbox
        if x0 < bx0 - 2 or x1 > bx1 + 2:
            continue
        gap = settings.fraction_max_gap_em * f.size
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
