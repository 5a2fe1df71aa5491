"""Borderless tables: rows of several text fragments whose gaps line up →
:func:`find_whitespace_tables` (run per column region by the layout, so a
two-column page is not taken for a two-column table)."""

from __future__ import annotations

import re
import statistics

from ....model import BlockKind, BlockShape
from .candidates import BlockCandidate, Drawings, cover_fragments
from .not_tables import is_figure
from ..geometry import BBox, center, free_intervals, union
from ..records import Fragment, make_fragment
from ....settings.pdf import PdfSettings
from .scoring import column_separators, header_crosses, is_prose_row, row_box, tabular_evidence, text_rows

_CAPTION = re.compile(r"^(table|tab\.|bảng|exhibit|figure|fig\.|hình|biểu đồ|sơ đồ|chart)\b", re.IGNORECASE)
_NUMERIC = re.compile(r"^[\s\d.,:;%/()±<>≤≥=+\-–—xX*]+$")


def _is_caption(row: list[Fragment]) -> bool:
    return bool(_CAPTION.match(row[0].text.strip()))


_EQUATION_NUMBER = re.compile(r"^\(\d{1,3}[a-z]?\)$")


def _is_numeric(f: Fragment) -> bool:
    """A number cell (not an equation number "(3)" at the margin)."""
    text = f.text.strip()
    return bool(_NUMERIC.match(text)) and any(ch.isdigit() for ch in text) and not _EQUATION_NUMBER.match(text)


_NUMBER_TOKEN = re.compile(r"^[<>≤≥±~=]?[\d][\d.,/:]*%?$")
def split_numeric_cells(fragments: list[Fragment], settings: PdfSettings) -> list[Fragment]:
    """Split fragments between two numbers set apart by more than a word
    space: tight numeric columns ("12,5   13,7   14,2") are cells, not prose."""
    out: list[Fragment] = []
    for f in fragments:
        words = f.words
        start = 0
        for k in range(1, len(words)):
            a, b = words[k - 1], words[k]
            gap = max(b.bbox[0] - a.bbox[2], a.bbox[0] - b.bbox[2])
            if gap >= settings.numeric_split_em * max(a.size, b.size, 1.0) and _NUMBER_TOKEN.match(a.text) and _NUMBER_TOKEN.match(b.text):
                out.append(make_fragment(words[start:k], f.line_id))
                start = k
        out.append(f if start == 0 else make_fragment(words[start:], f.line_id))
    return out


def find_whitespace_tables(fragments: list[Fragment], settings: PdfSettings, body_size: float, drawings: Drawings = Drawings()) -> list[BlockCandidate]:
    """Borderless tables in one column region: runs of rows of several cells
    whose gaps line up, with the header rows just above them."""
    rows = text_rows(split_numeric_cells(fragments, settings))
    multi = [len(r) >= 2 for r in rows]
    if sum(multi) < settings.borderless_min_rows:
        return []
    out: list[BlockCandidate] = []
    k = 0
    n = len(rows)
    while k < n:
        if not multi[k]:
            k += 1
            continue
        # a run: multi-cell rows, close together, single-cell rows allowed inside
        start = k
        end = k
        last_multi = k
        j = k + 1
        while j < n:
            prev_box, box = row_box(rows[j - 1]), row_box(rows[j])
            height = max(prev_box[3] - prev_box[1], box[3] - box[1], 1.0)
            if box[1] - prev_box[3] > 1.6 * height:
                break
            if multi[j]:
                last_multi = j
            elif j - last_multi > settings.max_continuation_rows or is_prose_row(rows[j], row_box(rows[start])[0], row_box(rows[last_multi])[2], settings):
                break
            end = j
            j += 1
        end = last_multi
        candidate = _whitespace_candidate(rows, start, end, settings, body_size, drawings.horizontal)
        if candidate is not None and is_figure(candidate.bbox, drawings.graphics, settings):
            candidate = None
        sides = table_sides(candidate, fragments, settings) if candidate is not None else []
        if sides:
            # the run reached across a gutter into a column of prose: look for
            # the table in its own columns only
            for side in sides:
                out += [c for c in _confined(side, fragments, settings, body_size, drawings) if c.bbox[1] < candidate.bbox[3] and c.bbox[3] > candidate.bbox[1]]
            k = end + 1
            continue
        if candidate is not None:
            out.append(cover_fragments(candidate, fragments))
            k = end + 1
        else:
            k = start + 1
    return out


