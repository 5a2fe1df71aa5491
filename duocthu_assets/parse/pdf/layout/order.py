"""Reading order of one page.

Reading order is a recursive XY-cut over the page's items (text fragments and
lifted blocks, which move as one box): cut the page into horizontal slabs at
whitespace, group consecutive slabs that share a column structure, and split
a group into columns at a gutter of running text (:mod:`.columns`). Each
single-column region is a leaf; borderless tables are looked for in the
leaves, where a two-column page cannot pass for a two-column table.
"""

from __future__ import annotations

import dataclasses
import re

from ....model import BlockKind
from ..blocks.candidates import BlockCandidate, Drawings, inside_box
from ..blocks.borderless import find_whitespace_tables
from ..blocks.find import join_stacked
from ..geometry import center, contains_point, union
from ..records import Fragment, line_extent
from ..read.words import is_rtl
from ....settings.pdf import PdfSettings
from .columns import common_gutter, prose_gutter, ruled_cut, side_by_side
from .items import Item, Leaf


def _shrunk(item: Item) -> tuple[float, float]:
    y0, y1 = item.bbox[1], item.bbox[3]
    if item.fragment is not None:
        d = min(0.2 * (y1 - y0), 2.0)
        return y0 + d, y1 - d
    return y0, y1


def horizontal_slabs(items: list[Item]) -> list[list[Item]]:
    """Items cut into horizontal bands at whitespace running across them all."""
    slabs: list[list[Item]] = []
    bottom = float("-inf")
    for item in sorted(items, key=lambda i: (_shrunk(i)[0], i.bbox[0])):
        top, low = _shrunk(item)
        if slabs and top < bottom:
            slabs[-1].append(item)
            bottom = max(bottom, low)
        else:
            slabs.append([item])
            bottom = low
    return slabs


def group_slabs(slabs: list[list[Item]], settings: PdfSettings) -> list[tuple[list[Item], tuple[float, float] | None]]:
    """Consecutive slabs with the same column structure, merged, each group
    with its gutter (None for a single column): a slab joins a two-column
    group when it keeps clear of the gutter, and a single-column group when
    it has no running-text gutter of its own."""
    groups: list[tuple[list[Item], tuple[float, float] | None]] = []
    for slab in slabs:
        own = prose_gutter(slab, settings, 2)
        if not groups:
            groups.append((list(slab), own))
            continue
        items, gutter = groups[-1]
        if gutter is not None:
            common = common_gutter(items + slab, gutter, settings)
            if common is not None:
                groups[-1] = (items + slab, common)
                continue
        if gutter is None:
            joined = items + slab
            g = prose_gutter(joined, settings, settings.column_min_lines)
            if g is not None:
                groups[-1] = (joined, g)
                continue
            if own is None:
                groups[-1] = (joined, None)
                continue
        groups.append((list(slab), own))
    return _side_by_side_joined(groups, settings)


def _side_by_side_joined(groups: list[tuple[list[Item], tuple[float, float] | None]], settings: PdfSettings) -> list[tuple[list[Item], tuple[float, float] | None]]:
    """``groups`` with a single-column group that opens a page's columns
    joined to them when the columns' gutter runs clear through it and it is
    two things side by side (:func:`~.columns.side_by_side`): two tables atop
    the two columns are not one table across the gutter."""
    out: list[tuple[list[Item], tuple[float, float] | None]] = []
    for items, gutter in groups:
        if gutter is not None and out and out[-1][1] is None:
            before = out[-1][0]
            common = common_gutter(before + items, gutter, settings)
            if common is not None and side_by_side(before, common):
                out[-1] = (before + items, common)
                continue
        out.append((items, gutter))
    return out


def order_page(fragments: list[Fragment], blocks: list[BlockCandidate], settings: PdfSettings, body_size: float, drawings: Drawings = Drawings()) -> list[Leaf]:
    """The page's single-column regions in reading order, borderless tables
    found in each."""
    items = [Item(f.bbox, fragment=f) for f in fragments] + [Item(b.bbox, block=b) for b in blocks]
    if not items:
        return []
    if drawings.vertical:  # a lifted table's own rules divide nothing left on the page
        loose = tuple(r for r in drawings.vertical if not any(inside_box(r.bbox, b.bbox) for b in blocks))
        drawings = dataclasses.replace(drawings, vertical=loose)
    return _order(items, settings, body_size, 0, drawings)


