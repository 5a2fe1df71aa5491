"""Lines around a block: a formula's cells set solid, the lines it goes on into, a line's run of words, and formulas set in words around a lone operator. The formula finders lift with them; the leak audit checks with them."""

from __future__ import annotations

from ..geometry import BBox, center, contains_point, union
from ..records import LONE_OPERATORS, MATH_CHAR, Fragment, fragments_in

CELL_LINE_GAP = 0.5  # a cell's next line starts within this share of a line's height (set solid)


CELL_REACH_EM = 1.5  # ... across the same stretch: its ends within this many ems of the line's


CENTRED_WIDER = 1.6  # ... or centred on it and at most this many times as wide


CELL_OF_BLOCK = 0.9  # ... and narrower than this share of the formula's width (a cell is a part of it)


def on_line(f: Fragment, h: Fragment) -> bool:
    """``f`` stands on ``h``'s line: they overlap by half the smaller height."""
    return min(f.bbox[3], h.bbox[3]) - max(f.bbox[1], h.bbox[1]) >= 0.5 * max(min(f.height, h.height), 1.0)


def outside(fragments: list[Fragment], boxes) -> list[Fragment]:
    """The fragments whose centre no box of ``boxes`` holds (free text)."""
    return [f for f in fragments if not any(contains_point(b, *center(f.bbox), pad=1.0) for b in boxes)]


def set_solid(g: Fragment, h: Fragment) -> bool:
    """``g`` stands just over or under ``h`` (within :data:`CELL_LINE_GAP`
    of the lower line's height, not beside it) across part of its stretch."""
    least = max(min(g.height, h.height), 1.0)
    gap = max(g.bbox[1] - h.bbox[3], h.bbox[1] - g.bbox[3])
    overlap = min(g.bbox[3], h.bbox[3]) - max(g.bbox[1], h.bbox[1])
    across = min(g.bbox[2], h.bbox[2]) - max(g.bbox[0], h.bbox[0])
    return gap <= CELL_LINE_GAP * least and overlap < 0.5 * least and across > 0


RUN_GAP_EM = 1.0  # fragments of one line at most this many ems apart are one run


JUSTIFIED_GAP_EM = 2.0  # ... for the leak detector: a narrow justified column spaces its words this far


CELL_MAX_WORDS = 12  # a cell's line holds at most this many words (a numerator set in words, 10 a line; prose more)


def line_run(g: Fragment, fragments: list[Fragment], gap_em: float = RUN_GAP_EM) -> Fragment:
    """``g`` with the fragments on its line chained to it within ``gap_em``
    ems: the line it is part of (a justified paragraph's line can come
    apart into words; a formula's cells stand further apart)."""
    same = [f for f in fragments if f is not g and f.bbox[1] < g.bbox[3] and f.bbox[3] > g.bbox[1] and on_line(f, g)]
    run, x0, x1 = [g], g.bbox[0], g.bbox[2]
    grown = True
    while grown:
        grown = False
        for f in same:
            if f in run:
                continue
            reach = gap_em * max(f.size, g.size, 1.0)
            if -1.0 <= f.bbox[0] - x1 <= reach or -1.0 <= x0 - f.bbox[2] <= reach:
                run.append(f)
                x0, x1 = min(x0, f.bbox[0]), max(x1, f.bbox[2])
                grown = True
    if len(run) == 1:
        return g
    from ..records import make_fragment

    return make_fragment(sorted((w for f in run for w in f.words), key=lambda w: w.bbox[0]), g.line_id)


def cell_line(g: Fragment, fragments: list[Fragment], fits, gap_em: float = RUN_GAP_EM) -> bool:
    """Whether ``g``'s line (:func:`line_run`) ``fits`` a cell, holds at most
    :data:`CELL_MAX_WORDS` words, and is a cell's line rather than a
    paragraph's: no line that does not fit stands set solid over or under
    it (a paragraph's short last line, set solid over a cell's first line,
    has its full-width line over it)."""
    run = line_run(g, fragments, gap_em)
    if not fits(run) or len(run.text.split()) > CELL_MAX_WORDS:
        return False
    reach = g.height + 1.0  # only lines this close over or under it can be set solid against it
    near = [o for o in fragments if o.bbox[1] <= g.bbox[3] + reach and o.bbox[3] >= g.bbox[1] - reach]
    return not any(o is not g and set_solid(o, g) and not fits(line_run(o, near, gap_em)) for o in near)


