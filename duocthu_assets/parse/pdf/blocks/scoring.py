"""Scoring a region as a table: rows, columns and tabular evidence.

Every table candidate must show tabular evidence (:func:`tabular_evidence`):
at least two columns and two rows of text, and little prose, so a framed
paragraph, an underlined line or a page of prose with numbers is not a table.
"""

from __future__ import annotations

import bisect
import statistics
from dataclasses import dataclass

from ..geometry import BBox, center, union
from ..records import Fragment
from ....settings.pdf import PdfSettings
from ..records import fragments_in


@dataclass(frozen=True)
class Evidence:
    rows: int
    cols: int
    merged_header: bool


def text_rows(fragments: list[Fragment]) -> list[list[Fragment]]:
    """Fragments grouped into rows (vertical overlap of at least half the
    smaller height), top to bottom, each row left to right."""
    rows: list[list[Fragment]] = []
    box: BBox | None = None
    for f in sorted(fragments, key=lambda f: (f.bbox[1], f.bbox[0])):
        b = f.bbox
        if box is not None:
            overlap = min(box[3], b[3]) - max(box[1], b[1])
            if overlap >= 0.5 * min(box[3] - box[1], b[3] - b[1]):
                rows[-1].append(f)
                box = (min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3]))
                continue
        rows.append([f])
        box = b
    for row in rows:
        row.sort(key=lambda f: f.bbox[0])
    return rows


def row_box(row: list[Fragment]) -> BBox:
    return union(f.bbox for f in row)


def is_prose_row(row: list[Fragment], x0: float, x1: float, settings: PdfSettings) -> bool:
    """One fragment of many words starting near the left edge and spanning
    most of the width: a line of a paragraph, not a row of cells."""
    if len(row) != 1:
        return False
    f = row[0]
    width = max(x1 - x0, 1.0)
    words = len(f.words)
    return words >= settings.prose_row_min_words and (f.bbox[2] - f.bbox[0]) >= settings.prose_row_width_frac * width and f.bbox[0] - x0 <= 0.15 * width


def column_separators(rows: list[list[Fragment]], x0: float, x1: float, min_gap: float, cross_frac: float = 0.1) -> list[tuple[float, float]]:
    """Vertical whitespace stripes at least ``min_gap`` wide that at most
    ``cross_frac`` of the rows cross, with text on both sides."""
    if not rows or x1 <= x0:
        return []
    n_bins = int(x1 - x0) + 2
    counts = [0] * n_bins
    for row in rows:
        occupied: set[int] = set()
        for f in row:
            a = max(0, int(f.bbox[0] - x0))
            b = min(n_bins - 1, int(f.bbox[2] - x0) + 1)
            occupied.update(range(a, b + 1))
        for k in occupied:
            counts[k] += 1
    limit = int(cross_frac * len(rows))
    seps: list[tuple[float, float]] = []
    k = 0
    seen_text = False
    while k < n_bins:
        if counts[k] > limit:
            seen_text = True
            k += 1
            continue
        start = k
        while k < n_bins and counts[k] <= limit:
            k += 1
        if seen_text and k < n_bins and (k - start) >= min_gap:
            seps.append((x0 + start, x0 + k))
    return seps


def _band(value: float, cuts: list[float]) -> int:
    return bisect.bisect_left(cuts, value)