def _whitespace_candidate(rows, start: int, end: int, settings: PdfSettings, body_size: float, horizontal=()) -> BlockCandidate | None:
    body = rows[start : end + 1]
    multi_rows = [r for r in body if len(r) >= 2]
    if len(multi_rows) < settings.borderless_min_rows:
        return None
    x0 = min(row_box(r)[0] for r in body)
    x1 = max(row_box(r)[2] for r in body)
    seps = column_separators(multi_rows, x0, x1, settings.cell_gap_em * body_size * 0.6, cross_frac=0.0)
    if not seps:
        return None
    cells = [f for r in body for f in r]
    if statistics.median(len(f.words) for f in cells) > 4:
        return None
    if len(seps) == 1:
        # two columns: demand more rows and a column of numbers or short labels
        if len(multi_rows) < settings.borderless_min_rows + 1:
            return None
        cut = (seps[0][0] + seps[0][1]) / 2
        right = [f for f in cells if center(f.bbox)[0] > cut]
        if not right or sum(_is_numeric(f) for f in right) < 0.5 * len(right):
            return None
    # header rows directly above: short, within the table's width, not a caption
    first = start
    table_w = x1 - x0
    for _ in range(3):
        if first == 0:
            break
        above = rows[first - 1]
        box, top = row_box(above), row_box(rows[first])
        height = max(box[3] - box[1], 1.0)
        if top[1] - box[3] > 1.6 * height or box[0] < x0 - 0.1 * table_w or box[2] > x1 + 0.1 * table_w:
            break
        if _is_caption(above) or is_prose_row(above, x0, x1, settings):
            break
        if len(above) == 1 and (box[2] - box[0]) > 0.5 * table_w:
            break
        first -= 1
    selected = [f for r in rows[first : end + 1] for f in r]
    bbox = union(f.bbox for f in selected)
    evidence = tabular_evidence(selected, bbox, [], [], settings, settings.borderless_min_rows, body_size)
    if evidence is None:
        return None
    merged = header_crosses(rows[first : end + 1], seps) or _partial_header_rule(bbox, horizontal)
    shape = BlockShape.MULTI_LEVEL_OR_MERGED_HEADER if merged else BlockShape.SIMPLE_TABLE
    return BlockCandidate(BlockKind.TABLE, shape, bbox, "whitespace")


def _partial_header_rule(bbox: BBox, horizontal) -> bool:
    """A rule under a spanning header cell: inside the upper part of the
    table and shorter than its width."""
    x0, y0, x1, y1 = bbox
    width = x1 - x0
    return any(
        x0 - 10 <= r.x0 and r.x1 <= x1 + 10 and (r.x1 - r.x0) < 0.9 * width and y0 < r.pos < y0 + 0.5 * (y1 - y0)
        for r in horizontal
    )



# --- column-gutter confinement ------------------------------------------------------

PROSE_SIDE_WORDS = 6  # a line of a prose column holds at least this many words
PROSE_SIDE_FRAC = 0.6  # of the lines beside the table
PROSE_MIDDLE_LINES = 8  # a prose column between two parts of a candidate has at least this many lines


def _words(f: Fragment) -> int:
    return sum(1 for w in f.words if sum(c.isalpha() for c in w.text) >= 2)


def is_prose_side(frags: list[Fragment]) -> bool:
    """Lines of running text: three or more, most of them long runs of words."""
    return len(frags) >= 3 and sum(1 for f in frags if _words(f) >= PROSE_SIDE_WORDS) >= PROSE_SIDE_FRAC * len(frags)


def table_sides(candidate: BlockCandidate, fragments: list[Fragment], settings: PdfSettings) -> list[tuple[float, float]]:
    """When gutters (vertical stripes no text crosses) split the candidate
    and a stripe between them is a column of prose, the x-ranges of the
    runs of stripes beside it, where a table may be (a prose column to the
    right, to the left or in the middle, as on a cover with a highlights
    column, a text column and a sidebar); otherwise none."""
    x0, y0, x1, y1 = candidate.bbox
    inside = [f for f in fragments if y0 - 1 <= center(f.bbox)[1] <= y1 + 1 and x0 - 1 <= center(f.bbox)[0] <= x1 + 1]
    if len(inside) < 4:
        return []
    gutters = free_intervals(((f.bbox[0], f.bbox[2]) for f in inside), x0, x1, settings.min_gutter)
    edges = [x0, *(v for g in gutters for v in g), x1]
    stripes = [(edges[k], edges[k + 1]) for k in range(0, len(edges), 2)]
    stripe_frags = [[f for f in inside if f.bbox[0] >= a - 0.5 and f.bbox[2] <= b + 0.5] for a, b in stripes]
    # an inner stripe must be a real column of text (the lines of a verbal
    # formula's fraction, centred between two sides, are not)
    prose = [
        is_prose_side(frags) and (k in (0, len(stripes) - 1) or len(frags) >= PROSE_MIDDLE_LINES)
        for k, frags in enumerate(stripe_frags)
    ]
    if not any(prose) or all(prose):
        return []
    sides: list[tuple[float, float]] = []
    run: list[tuple[float, float]] = []
    for stripe, is_prose in zip(stripes + [(x1, x1)], prose + [True]):
        if is_prose:
            if run:
                sides.append((run[0][0], run[-1][1]))
            run = []
        else:
            run.append(stripe)
    return sides


def _confined(side: tuple[float, float], fragments: list[Fragment], settings: PdfSettings, body_size: float, drawings: Drawings) -> list[BlockCandidate]:
    lo, hi = side
    own = [f for f in fragments if f.bbox[0] >= lo - 0.5 and f.bbox[2] <= hi + 0.5]
    if len(own) >= len(fragments):
        return []
    return find_whitespace_tables(own, settings, body_size, drawings)
