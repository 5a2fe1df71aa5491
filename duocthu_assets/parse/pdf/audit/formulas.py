"""Second opinion on a PDF's lifted formulas: the lines of a formula's cell
left just over or under its block, and the line a formula goes on into
when its last line ends with an operator. Pure: fragments and boxes in,
findings (:class:`.tables.Leak`) out.
"""

from __future__ import annotations

from ..blocks.lines import cell_lines_outside, ends_with_operator, lines_under, outside
from ..geometry import BBox
from ..records import Fragment
from .tables import Leak


def formula_goes_on(page_no: int, fragments: list[Fragment], formulas: list[BBox], blocks: list[BBox] = ()) -> list[Leak]:
    """A formula whose last line ends with an operator and a line set solid
    under it, outside every block: the rest of the formula read as prose
    (what :func:`..blocks.lines.continued_lines` could not take: a line holding prose)."""
    free = outside(fragments, [*formulas, *blocks])
    return [
        Leak(page_no, k, g.text, g.bbox, 0, "line a formula goes on into")
        for k, box in enumerate(formulas)
        if ends_with_operator(box, fragments)
        for g in lines_under(box, free)[:1]
    ]


def loose_cell_lines(page_no: int, fragments: list[Fragment], formulas: list[BBox], blocks: list[BBox] = ()) -> list[Leak]:
    """Lines of a formula's cell left just outside its block: a line
    outside every block, set solid over or under a line inside one of
    ``formulas`` (:func:`..blocks.lines.set_solid`) and across that line's stretch (its
    ends within :data:`..blocks.lines.CELL_REACH_EM` ems, or centred on it and at most
    :data:`..blocks.lines.CENTRED_WIDER` times as wide; narrower than the formula,
    :data:`..blocks.lines.CELL_OF_BLOCK`), with no paragraph line set solid against it
    (:func:`..blocks.lines.cell_line`), unless the formula's line has words of prose
    beside it (a formula inline in a paragraph's line). A paragraph's line
    runs the text's width, so a line just over a display formula is not
    one; the next line of a numerator, of a denominator or of a cell set in
    words beside the bar is."""
    free = outside(fragments, [*formulas, *blocks])
    return [
        Leak(page_no, k, g.text, g.bbox, 0, "formula cell line")
        for k, box in enumerate(formulas)
        for g in cell_lines_outside(box, fragments, free)
    ]