def tabular_evidence(
    fragments: list[Fragment],
    bbox: BBox,
    v_cuts: list[float],
    h_cuts: list[float],
    settings: PdfSettings,
    min_rows: int,
    body_size: float,
    closed_grid: bool = False,
) -> Evidence | None:
    """Whether the text inside ``bbox`` is laid out as a table: at least two
    columns (between the interior vertical rules ``v_cuts``, or whitespace
    stripes) and ``min_rows`` rows (between the interior horizontal rules
    ``h_cuts``, or text rows), with few prose rows and short cells. In a
    ``closed_grid`` (rules on every side and inside both ways) the ruled
    cells are evidence enough, whatever text they hold."""
    inside = fragments_in(bbox, fragments)
    if len(inside) < 2:
        return None
    rows = text_rows(inside)
    x0, x1 = bbox[0], bbox[2]
    # cells ruled in both directions are a table whatever they hold (a form,
    # a table of long texts); otherwise running text disqualifies
    ruled_cells = closed_grid and bool(v_cuts) and bool(h_cuts)
    prose = sum(1 for r in rows if is_prose_row(r, x0, x1, settings))
    if not ruled_cells and prose > settings.max_prose_row_frac * len(rows):
        return None
    if v_cuts:
        cols = {_band(center(f.bbox)[0], v_cuts) for f in inside}
        n_cols = len(cols)
        seps: list[tuple[float, float]] = []
    else:
        seps = column_separators(rows, x0, x1, settings.cell_gap_em * body_size * 0.6)
        n_cols = len(seps) + 1 if seps else 1
        if seps:
            cuts = [(a + b) / 2 for a, b in seps]
            n_cols = len({_band(center(f.bbox)[0], cuts) for f in inside})
    if ruled_cells:
        if not _ruled_cells_tabular(inside, v_cuts, h_cuts) or frames_running_text(inside, v_cuts, h_cuts):
            return None
        n_rows = len(h_cuts) + 1  # a form's empty ruled rows are rows too
    elif h_cuts:
        n_rows = len({_band(center(f.bbox)[1], h_cuts) for f in inside})
    else:
        n_rows = len(rows)
    if n_cols < 2 or n_rows < min_rows:
        return None
    if not ruled_cells and _prose_column(inside, v_cuts or [(a + b) / 2 for a, b in seps], settings):
        return None
    merged = False
    if seps:
        merged = header_crosses(rows, seps)
    return Evidence(n_rows, n_cols, merged)


def _ruled_cells_tabular(inside: list[Fragment], v_cuts: list[float], h_cuts: list[float]) -> bool:
    """Text in the ruled cells reads as a table: a row with two or more
    filled cells, and a column with two or more (or, for an empty form, a
    filled header over a grid of at least three by three). A letterhead box
    with a logo in one cell and a title in another is not a table."""
    cells = {(_band(center(f.bbox)[1], h_cuts), _band(center(f.bbox)[0], v_cuts)) for f in inside}
    per_row: dict[int, int] = {}
    per_col: dict[int, int] = {}
    for r, c in cells:
        per_row[r] = per_row.get(r, 0) + 1
        per_col[c] = per_col.get(c, 0) + 1
    if max(per_row.values(), default=0) < 2:
        return False
    return max(per_col.values(), default=0) >= 2 or (len(h_cuts) >= 2 and len(v_cuts) >= 2)


FRAME_MAX_BANDS = 2  # a layout frame has one or two bands of panels ...
FRAME_PROSE_LINES = 8  # ... and a panel holding this many lines of running text
FRAME_LINE_WORDS = 8  # ... of at least this many words each


def frames_running_text(inside: list[Fragment], v_cuts: list[float], h_cuts: list[float]) -> bool:
    """Rules that divide a page into a few panels (a cover's columns and
    sidebar, a boxed abstract), one of them holding paragraphs of running
    text: a layout frame, not a table (a table's long cells hold a few lines
    each, in many rows)."""
    if len(h_cuts) + 1 > FRAME_MAX_BANDS:
        return False
    per_cell: dict[tuple[int, int], int] = {}
    for f in inside:
        if len(f.words) >= FRAME_LINE_WORDS:
            cell = (_band(center(f.bbox)[1], h_cuts), _band(center(f.bbox)[0], v_cuts))
            per_cell[cell] = per_cell.get(cell, 0) + 1
    return max(per_cell.values(), default=0) >= FRAME_PROSE_LINES


def _prose_column(inside: list[Fragment], cuts: list[float], settings: PdfSettings) -> bool:
    """A column whose cells are mostly long runs of words is running text
    beside something else, not a table column."""
    by_col: dict[int, list[Fragment]] = {}
    for f in inside:
        by_col.setdefault(_band(center(f.bbox)[0], cuts), []).append(f)
    if len(by_col) < 2:
        return False
    long_cols = 0
    for frags in by_col.values():
        words = statistics.median(len(f.words) for f in frags)
        if words >= settings.prose_row_min_words and len(frags) >= 3:
            long_cols += 1
    return long_cols == len(by_col)


def header_crosses(rows: list[list[Fragment]], seps: list[tuple[float, float]]) -> bool:
    """A fragment in the first rows spanning a column separator (a header
    cell over several columns)."""
    for row in rows[:3]:
        for f in row:
            for a, b in seps:
                if f.bbox[0] < a - 1 and f.bbox[2] > b + 1:
                    return True
    return False

