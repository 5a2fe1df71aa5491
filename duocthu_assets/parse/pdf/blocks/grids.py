"""Ruled grids: ``rules`` → :func:`..read.rules.merge_rules` → :func:`rules_to_grids` →
:func:`find_grid_tables` (ruled tables, with merged header cells or not), and
:func:`rule_stacks` for the horizontal rules that touch no vertical one."""

from __future__ import annotations

import bisect

from ....model import BlockKind, BlockShape
from .candidates import BlockCandidate, drop_nested
from .not_tables import is_figure
from ..geometry import union
from ..records import Fragment, Rule, make_fragment
from ....settings.pdf import PdfSettings
from ..records import fragments_in
from .scoring import tabular_evidence, text_rows
from dataclasses import dataclass
from ..geometry import BBox
from ..read.rules import merge_axis


@dataclass(frozen=True)
class Grid:
    """A connected set of horizontal and vertical rules."""

    bbox: BBox
    horizontal: tuple[Rule, ...]
    vertical: tuple[Rule, ...]


RULE_GAP_REACH = 4.5  # points: booktabs leaves about 2-4 pt between a column rule and the rules over and under it


def bridge_rule_gaps(horizontal: list[Rule], vertical: list[Rule], tol: float, reach: float = RULE_GAP_REACH) -> list[Rule]:
    """The vertical rules, each end that stops short of a horizontal rule
    running across it (more than ``tol``, at most ``reach`` away) drawn on to
    it, and the pieces then touching joined: a LaTeX table with booktabs
    rules and ``|`` column rules leaves a gap at every rule, and without the
    bridge each row is a grid of its own (the table cut in two, its header
    row left in prose). Pure."""
    if not horizontal or not vertical:
        return vertical
    rows = sorted(horizontal, key=lambda h: h.pos)
    at = [h.pos for h in rows]

    def across(x: float, lo: float, hi: float) -> list[float]:
        return [h.pos for h in rows[bisect.bisect_left(at, lo) : bisect.bisect_right(at, hi)] if h.x0 - tol <= x <= h.x1 + tol]

    out = []
    for v in vertical:
        over = [y for y in across(v.pos, v.y0 - reach, v.y0) if v.y0 - y > tol]
        under = [y for y in across(v.pos, v.y1, v.y1 + reach) if y - v.y1 > tol]
        out.append(Rule(v.pos, max(over, default=v.y0), v.pos, min(under, default=v.y1), False) if over or under else v)
    return merge_axis(out, tol, False) if out != vertical else vertical


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


RULE_IN_GAP = 1.0  # points: a column rule this far into a word's box still passes between the words


def cut_at_rules(fragments: list[Fragment] | tuple[Fragment, ...], vertical: list[Rule] | tuple[Rule, ...]) -> list[Fragment]:
    """A table's lines cut where a drawn column rule passes between two of
    their words: cells whose text stands closer than a word gap apart are
    one line to MuPDF and to the fragment gap (a Chromium print's bordered
    cells, 2 pt apart: ``0,375 g mỗi lần`` and ``12 giờ`` read as one cell),
    and the rule is what tells them apart. A rule passes a line when it runs
    through the line's middle; the words keep their identity."""
    out: list[Fragment] = []
    for f in fragments:
        middle = (f.bbox[1] + f.bbox[3]) / 2
        xs = [v.x0 for v in vertical if v.y0 <= middle <= v.y1 and f.bbox[0] < v.x0 < f.bbox[2]]
        if not xs or f.joined or len(f.words) < 2:
            out.append(f)
            continue
        start = 0
        for k in range(1, len(f.words)):
            a, b = f.words[k - 1], f.words[k]
            left, right = (a, b) if a.bbox[0] <= b.bbox[0] else (b, a)
            if any(left.bbox[2] - RULE_IN_GAP <= x <= right.bbox[0] + RULE_IN_GAP for x in xs):
                out.append(make_fragment(f.words[start:k], f.line_id))
                start = k
        out.append(f if start == 0 else make_fragment(f.words[start:], f.line_id))
    return out


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


def trim_grid(grid: Grid, fragments: list[Fragment], tol: float) -> BBox:
    """The grid's bbox without bands above the first or below the last
    interior vertical rule that hold only one text fragment per row: a frame
    around a table, its title and its notes is not all table. A band above
    holding a single line (a title cell spanning the columns) stays: it is
    the table's title row."""
    x0, y0, x1, y1 = grid.bbox
    interior = [v for v in grid.vertical if x0 + tol < v.pos < x1 - tol]
    if not interior:
        return grid.bbox
    ys = _positions(grid.horizontal, tol)
    v_top = min(v.y0 for v in interior)
    v_bottom = max(v.y1 for v in interior)
    top = max([y for y in ys if y <= v_top + tol] or [y0])
    bottom = min([y for y in ys if y >= v_bottom - tol] or [y1])
    head = fragments_in((x0, y0, x1, top), fragments) if top > y0 + tol else []
    if head and _single_fragment_rows(head) and len(text_rows(head)) >= 2:
        y0 = top  # a title and a subtitle (or notes) in the frame: not the table's
    # one line alone above the columns, inside the frame, is the table's
    # spanning title row: kept (its crop and text would cut it otherwise)
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
    return drop_nested(out)