INLINE_MIN_WORDS = 3  # free words on a formula line's own line: the formula is inline in a paragraph


def _prose_beside(h: Fragment, free: list[Fragment]) -> int:
    """Words of the free fragments on ``h``'s line chained to it, each at
    most three ems from the last (not across a gutter)."""
    same = [f for f in free if on_line(f, h)]
    x0, x1, words = h.bbox[0], h.bbox[2], 0
    reach = 3 * max(h.size, 1.0)
    grown = True
    while grown:
        grown = False
        for f in list(same):
            if max(f.bbox[0] - x1, x0 - f.bbox[2]) <= reach:
                same.remove(f)
                x0, x1, words = min(x0, f.bbox[0]), max(x1, f.bbox[2]), words + len(f.text.split())
                grown = True
    return words


def cell_lines_outside(box: BBox, fragments: list[Fragment], free: list[Fragment]) -> list[Fragment]:
    """The lines among ``free`` that belong to a cell of the formula at
    ``box`` (see :func:`..audit.formulas.loose_cell_lines`)."""
    inside = fragments_in(box, fragments)
    reach = 2.0 * max((f.height for f in inside), default=0.0)  # set solid: within a line's height of the box
    level = [g for g in free if g.bbox[3] >= box[1] - reach and g.bbox[1] <= box[3] + reach]
    free = [g for g in level if g.bbox[2] > box[0] and g.bbox[0] < box[2]]
    if not free:
        return []
    # a formula set inline in a paragraph's line has that paragraph's lines over and under it
    inside = [h for h in inside if _prose_beside(h, level) < INLINE_MIN_WORDS]
    widest = CELL_OF_BLOCK * (box[2] - box[0])

    def fits_line(h: Fragment):
        """Whether a line fits the cell of the formula's line ``h``."""
        reach = CELL_REACH_EM * max(h.size, 1.0)

        def fits(o: Fragment) -> bool:
            if o.bbox[2] - o.bbox[0] >= widest:
                return False  # as wide as the whole formula: a paragraph's line
            if o.bbox[0] >= h.bbox[0] - reach and o.bbox[2] <= h.bbox[2] + reach:
                return True
            # or centred on it, a little wider (a centred cell's lines differ in length)
            wider = o.bbox[2] - o.bbox[0] <= CENTRED_WIDER * (h.bbox[2] - h.bbox[0])
            return wider and abs(center(o.bbox)[0] - center(h.bbox)[0]) <= reach

        return fits

    cells = [(h, fits_line(h)) for h in inside]
    return [g for g in free if any(set_solid(g, h) and cell_line(g, fragments, fits, JUSTIFIED_GAP_EM) for h, fits in cells)]


GOES_ON = frozenset("=+−-×·≤≥<>≈∼→∈")  # a formula's last line ending with one of these goes on below


MATH_LINE_MAX_WORDS = 1  # a line a formula goes on into holds at most this many words of prose (``max``)


def ends_with_operator(box: BBox, fragments: list[Fragment]) -> bool:
    """Whether the last line of the formula at ``box`` ends with an operator
    (``S_{maximum,ϵ}(D) =``): the formula goes on on the next line."""
    inside = fragments_in(box, fragments)
    if not inside:
        return False
    last = max(inside, key=lambda f: (f.bbox[1] + f.bbox[3]) / 2)
    line = [f for f in inside if on_line(f, last)]
    text = max(line, key=lambda f: f.bbox[2]).text.rstrip()
    return bool(text) and text[-1] in GOES_ON


def lines_under(box: BBox, free: list[Fragment]) -> list[Fragment]:
    """The free lines set solid under ``box`` (their top within
    :data:`CELL_LINE_GAP` of a line's height of its bottom) that start
    within its stretch."""
    return [
        f for f in free
        if -0.5 * f.height <= f.bbox[1] - box[3] <= CELL_LINE_GAP * max(f.height, 1.0) and box[0] - 2 * max(f.size, 1.0) <= f.bbox[0] <= box[2]
    ]