def _split(items: list[Item], gutter: tuple[float, float]) -> tuple[list[Item], list[Item]]:
    a, _ = gutter
    left = [i for i in items if i.bbox[2] <= a + 0.5]
    right = [i for i in items if i.bbox[2] > a + 0.5]
    return left, right


def _mostly_rtl(items: list[Item]) -> bool:
    frags = [i.fragment for i in items if i.fragment is not None]
    chars = sum(len(f.text) for f in frags)
    return chars > 0 and sum(len(f.text) for f in frags if is_rtl(f)) > chars / 2


def _columns_in_reading_order(left: list[Item], right: list[Item]) -> tuple[list[Item], list[Item]]:
    """Left column first, or right column first on a right-to-left page."""
    return (right, left) if _mostly_rtl(left + right) else (left, right)


def _order(items: list[Item], settings: PdfSettings, body_size: float, depth: int, drawings: Drawings) -> list[Leaf]:
    if depth > 40 or len(items) < 2:
        return _with_asides(column_leaf(items, settings, body_size, drawings), body_size)
    cut = ruled_cut(items, drawings.vertical, settings.column_min_words) if drawings.vertical else None
    if cut is not None:
        above, left, right, below = cut
        first, second = _columns_in_reading_order(left, right)
        return [leaf for part in (above, first, second, below) if part for leaf in _order(part, settings, body_size, depth + 1, drawings)]
    groups = group_slabs(horizontal_slabs(items), settings)
    if len(groups) == 1:
        group, gutter = groups[0]
        if gutter is None:
            gutter = prose_gutter(items, settings, settings.column_min_lines)
        if gutter is None:
            return _with_asides(column_leaf(items, settings, body_size, drawings), body_size)
        first, second = _columns_in_reading_order(*_split(items, gutter))
        return _order(first, settings, body_size, depth + 1, drawings) + _order(second, settings, body_size, depth + 1, drawings)
    out: list[Leaf] = []
    for group, gutter in groups:
        if gutter is not None:
            first, second = _columns_in_reading_order(*_split(group, gutter))
            out += _order(first, settings, body_size, depth + 1, drawings) + _order(second, settings, body_size, depth + 1, drawings)
        else:
            out += _order(group, settings, body_size, depth + 1, drawings)
    return out


def may_hold_borderless_table(frags: list[Fragment], settings: PdfSettings) -> bool:
    """Cheap gate: enough rows of two or more fragments side by side."""
    if len(frags) < settings.borderless_min_rows:
        return False
    lines: dict[int, int] = {}
    for f in frags:
        key = round((f.bbox[1] + f.bbox[3]) / 4)  # 2-point buckets of the vertical centre
        lines[key] = lines.get(key, 0) + 1
    return sum(1 for n in lines.values() if n >= 2) >= settings.borderless_min_rows


ASIDE_LINE_WORDS = 5  # a fragment of this many words is a line of running text
ASIDE_MIN_LINES = 2  # ... and this many of them around a fragment give the column's right edge there
ASIDE_REACH_EM = 1.2  # "around": over or under it by at most this many ems (its own row and the lines next to it)
ASIDE_GAP_EM = 1.5  # a fragment starting this far (ems) past that edge stands beside the column
ASIDE_MAX_WORDS = 1  # ... and holds at most this many words: a figure's tick label or legend entry (a line of a formula set in words, or of a signature block, holds more)


