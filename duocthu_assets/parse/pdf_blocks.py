"""Find the tables and 2D formulas on a page, so they can be lifted out of the
prose and quarantined (ADR 0006).

Only regions a page's drawings or text layout make possible are examined:

- ``rules`` → :func:`merge_rules` → :func:`rules_to_grids` → grid tables
  (ruled, with merged header cells or not);
- horizontal rules of the same extent stacked on top of each other →
  :func:`rule_stacks` → tables with rules only above and below (booktabs);
- short horizontal rules with text centred above and below →
  :func:`find_fractions` → ``formula_2d``;
- rows of several text fragments whose gaps line up →
  :func:`find_whitespace_tables` → borderless tables (run per column region
  by the layout, so a two-column page is not taken for a two-column table).

Every candidate must then show tabular evidence (:func:`tabular_evidence`):
at least two columns and two rows of text, and little prose, so a framed
paragraph, an underlined line or a page of prose with numbers is not a table.
The functions are pure: fragments and rules in, candidates out.
"""

from __future__ import annotations

import bisect
import re
import statistics
from dataclasses import dataclass

from ..model import BlockKind, BlockShape
from .pdf_geometry import BBox, center, contains_point, union
from .pdf_page import Fragment, Rule, make_fragment
from .pdf_settings import PdfSettings

_BAR_TEXT = re.compile(r"^[\u2500\u2501\u2014\u2013_\-=]{3,}$")
_CAPTION = re.compile(r"^(table|tab\.|bảng|exhibit|figure|fig\.|hình|biểu đồ|sơ đồ|chart)\b", re.IGNORECASE)
_NUMERIC = re.compile(r"^[\s\d.,:;%/()±<>≤≥=+\-–—xX*]+$")


@dataclass(frozen=True)
class BlockCandidate:
    kind: BlockKind
    shape: BlockShape
    bbox: BBox
    finder: str  # "grid" | "rules" | "whitespace" | "fraction"


@dataclass(frozen=True)
class Grid:
    """A connected set of horizontal and vertical rules."""

    bbox: BBox
    horizontal: tuple[Rule, ...]
    vertical: tuple[Rule, ...]


@dataclass(frozen=True)
class Drawings:
    """What of a page's vector graphics the text-only finders need."""

    graphics: tuple[BBox, ...] = ()  # paths with curves or slanted lines
    horizontal: tuple[Rule, ...] = ()  # merged horizontal rules


@dataclass(frozen=True)
class Evidence:
    rows: int
    cols: int
    merged_header: bool


# --- rules --------------------------------------------------------------------


def merge_rules(rules: list[Rule] | tuple[Rule, ...], tol: float) -> tuple[list[Rule], list[Rule]]:
    """Snap rules within ``tol`` of one another onto one line and join the
    collinear pieces that touch; return (horizontal, vertical)."""
    return _merge_axis([r for r in rules if r.horizontal], tol, True), _merge_axis([r for r in rules if not r.horizontal], tol, False)


def _merge_axis(rules: list[Rule], tol: float, horizontal: bool) -> list[Rule]:
    if not rules:
        return []
    rules = sorted(rules, key=lambda r: r.pos)
    clusters: list[list[Rule]] = [[rules[0]]]
    for r in rules[1:]:
        if r.pos - clusters[-1][-1].pos <= tol:
            clusters[-1].append(r)
        else:
            clusters.append([r])
    merged: list[Rule] = []
    for cluster in clusters:
        pos = statistics.fmean(r.pos for r in cluster)
        spans = sorted(((r.x0, r.x1) if horizontal else (r.y0, r.y1)) for r in cluster)
        start, end = spans[0]
        for a, b in spans[1:]:
            if a <= end + tol:
                end = max(end, b)
            else:
                merged.append(Rule(start, pos, end, pos, True) if horizontal else Rule(pos, start, pos, end, False))
                start, end = a, b
        merged.append(Rule(start, pos, end, pos, True) if horizontal else Rule(pos, start, pos, end, False))
    return merged


