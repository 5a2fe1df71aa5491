"""A table's extent past its rules: the rows below its last rule (or above
the closing rule of a part continued from the page or column before) that
keep its column grid.

    band_rows            the page's text rows inside a column range, stopping
                         at a row that crosses the range's edge
    grow_down            rows under a table that line up with two or more of
                         its columns, at its line pitch
    rows_above_rule      the rows over a lone closing rule, up to the top of
                         their column

A row joins a table when its cells start, end or centre where the table's
cells do (:func:`duocthu_assets.parse.pdf.blocks.columns.aligned_columns`, the same
test the leak detector applies afterwards; the table's left edge counts as
the start of its first column) and it follows the row above within about
two line pitches. Group-label rows of one short cell (``Class A``) may sit
between such rows, and the last line of a wrapped inner cell set tight
under the table belongs to it. Nothing outside the table's horizontal extent
is ever taken: on a page of two prose columns, a column's table stays in its
column.
"""

from __future__ import annotations

import re
import statistics

from ..geometry import BBox, center, contains_point, union
from .columns import ANCHOR_TOL, Grid, aligned_columns
from ..records import Fragment
from .scoring import text_rows

_CAPTION = re.compile(r"^(table|tab\.|bảng|figure|fig\.|hình|note|notes|source|nguồn|ghi chú)\b", re.IGNORECASE)

EDGE_TOL = 3 * ANCHOR_TOL  # a cell may stick out of the rules this far
MAX_PITCH_FACTOR = 2.2  # a row follows the one before within this many pitches
PROSE_WORDS = 9  # one run of this many words is running text, not a cell


def _anchors_of(frags: list[Fragment], grid: Grid | None = None) -> Grid:
    """Every cell edge and centre of ``frags`` (added to ``grid``'s when
    given) as a column anchor, each position once: a column's cells share
    theirs."""
    lefts = {round(f.bbox[0], 1) for f in frags}
    rights = {round(f.bbox[2], 1) for f in frags}
    centres = {round((f.bbox[0] + f.bbox[2]) / 2, 1) for f in frags}
    if grid is not None:
        lefts.update(grid.lefts)
        rights.update(grid.rights)
        centres.update(grid.centres)
    return Grid(tuple(sorted(lefts)), tuple(sorted(rights)), tuple(sorted(centres)), 0.0)


def _pitch(rows: list[list[Fragment]]) -> float:
    tops = [min(f.bbox[1] for f in r) for r in rows]
    steps = [b - a for a, b in zip(tops, tops[1:]) if b > a]
    heights = [f.bbox[3] - f.bbox[1] for r in rows for f in r]
    height = statistics.median(heights) if heights else 10.0
    return max(statistics.median(steps) if steps else 1.5 * height, 1.2 * height)


def _in_range(f: Fragment, x0: float, x1: float) -> bool:
    return f.bbox[0] >= x0 - EDGE_TOL and f.bbox[2] <= x1 + EDGE_TOL


def _crosses(f: Fragment, x0: float, x1: float) -> bool:
    """Overlaps the range without lying inside it (a line of the next
    column or of the full page width)."""
    return f.bbox[0] < x1 - 1 and f.bbox[2] > x0 + 1 and not _in_range(f, x0, x1)


def band_rows(fragments: list[Fragment], x0: float, x1: float, y_from: float, downward: bool) -> list[list[Fragment]]:
    """Text rows within [x0, x1] beyond ``y_from`` (below it, or above it when
    not ``downward``), nearest first, up to (not including) the first row
    that a fragment crossing the range's edge shares."""
    if downward:
        near = [f for f in fragments if f.bbox[1] >= y_from - 1]
    else:
        near = [f for f in fragments if f.bbox[3] <= y_from + 1]
    rows = text_rows([f for f in near if f.bbox[0] < x1 + EDGE_TOL and f.bbox[2] > x0 - EDGE_TOL])
    if not downward:
        rows.reverse()
    out = []
    for row in rows:
        if any(_crosses(f, x0, x1) for f in row):
            break
        kept = [f for f in row if _in_range(f, x0, x1)]
        if kept:
            out.append(kept)
    return out


def _row_joins(row: list[Fragment], anchors: Grid) -> bool:
    return len(row) >= 2 and all(len(f.words) < PROSE_WORDS for f in row) and aligned_columns(row, anchors) >= 2


MAX_LABEL_ROWS = 2  # single-cell rows (a group label, "Class A") between two rows of cells
LABEL_WORDS = 8  # ... of at most this many words


def _is_label_row(row: list[Fragment]) -> bool:
    """One short cell on its row: a group label inside a table (``Class A``,
    ``Total for the Fund``), or a caption or prose line under it: which of
    the two is decided by the row of cells that must follow it."""
    return len(row) == 1 and len(row[0].words) <= LABEL_WORDS and not _CAPTION.match(row[0].text.strip())