def _with_asides(leaf: Leaf, body_size: float) -> list[Leaf]:
    """The leaf, and after it the short fragments that stand wholly past the
    right edge of the running text around them: a figure's labels beside a
    column in rows where no gutter was found (a plot's axis ticks) are read
    after the column, as printed, never inside its sentences."""
    frags = [i.fragment for i in leaf.items if i.fragment is not None]
    running = [f for f in frags if len(f.words) >= ASIDE_LINE_WORDS]
    if len(running) < ASIDE_MIN_LINES or _mostly_rtl(list(leaf.items)):
        return [leaf]
    reach = ASIDE_REACH_EM * body_size
    aside = []
    for item in leaf.items:
        f = item.fragment
        if f is None or f in running or sum(1 for w in f.words if _LETTERS.search(w.text)) > ASIDE_MAX_WORDS:
            continue
        near = [g for g in frags if g.bbox[1] < f.bbox[3] + reach and g.bbox[3] > f.bbox[1] - reach]
        around = [r.bbox[2] for r in near if r in running]
        if len(around) < ASIDE_MIN_LINES or f.bbox[0] < max(around) + ASIDE_GAP_EM * body_size:
            continue
        x0, x1 = max(around), f.bbox[0]
        # a gutter between, not a justified line's wide space: nothing around crosses it but
        # what stands past the edge itself (the other labels of the figure)
        if not any(g.bbox[0] < x1 - 1 and g.bbox[2] > x0 + 1 and g.bbox[0] < x0 + ASIDE_GAP_EM * body_size for g in near):
            aside.append(item)
    if not aside:
        return [leaf]
    main = [i for i in leaf.items if not any(i is a for a in aside)]
    return [Leaf(union(i.bbox for i in main), tuple(main), leaf.scanned), Leaf(union(i.bbox for i in aside), tuple(aside))]


_LETTERS = re.compile(r"[^\W\d_]{2}")


def column_leaf(items: list[Item], settings: PdfSettings, body_size: float, drawings: Drawings = Drawings()) -> Leaf:
    frags = [i.fragment for i in items if i.fragment is not None]
    scanned = may_hold_borderless_table(frags, settings)
    tables = find_whitespace_tables(frags, settings, body_size, drawings) if scanned else []
    if tables:
        tables = _absorb_formulas(tables, [i.block for i in items if i.block is not None])
        kept = [
            i
            for i in items
            if not any(contains_point(t.bbox, *center(i.bbox), pad=1.0) for t in tables)
        ]
        others = [i.block for i in kept if i.block is not None]
        rest = [i for i in kept if i.block is None]
        blocks = join_stacked(others + tables, [i.fragment for i in rest if i.fragment is not None], body_size)
        items = rest + [Item(b.bbox, block=b) for b in blocks]
    ordered = order_lines(items)
    bbox = union(i.bbox for i in ordered) if ordered else (0.0, 0.0, 0.0, 0.0)
    return Leaf(bbox, tuple(ordered), scanned)


def _absorb_formulas(tables: list[BlockCandidate], blocks: list[BlockCandidate]) -> list[BlockCandidate]:
    """A "fraction" found inside a borderless table (a header over a rule
    over column headings) is part of the table."""
    out = []
    for t in tables:
        box = t.bbox
        for b in blocks:
            if b.kind is BlockKind.FORMULA and contains_point(box, *center(b.bbox), pad=2.0):
                box = union([box, b.bbox])
        out.append(t if box == t.bbox else BlockCandidate(t.kind, t.shape, box, t.finder))
    return out


def order_lines(items: list[Item]) -> list[Item]:
    """Top to bottom; items sharing a line (half their height overlapping)
    left to right."""
    rows: list[list[Item]] = []
    span: tuple[float, float] | None = None
    for it in sorted(items, key=lambda i: (i.bbox[1], i.bbox[0])):
        top, bottom = _line_extent(it)
        if span is not None and it.block is None and rows[-1][-1].block is None:
            overlap = min(span[1], bottom) - max(span[0], top)
            if overlap >= 0.5 * min(span[1] - span[0], bottom - top):
                rows[-1].append(it)
                span = (min(span[0], top), max(span[1], bottom))
                continue
        rows.append([it])
        span = (top, bottom)
    out: list[Item] = []
    for row in rows:
        out.extend(sorted(row, key=lambda i: i.bbox[0], reverse=len(row) > 1 and _mostly_rtl(row)))
    return out


def _line_extent(item: Item) -> tuple[float, float]:
    """The top and bottom of the line an item is set on (a block: its box)."""
    return (item.bbox[1], item.bbox[3]) if item.fragment is None else line_extent(item.fragment)