def rules_to_grids(horizontal: list[Rule], vertical: list[Rule], tol: float) -> tuple[list[Grid], list[Rule]]:
    """Connected components of crossing/touching rules that hold both
    directions, and the horizontal rules left over (touching no vertical)."""
    parent = list(range(len(horizontal) + len(vertical)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    v_sorted = sorted(range(len(vertical)), key=lambda j: vertical[j].pos)
    v_pos = [vertical[j].pos for j in v_sorted]
    touched = [False] * len(horizontal)
    for i, h in enumerate(horizontal):
        lo = bisect.bisect_left(v_pos, h.x0 - tol)
        hi = bisect.bisect_right(v_pos, h.x1 + tol)
        for k in range(lo, hi):
            j = v_sorted[k]
            v = vertical[j]
            if v.y0 - tol <= h.pos <= v.y1 + tol:
                join(i, len(horizontal) + j)
                touched[i] = True
    # vertical rules sharing an x and touching end to end were merged already;
    # parallel verticals connect only through horizontals.
    groups: dict[int, tuple[list[Rule], list[Rule]]] = {}
    for i, h in enumerate(horizontal):
        if touched[i]:
            groups.setdefault(find(i), ([], []))[0].append(h)
    for j, v in enumerate(vertical):
        root = find(len(horizontal) + j)
        if root in groups:
            groups[root][1].append(v)
    grids = [
        Grid(union(r.bbox for r in hs + vs), tuple(hs), tuple(vs))
        for hs, vs in groups.values()
        if hs and vs
    ]
    leftover = [h for i, h in enumerate(horizontal) if not touched[i]]
    return grids, leftover


def rule_stacks(horizontal: list[Rule], tol: float) -> list[list[Rule]]:
    """Horizontal rules sharing their left and right ends (within ``tol``),
    two or more, top to bottom: the rules of a booktabs-style table."""
    stacks: list[list[Rule]] = []
    for r in sorted(horizontal, key=lambda r: (r.pos, r.x0)):
        for stack in stacks:
            if abs(stack[0].x0 - r.x0) <= tol and abs(stack[0].x1 - r.x1) <= tol:
                stack.append(r)
                break
        else:
            stacks.append([r])
    return [s for s in stacks if len(s) >= 2]


# --- rows, columns and tabular evidence -----------------------------------------


def fragments_in(bbox: BBox, fragments, pad: float = 1.0) -> list[Fragment]:
    return [f for f in fragments if contains_point(bbox, *center(f.bbox), pad=pad)]


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
        if not _ruled_cells_tabular(inside, v_cuts, h_cuts):
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
        merged = _header_crosses(rows, seps)
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


def _header_crosses(rows: list[list[Fragment]], seps: list[tuple[float, float]]) -> bool:
    """A fragment in the first rows spanning a column separator (a header
    cell over several columns)."""
    for row in rows[:3]:
        for f in row:
            for a, b in seps:
                if f.bbox[0] < a - 1 and f.bbox[2] > b + 1:
                    return True
    return False


# --- grid and rule-bounded tables ------------------------------------------------

def is_figure(bbox: BBox, graphics: tuple[BBox, ...] | list[BBox], settings: PdfSettings) -> bool:
    """Whether curves or slanted lines (a plot, a drawing) fill the region: the
    aligned tick labels of a row of charts are not a table."""
    inside = 0
    d = settings.figure_near
    near = (bbox[0] - d, bbox[1] - d, bbox[2] + d, bbox[3] + d)
    for g in graphics:
        if g[0] < near[2] and g[2] > near[0] and g[1] < near[3] and g[3] > near[1]:
            inside += 1
            if inside >= settings.figure_min_graphics:
                return True
    return False


def trim_grid(grid: Grid, fragments: list[Fragment], tol: float) -> BBox:
    """The grid's bbox without bands above the first or below the last
    interior vertical rule that hold only one text fragment per row: a frame
    around a table, its title and its notes is not all table."""
    x0, y0, x1, y1 = grid.bbox
    interior = [v for v in grid.vertical if x0 + tol < v.pos < x1 - tol]
    if not interior:
        return grid.bbox
    ys = _positions(grid.horizontal, tol)
    v_top = min(v.y0 for v in interior)
    v_bottom = max(v.y1 for v in interior)
    top = max([y for y in ys if y <= v_top + tol] or [y0])
    bottom = min([y for y in ys if y >= v_bottom - tol] or [y1])
    if top > y0 + tol and _single_fragment_rows(fragments_in((x0, y0, x1, top), fragments)):
        y0 = top
    if bottom < y1 - tol and _single_fragment_rows(fragments_in((x0, bottom, x1, y1), fragments)):
        y1 = bottom
    return (x0, y0, x1, y1)


def _single_fragment_rows(frags: list[Fragment]) -> bool:
    return all(len(r) == 1 for r in text_rows(frags))


def _positions(rules: tuple[Rule, ...] | list[Rule], tol: float) -> list[float]:
    out: list[float] = []
    for p in sorted(r.pos for r in rules):
        if not out or p - out[-1] > tol:
            out.append(p)
    return out


def grid_merged_header(grid: Grid, tol: float) -> bool:
    """Merged cells: an interior vertical rule that stops short of the top,
    or an interior horizontal rule that stops short of a side."""
    x0, y0, x1, y1 = grid.bbox
    width, height = x1 - x0, y1 - y0
    for v in grid.vertical:
        if x0 + tol < v.pos < x1 - tol and v.y0 > y0 + 2 * tol and v.y0 < y0 + 0.6 * height:
            # is there another piece of rule at this x reaching the top?
            if not any(abs(o.pos - v.pos) <= tol and o.y0 <= y0 + 2 * tol for o in grid.vertical):
                return True
    for h in grid.horizontal:
        if y0 + tol < h.pos < y1 - tol and (h.x1 - h.x0) < width - 2 * tol and h.pos < y0 + 0.6 * height:
            if not any(abs(o.pos - h.pos) <= tol and o.x0 <= x0 + 2 * tol and o.x1 >= x1 - 2 * tol for o in grid.horizontal):
                return True
    return False


def find_grid_tables(grids: list[Grid], fragments: list[Fragment], settings: PdfSettings, body_size: float, graphics=()) -> list[BlockCandidate]:
    tol = settings.snap_tolerance
    out: list[BlockCandidate] = []
    for grid in sorted(grids, key=lambda g: (g.bbox[1], g.bbox[0])):
        x0, y0, x1, y1 = grid.bbox
        if (x1 - x0) < 20 or (y1 - y0) < 8 or is_figure(grid.bbox, graphics, settings):
            continue
        bbox = trim_grid(grid, fragments, tol)
        xs = _positions(grid.vertical, tol)
        ys = _positions(grid.horizontal, tol)
        v_cuts = [x for x in xs if x0 + tol < x < x1 - tol]
        h_cuts = [y for y in ys if bbox[1] + tol < y < bbox[3] - tol]
        closed = len(xs) >= 2 and len(ys) >= 2  # not two crossing axes of a plot
        evidence = tabular_evidence(fragments, bbox, v_cuts, h_cuts, settings, settings.table_min_rows, body_size, closed)
        if evidence is None:
            continue
        merged = grid_merged_header(grid, tol) or evidence.merged_header
        shape = BlockShape.MULTI_LEVEL_OR_MERGED_HEADER if merged else BlockShape.SIMPLE_TABLE
        out.append(BlockCandidate(BlockKind.TABLE, shape, bbox, "grid"))
    return _drop_nested(out)


def find_rule_bounded_tables(stacks: list[list[Rule]], partial: list[Rule], fragments: list[Fragment], settings: PdfSettings, body_size: float, graphics=()) -> list[BlockCandidate]:
    """Tables drawn with horizontal rules only (above, below, maybe under the
    header): the largest window of a stack whose text is tabular."""
    out: list[BlockCandidate] = []
    for stack in stacks:
        k = len(stack)
        used: list[tuple[int, int]] = []
        for size in range(k, 1, -1):
            for i in range(0, k - size + 1):
                j = i + size - 1
                if any(not (j < a or i > b) for a, b in used):
                    continue
                top, bottom = stack[i], stack[j]
                bbox = (min(top.x0, bottom.x0), top.pos, max(top.x1, bottom.x1), bottom.pos)
                if is_figure(bbox, graphics, settings):
                    continue
                evidence = tabular_evidence(fragments, bbox, [], [], settings, settings.table_min_rows, body_size)
                if evidence is None:
                    continue
                merged = evidence.merged_header or any(
                    bbox[0] - 1 <= r.x0 and r.x1 <= bbox[2] + 1 and (r.x1 - r.x0) < 0.9 * (bbox[2] - bbox[0]) and bbox[1] < r.pos < bbox[3]
                    for r in partial
                )
                shape = BlockShape.MULTI_LEVEL_OR_MERGED_HEADER if merged else BlockShape.SIMPLE_TABLE
                out.append(BlockCandidate(BlockKind.TABLE, shape, bbox, "rules"))
                used.append((i, j))
    return _drop_nested(out)


def _drop_nested(cands: list[BlockCandidate]) -> list[BlockCandidate]:
    """Of candidates nested in one another keep the inner ones: a ruled frame
    around a page or a section holds tables, it is not one."""
    keep = [c for c in cands if not any(o is not c and _inside(o.bbox, c.bbox) and o.bbox != c.bbox for o in cands)]
    unique: list[BlockCandidate] = []
    for c in keep:
        if not any(_inside(c.bbox, k.bbox) for k in unique):
            unique.append(c)
    return sorted(unique, key=lambda c: (c.bbox[1], c.bbox[0]))


def _inside(a: BBox, b: BBox, pad: float = 2.0) -> bool:
    return a[0] >= b[0] - pad and a[1] >= b[1] - pad and a[2] <= b[2] + pad and a[3] <= b[3] + pad


# --- borderless tables ------------------------------------------------------------


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
        if candidate is not None:
            out.append(candidate)
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
    merged = _header_crosses(rows[first : end + 1], seps) or _partial_header_rule(bbox, horizontal)
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


# --- 2D formulas ---------------------------------------------------------------------


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
    merged = _merge_overlapping(found)
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


def _merge_overlapping(boxes: list[BBox]) -> list[BBox]:
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        out: list[BBox] = []
        for b in boxes:
            for i, o in enumerate(out):
                if min(o[2], b[2]) - max(o[0], b[0]) > -1 and min(o[3], b[3]) - max(o[1], b[1]) > -1:
                    out[i] = union([o, b])
                    merged = True
                    break
            else:
                out.append(b)
        boxes = out
    return sorted(boxes, key=lambda b: (b[1], b[0]))


# --- one page ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleBlocks:
    """What the rule-based finders found on a page, and the intermediate
    steps (kept for debugging, as pdfplumber's TableFinder does)."""

    horizontal: tuple[Rule, ...]
    vertical: tuple[Rule, ...]
    grids: tuple[Grid, ...]
    stacks: tuple[tuple[Rule, ...], ...]
    blocks: tuple[BlockCandidate, ...]


def find_rule_blocks(rules: list[Rule], fragments: list[Fragment], settings: PdfSettings, body_size: float, graphics=()) -> RuleBlocks:
    """Grid tables, rule-bounded tables and stacked fractions of one page."""
    if not rules:
        # fractions typed with a bar of ─── or ___ need no drawing
        typed = find_fractions([], fragments, settings) if bar_fragments(fragments) else []
        return RuleBlocks((), (), (), (), tuple(typed))
    tol = settings.snap_tolerance
    horizontal, vertical = merge_rules(rules, tol)
    grids, loose = rules_to_grids(horizontal, vertical, tol)
    blocks = find_grid_tables(grids, fragments, settings, body_size, graphics)
    remaining = _outside(fragments, blocks)
    loose = [r for r in loose if not any(_inside(r.bbox, b.bbox) for b in blocks)]
    stacks = rule_stacks(loose, 2 * tol + 2)
    in_stacks = {id(r) for s in stacks for r in s}
    partial = [r for r in loose if id(r) not in in_stacks]
    ruled = find_rule_bounded_tables(stacks, partial, remaining, settings, body_size, graphics)
    blocks = blocks + ruled
    remaining = _outside(remaining, ruled)
    used = [r for r in loose if any(_inside(r.bbox, b.bbox) for b in ruled)]
    bars = [r for r in loose if r not in used and (r.x1 - r.x0) < 0.95 * _max_width(fragments)]
    blocks = blocks + find_fractions(bars, remaining, settings)
    return RuleBlocks(tuple(horizontal), tuple(vertical), tuple(grids), tuple(tuple(s) for s in stacks), tuple(sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))))