def continued_lines(box: BBox, fragments: list[Fragment], free: list[Fragment]) -> list[Fragment]:
    """When the formula at ``box`` ends its last line with an operator, the
    lines it goes on into: each line set solid under it (:func:`lines_under`)
    while every piece of that line holds at most :data:`MATH_LINE_MAX_WORDS`
    words of prose, so that an equation's right-hand side is not left in
    prose under its lifted ``=``."""
    if not ends_with_operator(box, fragments):
        return []
    taken: list[Fragment] = []
    for _ in range(8):
        under = [f for f in lines_under(box, free) if f not in taken]
        if not under or any(_wordy(f) > MATH_LINE_MAX_WORDS for f in under):
            break
        taken += under
        box = union([box, *(f.bbox for f in under)])
    return taken


OPERAND_GAP_EM = 3.0  # the cells an operator joins stand at most this far (ems of its size) beside it


CELL_MIN_WORDS = 3  # ... and each holds at least this many words of letters over two or more lines


def _wordy(fragment: Fragment) -> int:
    """Words of two or more letters, unmarked (no script, no math sign), in a fragment."""
    return sum(1 for t in fragment.text.split() if sum(c.isalpha() for c in t) >= 2 and not any(c in "^_{}" for c in t) and not MATH_CHAR.search(t))


def cell_lines(f: Fragment, fragments: list[Fragment]) -> list[Fragment]:
    """``f`` and the lines of words set just over or under it across the same stretch (one cell's lines)."""
    out = [f]
    for g in fragments:
        if g is f:
            continue
        gap = max(g.bbox[1] - f.bbox[3], f.bbox[1] - g.bbox[3])
        over = min(g.bbox[2], f.bbox[2]) - max(g.bbox[0], f.bbox[0])
        if gap <= 0.8 * max(f.height, 1.0) and over >= 0.5 * min(g.bbox[2] - g.bbox[0], f.bbox[2] - f.bbox[0]):
            out.append(g)
    return out


def word_formula_operators(fragments: list[Fragment]) -> list[tuple[Fragment, Fragment, Fragment]]:
    """``(operator, left cell's line, right cell's line)`` for each lone
    operator (``=``, ``x``, ``−`` …, a fragment of its own) among
    ``fragments`` set between two cells of words on its height, within
    :data:`OPERAND_GAP_EM` of it: a formula set in words (``Tiền thuê đất
    phải nộp = Diện tích … x Đơn giá …``). A cell is lines of
    words stacked across the same stretch (:func:`cell_lines`), at least
    two lines and :data:`CELL_MIN_WORDS` words of letters; nothing but
    operators stands just over or under the operator (a ``=`` a justified
    line of prose spaced apart has the lines of its paragraph there; a
    display equation's cells are symbols, not words). Pure."""
    operators = [f for f in fragments if f.text.strip() in LONE_OPERATORS]
    if not operators:
        return []
    text_lines = [g for g in fragments if g.text.strip() not in LONE_OPERATORS]
    found = []
    for f in operators:
        height = max(f.height, 1.0)
        if any(
            min(g.bbox[2], f.bbox[2]) - max(g.bbox[0], f.bbox[0]) > 0 and max(g.bbox[1] - f.bbox[3], f.bbox[1] - g.bbox[3]) <= 1.2 * height
            for g in text_lines
        ):
            continue  # a line of text just over or under it: an operator inside a paragraph
        reach = OPERAND_GAP_EM * max(f.size, 1.0)
        band = [g for g in text_lines if min(g.bbox[3], f.bbox[3]) - max(g.bbox[1], f.bbox[1]) > 0]
        cells = []
        for side in (
            [g for g in band if 0 <= f.bbox[0] - g.bbox[2] <= reach],
            [g for g in band if 0 <= g.bbox[0] - f.bbox[2] <= reach],
        ):
            best = None
            for g in side:
                lines = cell_lines(g, text_lines)
                if len(lines) >= 2 and sum(_wordy(x) for x in lines) >= CELL_MIN_WORDS:
                    best = g
                    break
            cells.append(best)
        if all(cells):
            found.append((f, cells[0], cells[1]))
    return found
