"""2D formulas: short horizontal rules (or bars typed as text) with text
centred above and below → :func:`find_fractions` → ``formula_2d``."""

from __future__ import annotations

import re

from ....model import BlockKind, BlockShape
from .candidates import BlockCandidate, cover_fragments
from ..read.fractions import BIG_OPERATOR_EM
from ..geometry import BBox, center, contains_point, merge_overlapping, overlaps, union
from .lines import cell_line, cell_lines_outside, continued_lines, outside, set_solid
from ..records import Fragment, Rule, line_extent
from ....settings.pdf import PdfSettings

FRACTION_MIN_BAR = 8.0  # points: a display fraction's bar is at least this long
IMAGE_BAR_MAX_EM = 12.0  # a bar drawn as an image is at most this many ems of the body text long (a table's rules drawn so are longer)
_BAR_TEXT = re.compile(r"^[\u2500\u2501\u2014\u2013_\-=]{3,}$")


def bar_fragments(fragments: list[Fragment]) -> list[Fragment]:
    """Fragments that are a fraction bar typed as text (───, ____)."""
    return [f for f in fragments if _BAR_TEXT.match(f.text.replace(" ", ""))]


def display_bars(short_bars, body_size: float) -> list[Rule]:
    """Of the page's bars (:attr:`..records.PageContent.bars`), the ones long
    enough for a display fraction: drawn strokes that long are rules, so these
    are the bars drawn as raster images (TeX drivers draw fraction bars so).
    One longer than :data:`IMAGE_BAR_MAX_EM` is a table's rule drawn the
    same way (a booktabs rule), left to the table finders' reading of the
    text."""
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
        # a numerator or a denominator of several lines (a formula set in words)
        num = _cell(num, others, lambda g: g.bbox[3] <= by + 1.5 and _under_bar(g, bx0, bx1, allowed))
        den = _cell(den, others, lambda g: g.bbox[1] >= by - 1.5 and _under_bar(g, bx0, bx1, allowed))
        parts = [f.bbox for f in num + den] + [(bx0, by - 0.5, bx1, by + 0.5)]
        size = max(f.size for f in num + den)
        for side in _axis_sides(others, bx0, by, bx1, size, settings):
            parts += [f.bbox for f in _cell([side], others, lambda g, s=side: _beside_bar(g, s, bx0, bx1))]
        found.append(union(parts))
    merged = merge_overlapping(found)
    return [BlockCandidate(BlockKind.FORMULA, BlockShape.FORMULA_2D, b, "fraction") for b in merged]


def over_its_bars(block: BlockCandidate, bars: list[Rule], fragments: list[Fragment], settings: PdfSettings) -> BlockCandidate:
    """A formula block grown over the numerators and denominators of the bars
    it holds: a display finder that took an equation by its axis line leaves
    out what stands over and under its bars, in prose and out of the crop."""
    if block.kind is not BlockKind.FORMULA:
        return block
    box = block.bbox
    # a line's height at most: a big operator standing beside a bar (an ``∫`` under the bar's
    # end) is no denominator, and growing over it takes the next line
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


SIDE_CELL_EM = 1.5  # a side cell's other lines stand within this many ems of its line on the axis, either end


def _cell(lines: list[Fragment], fragments: list[Fragment], fits) -> list[Fragment]:
    """``lines`` and every fragment that ``fits`` set solid over or under
    one of them (:func:`.lines.set_solid`), again and again, unless a
    paragraph's line stands against it (:func:`.lines.cell_line`): a
    cell's lines. A fraction set in words runs its numerator, denominator
    and side cells over several lines; the bar's nearest rows alone left
    the others in prose, read across the formula as one garbled sentence."""
    picked = list(lines)
    grown = True
    while grown:
        grown = False
        for g in fragments:
            if g in picked or not fits(g):
                continue
            if any(set_solid(g, h) for h in picked) and cell_line(g, fragments, fits):
                picked.append(g)
                grown = True
    return picked


def _under_bar(g: Fragment, bx0: float, bx1: float, allowed: float) -> bool:
    """A line of a numerator or a denominator: within the bar's ends and centred on it."""
    return g.bbox[0] >= bx0 - 2 and _end(g) <= bx1 + 2 and abs(center(g.bbox)[0] - (bx0 + bx1) / 2) <= allowed


def _beside_bar(g: Fragment, side: Fragment, bx0: float, bx1: float) -> bool:
    """A line of the cell beside a fraction whose line on the bar's axis is
    ``side``: across the same stretch, centred on it, on its side of the bar."""
    reach = SIDE_CELL_EM * max(side.size, 1.0)
    if g.bbox[0] < side.bbox[0] - reach or g.bbox[2] > side.bbox[2] + reach:
        return False
    if abs(center(g.bbox)[0] - center(side.bbox)[0]) > reach:
        return False
    return g.bbox[2] <= bx0 + 1 if side.bbox[2] <= bx0 + 1 else g.bbox[0] >= bx1 - 1


def with_cell_lines(blocks: list[BlockCandidate], fragments: list[Fragment]) -> list[BlockCandidate]:
    """Each formula block grown over the lines of its cells that a finder
    left just over or under it (:func:`.lines.cell_lines_outside`, the
    leak detector's own test: a big operator's second limit line) and over the lines of math it goes on into when its last
    line ends with an operator (:func:`.lines.continued_lines`), as
    long as it meets no other block."""
    out = list(blocks)
    for i, block in enumerate(out):
        if block.kind is not BlockKind.FORMULA:
            continue
        others = [o.bbox for j, o in enumerate(out) if j != i]
        box = block.bbox
        for _ in range(8):
            free = outside(fragments, [box, *others])
            lines = cell_lines_outside(box, fragments, free) or continued_lines(box, fragments, free)
            grown = union([box, *(g.bbox for g in lines)]) if lines else box
            if grown == box or any(overlaps(o, grown) for o in others):
                break
            box = grown
        if box != block.bbox:
            out[i] = cover_fragments(BlockCandidate(block.kind, block.shape, box, block.finder), fragments)
    return out


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
    """Where a fragment's text ends, its closing punctuation aside (a
    denominator followed by its formula's comma runs past its bar by it)."""
    return f.bbox[2] - (PUNCT_EM * f.size if f.text[-1:] in TRAILING_PUNCT else 0.0)


def _stacked(fragments, bx0, by, bx1, settings: PdfSettings, above: bool) -> list[Fragment]:
    out = []
    for f in fragments:
        if f.bbox[0] < bx0 - 2 or _end(f) > bx1 + 2:
            continue
        gap = settings.fraction_max_gap_em * f.size
        y0, y1 = line_extent(f)  # not a tall parenthesis's box reaching over the bar
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