def _max_width(fragments: list[Fragment]) -> float:
    if not fragments:
        return 0.0
    return max(f.bbox[2] for f in fragments) - min(f.bbox[0] for f in fragments)


def _outside(fragments: list[Fragment], blocks: list[BlockCandidate]) -> list[Fragment]:
    return [f for f in fragments if not any(contains_point(b.bbox, *center(f.bbox), pad=1.0) for b in blocks)]


def join_stacked(blocks: list[BlockCandidate], fragments: list[Fragment], body_size: float) -> list[BlockCandidate]:
    """A borderless table right under a rule-bounded block of the same width,
    nothing between them, is one table: its header was ruled, its body not."""
    blocks = sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))
    out: list[BlockCandidate] = []
    for b in blocks:
        if out and b.kind is BlockKind.TABLE and out[-1].kind is BlockKind.TABLE and "whitespace" in (b.finder, out[-1].finder):
            a = out[-1]
            gap = b.bbox[1] - a.bbox[3]
            overlap = min(a.bbox[2], b.bbox[2]) - max(a.bbox[0], b.bbox[0])
            narrower = min(a.bbox[2] - a.bbox[0], b.bbox[2] - b.bbox[0])
            between = (min(a.bbox[0], b.bbox[0]), a.bbox[3], max(a.bbox[2], b.bbox[2]), b.bbox[1])
            if -2 <= gap <= 2.5 * body_size and overlap >= 0.7 * narrower and not fragments_in(between, fragments, pad=-1.0):
                merged = BlockShape.MULTI_LEVEL_OR_MERGED_HEADER in (a.shape, b.shape)
                out[-1] = BlockCandidate(
                    BlockKind.TABLE,
                    BlockShape.MULTI_LEVEL_OR_MERGED_HEADER if merged else BlockShape.SIMPLE_TABLE,
                    union([a.bbox, b.bbox]),
                    a.finder + "+" + b.finder,
                )
                continue
        out.append(b)
    return out