def _wraps_cell_above(line: Fragment, table: list[Fragment], x0: float) -> bool:
    """The last line of a wrapped cell of the table's last row, left under
    it: set tight under a cell of an inner column (not the first, where a
    note or caption under a table starts) at the same left edge."""
    height = line.bbox[3] - line.bbox[1]
    if line.bbox[0] - x0 <= 2 * EDGE_TOL:
        return False
    return any(
        abs(f.bbox[0] - line.bbox[0]) <= ANCHOR_TOL and -1 <= line.bbox[1] - f.bbox[3] <= 0.5 * height
        for f in table
    )


def grow_down(bbox: BBox, fragments: list[Fragment], taken: list[BBox] = ()) -> BBox:
    """``bbox`` grown over the rows under it that keep its column grid.
    Up to :data:`MAX_LABEL_ROWS` single-cell label rows are taken when a row
    of cells lining up with the table (and with them) follows; the line
    pitch is the table's own, re-measured as it grows (a table set with a
    blank line between its rows has a pitch of two lines). ``fragments`` are
    the page's text; text inside ``taken`` (other blocks) is not free."""
    x0, y0, x1, y1 = bbox
    inside = [f for f in fragments if contains_point(bbox, *center(f.bbox), pad=1.0)]
    if not inside:
        return bbox
    free = [f for f in fragments if not contains_point(bbox, *center(f.bbox), pad=1.0) and not any(contains_point(t, *center(f.bbox), pad=1.0) for t in taken)]
    table_rows = text_rows(inside)
    pitch = _pitch(table_rows)
    last_top = min(f.bbox[1] for f in table_rows[-1])
    grown: list[Fragment] = []
    tops = [min(f.bbox[1] for f in r) for r in table_rows]
    labels: list[list[Fragment]] = []  # label rows waiting for a row of cells
    # the table's left edge is where its first column starts (a header band
    # over a label column leaves that column's header empty)
    anchors = _anchors_of(inside)
    anchors = Grid(tuple(sorted({*anchors.lefts, round(x0, 1)})), anchors.rights, anchors.centres, 0.0)
    for row in band_rows(free, x0, x1, y1, downward=True):
        top = min(f.bbox[1] for f in row)
        if top - last_top > MAX_PITCH_FACTOR * pitch:
            break
        if _is_label_row(row) and len(labels) < MAX_LABEL_ROWS:
            labels.append(row)
            last_top = top
            continue
        if not _row_joins(row, _anchors_of([f for r in labels for f in r], anchors) if labels else anchors):
            break
        grown += [f for r in labels for f in r] + row
        anchors = _anchors_of([f for r in labels for f in r] + row, anchors)
        tops += [min(f.bbox[1] for f in r) for r in labels] + [top]
        labels = []
        last_top = top
        pitch = max(pitch, statistics.median(b - a for a, b in zip(tops, tops[1:])))
    if labels and _wraps_cell_above(labels[0][0], inside + grown, x0):
        grown += labels[0]
    if not grown:
        return bbox
    return union([bbox, *(f.bbox for f in grown)])


def rows_above_rule(rule_x0: float, rule_y: float, rule_x1: float, fragments: list[Fragment]) -> BBox | None:
    """The region of the rows directly over a closing rule that line up with
    one another (two or more, each of two or more cells) and open their
    column (no text of the column above them): the rest of a table whose
    first part is on the page or column before. None when there is none."""
    rows = band_rows(fragments, rule_x0, rule_x1, rule_y, downward=False)
    if not rows:
        return None
    first = rows[0]
    height = max(f.bbox[3] - f.bbox[1] for f in first)
    if rule_y - max(f.bbox[3] for f in first) > 1.5 * height or len(first) < 2:
        return None
    taken = [first]
    for row in rows[1:]:
        pitch = _pitch(list(reversed(taken))) if len(taken) >= 2 else 1.8 * height
        if min(f.bbox[1] for f in taken[-1]) - min(f.bbox[1] for f in row) > MAX_PITCH_FACTOR * pitch:
            break
        if not _row_joins(row, _anchors_of([f for r in taken for f in r])):
            return None  # something else sits over the rows in this column: not the top of a continued part
        taken.append(row)
    if len(taken) < 2:
        return None
    top = min(f.bbox[1] for r in taken for f in r)
    if any(f.bbox[3] <= top - 1 and f.bbox[2] > rule_x0 and f.bbox[0] < rule_x1 for f in fragments):
        return None
    return union([(rule_x0, rule_y - 0.5, rule_x1, rule_y + 0.5), *(f.bbox for r in taken for f in r)])
