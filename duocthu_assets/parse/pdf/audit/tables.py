"""Second opinion on a PDF's lifted tables: rows left outside a table, and
running text taken into one.

Independent of how the finders drew a table's box, the text just under it
tells whether the box is complete: a line directly below (within a couple
of the table's row pitches) whose pieces line up with two or more of the
table's columns is a row the table lost. The pieces of a table row start,
end or centre where the table's cells do; a note or a paragraph under the
table is one run of words and lines up with one column at most.

    block_grid        fragments inside a table → its column anchors and row pitch
    rows_below        the lines directly under it, outside every block
    leaked_rows       all of it, for one page
    prose_lines_in    lines of running text inside a block (prose swallowed)

Pure: fragments and boxes in, findings out.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from ..blocks.columns import ANCHOR_TOL, Grid, aligned_columns, near
from ..blocks.scoring import text_rows
from ..geometry import BBox, center, contains_point, union
from ..read.rules import merge_rules
from ..records import Fragment, Rule

MIN_ALIGNED = 2  # a leaked row lines up with at least this many columns
PROSE_MIN_WORDS = 9  # one run of this many words is a line of running text
MAX_WRAPPED = 2  # lines of one piece on a column's left edge (a wrapped cell) stepped over between rows


@dataclass(frozen=True)
class Leak:
    page_no: int
    block_index: int  # which of the page's blocks lost the row
    text: str
    bbox: BBox
    columns: int  # how many of the block's columns the line lines up with
    what: str = "table row"  # or "formula cell line" (:mod:`.formulas`)


def _anchors(values: list[float], min_count: int = 2) -> tuple[float, ...]:
    """Positions that at least ``min_count`` values share (within the tolerance)."""
    out: list[float] = []
    values = sorted(values)
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] - values[i] <= ANCHOR_TOL:
            j += 1
        if j - i + 1 >= min_count:
            out.append(statistics.fmean(values[i : j + 1]))
        i = j + 1
    return tuple(out)


def block_grid(inside: list[Fragment]) -> Grid | None:
    """The column anchors and row pitch of a table's fragments; None when
    the block has fewer than two rows."""
    rows = text_rows(inside)
    if len(rows) < 2:
        return None
    tops = [min(f.bbox[1] for f in r) for r in rows]
    pitches = [b - a for a, b in zip(tops, tops[1:]) if b > a]
    heights = [f.bbox[3] - f.bbox[1] for f in inside]
    pitch = statistics.median(pitches) if pitches else statistics.median(heights) * 1.3
    return Grid(
        _anchors([f.bbox[0] for f in inside]),
        _anchors([f.bbox[2] for f in inside]),
        _anchors([center(f.bbox)[0] for f in inside]),
        max(pitch, statistics.median(heights)),
    )


def rows_below(block: BBox, fragments: list[Fragment], blocks: list[BBox], grid: Grid) -> list[list[Fragment]]:
    """Lines outside every block, under ``block`` and within its width,
    each starting within two row pitches of the one above it (the first of
    the block's bottom)."""
    x0, _, x1, y1 = block
    free = [
        f
        for f in fragments
        if f.bbox[1] >= y1 - 2
        and f.bbox[0] >= x0 - 3 * ANCHOR_TOL
        and f.bbox[2] <= x1 + 3 * ANCHOR_TOL
        and not any(contains_point(b, *center(f.bbox), pad=1.0) for b in blocks)
    ]
    out: list[list[Fragment]] = []
    bottom = y1
    for row in text_rows(free):
        top = min(f.bbox[1] for f in row)
        if top - bottom > 2.0 * grid.pitch:
            break
        out.append(row)
        bottom = max(f.bbox[3] for f in row)
    return out


def leaked_rows(page_no: int, fragments: list[Fragment], blocks: list[BBox], other_blocks: list[BBox] = ()) -> list[Leak]:
    """The lines under each table of ``blocks`` that line up with its
    columns, down to the first line that does not (text inside any block,
    ``other_blocks`` too, is not free). A line of one piece starting on a
    column's left edge is a wrapped cell's next line: stepped over (up to
    :data:`MAX_WRAPPED` in a row), not the end of the rows: a table whose
    cells wrap would otherwise hide the rows under its first wrapped line."""
    every = list(blocks) + list(other_blocks)
    leaks: list[Leak] = []
    for k, box in enumerate(blocks):
        inside = [f for f in fragments if contains_point(box, *center(f.bbox), pad=1.0)]
        grid = block_grid(inside)
        if grid is None:
            continue
        wrapped = 0
        for row in rows_below(box, fragments, every, grid):
            n = aligned_columns(row, grid)
            # pieces of the other column beside it (a caption across the gutter) aside
            pieces = [f for f in row if aligned_columns([f], grid)]
            column = near(pieces[0].bbox[0], grid.lefts) if len(pieces) == 1 else None
            if column and not _long(pieces[0]) and wrapped < MAX_WRAPPED:  # not the first column: a paragraph starts there
                wrapped += 1  # a cell's next line, on a column's left edge: the rows may go on under it
                continue
            if len(row) < MIN_ALIGNED or n < MIN_ALIGNED:
                break
            wrapped = 0
            leaks.append(Leak(page_no, k, " ".join(f.text for f in row), union(f.bbox for f in row), n))
    return leaks


def _long(f: Fragment) -> bool:
    """One run of many words (dot leaders and numbers are not words)."""
    return sum(1 for w in f.words if sum(c.isalpha() for c in w.text) >= 2) >= PROSE_MIN_WORDS


CELL_RULE_TOL = 2.0  # points: a rule ending this close to a line's edge still runs past it


def in_ruled_cell(line: BBox, horizontal: list[Rule], vertical: list[Rule]) -> bool:
    """The line lies in a cell a table draws: a horizontal rule over it and
    one under it, each running its whole width, and a column rule beside it
    running its whole height (passages in the cells of a ruled grid). A
    paragraph taken in under a table's last rule, or two
    columns of prose with no rule beside them, lie in no such cell. Pure."""
    x0, y0, x1, y1 = line
    tol = CELL_RULE_TOL
    across = [r for r in horizontal if r.x0 <= x0 + tol and r.x1 >= x1 - tol]
    beside = any(r.y0 <= y0 + tol and r.y1 >= y1 - tol and (r.pos <= x0 + tol or r.pos >= x1 - tol) for r in vertical)
    return beside and any(r.pos <= y0 + tol for r in across) and any(r.pos >= y1 - tol for r in across)


def prose_lines_in(block: BBox, fragments: list[Fragment], rules: list[Rule] = ()) -> list[Fragment]:
    """Fragments inside ``block`` that are lines of running text: a long run
    of words alone on its row (a table's long cell has short cells beside
    it), or beside another long run (two columns of prose side by side). A
    first row of one line centred over the table is its title row; a line
    in a cell drawn by the block's ``rules`` (:func:`in_ruled_cell`) is a
    long cell, not prose."""
    inside = [f for f in fragments if contains_point(block, *center(f.bbox), pad=1.0)]
    own = [r for r in rules if contains_point(block, *r.bbox[:2], pad=2.0) and contains_point(block, *r.bbox[2:], pad=2.0)]
    horizontal, vertical = merge_rules(own, CELL_RULE_TOL) if own else ([], [])
    out: list[Fragment] = []
    for k, row in enumerate(text_rows(inside)):
        if k == 0 and len(row) == 1 and abs(center(row[0].bbox)[0] - (block[0] + block[2]) / 2) <= 0.1 * (block[2] - block[0]):
            continue  # one line centred over the table: its spanning title row
        long = [f for f in row if _long(f)]
        if long and (len(row) == 1 or len(long) >= 2):
            out += [f for f in long if not in_ruled_cell(f.bbox, horizontal, vertical)]
    return out

