"""Reading order and paragraphs of one page.

Reading order is a recursive XY-cut over the page's items (text fragments and
lifted blocks, which move as one box): cut the page into horizontal slabs at
whitespace, group consecutive slabs that share a column structure, and split
a group into columns at a gutter whose both sides carry running text (so the
cells of a table are never taken for columns; a column of short bold side
headings off the text's baselines counts as a side). Each single-column region is a
leaf; borderless tables are looked for in the leaves, where a two-column page
cannot pass for a two-column table.

Paragraphs are built from a leaf's lines: a paragraph ends at extra vertical
space, a change of type size or weight, a first-line indent after a finished
sentence, a list marker, a lifted block, or a line broken although its next
word would have fitted.
"""

from __future__ import annotations

import bisect

import dataclasses
import re
import statistics
from dataclasses import dataclass

from ....model import BlockKind
from ..blocks.candidates import BlockCandidate, Drawings, inside_box
from ..blocks.borderless import find_whitespace_tables
from ..blocks.find import join_stacked
from ..geometry import BBox, center, contains_point, free_intervals, union
from ..records import LONE_OPERATORS
from ..records import Fragment, line_extent
from ..read.words import is_rtl
from ....settings.pdf import PdfSettings

LIST_MARKER = re.compile(r"^([•·●○◦▪▫■□‣⁃∙\-–—*+]\s|\(?\d{1,3}[.)]\s|\(?[a-zđ][.)]\s|\(?[ivx]{1,4}[.)]\s)", re.IGNORECASE)
_TERMINAL = re.compile(r"[.!?:;…][\"'”’»)\]]*$")


@dataclass(frozen=True)
class Item:
    bbox: BBox
    fragment: Fragment | None = None
    block: BlockCandidate | None = None


@dataclass(frozen=True)
class Leaf:
    """A single-column region of a page, its items in reading order."""

    bbox: BBox
    items: tuple[Item, ...]
    scanned: bool = False  # the borderless-table finder ran here (its rows could hold a table)


@dataclass(frozen=True)
class Para:
    """A paragraph (or heading, or list item: decided later) of one page."""

    page_no: int
    lines: tuple[tuple[Fragment, ...], ...]
    bbox: BBox

    @property
    def fragments(self) -> tuple[Fragment, ...]:
        return tuple(f for line in self.lines for f in line)

    @property
    def text(self) -> str:
        return join_lines([" ".join(f.text for f in line) for line in self.lines])

    @property
    def size(self) -> float:
        weights: dict[float, int] = {}
        for f in self.fragments:
            for w in f.words:
                weights[round(w.size, 1)] = weights.get(round(w.size, 1), 0) + len(w.text)
        return max(weights, key=lambda s: (weights[s], s)) if weights else 0.0

    @property
    def bold(self) -> bool:
        words = [w for f in self.fragments for w in f.words]
        chars = sum(len(w.text) for w in words)
        return chars > 0 and sum(len(w.text) for w in words if w.bold) >= 0.8 * chars

    @property
    def word_count(self) -> int:
        return sum(len(f.words) for f in self.fragments)


def join_lines(lines: list[str]) -> str:
    """Join a paragraph's lines with spaces. A soft hyphen at a line end is
    dropped; a hard hyphen is kept and the next line joined to it ("beta-" +
    "lactam"), since removing it is only safe with a dictionary."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if not out:
            out = line
        elif out.endswith("\u00ad"):
            out = out[:-1] + line
        elif out.endswith("-") and len(out) >= 2 and out[-2].isalpha() and line[:1].islower():
            out = out + line
        else:
            out = out + " " + line
    return out.replace("\u00ad", "")


# --- XY-cut -------------------------------------------------------------------------


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


def _gutters(items: list[Item], settings: PdfSettings) -> list[tuple[float, float]]:
    if len(items) < 2:
        return []
    lo = min(i.bbox[0] for i in items)
    hi = max(i.bbox[2] for i in items)
    return free_intervals(((i.bbox[0], i.bbox[2]) for i in items), lo, hi, settings.min_gutter)


WIDE_LINE_FRAC = 0.7  # a line of running text fills most of its column
RUNNING_FRAC = 0.4  # ... and a side of running text has this share of lines of many words


def _side_is_prose(frags: list[Fragment], min_words: float) -> bool:
    """Running text: many words, and most lines long and filling the side's
    width (the cells of a table or a column of labels are short, and leave
    the gaps between columns empty)."""
    if not frags:
        return False
    x0 = min(f.bbox[0] for f in frags)
    x1 = max(f.bbox[2] for f in frags)
    width = max(x1 - x0, 1.0)
    long = sum(1 for f in frags if len(f.words) >= min_words)
    wide = sum(1 for f in frags if f.bbox[2] - f.bbox[0] >= WIDE_LINE_FRAC * width)
    return sum(len(f.words) for f in frags) >= min_words and long >= RUNNING_FRAC * len(frags) and wide >= 0.5 * len(frags)


SIDE_HEADING_MAX_WORDS = 4  # a side heading's line is short
SIDE_HEADING_MIN_LINES = 2
BASELINE_TOL = 1.5  # points: lines this close share a baseline (a table's row)


def _level_with(frags: list[Fragment], others: list[Fragment]) -> int:
    """How many of ``frags`` share a baseline with a line of ``others``
    (their baselines sorted once: a page's two sides meet here for every
    drawn vertical line)."""
    baselines = sorted(p.bbox[3] for p in others)
    level = 0
    for f in frags:
        k = bisect.bisect_left(baselines, f.bbox[3] - BASELINE_TOL)
        level += k < len(baselines) and baselines[k] <= f.bbox[3] + BASELINE_TOL
    return level


def side_headings(frags: list[Fragment], prose: list[Fragment]) -> bool:
    """A column of short bold side headings beside running text (the
    highlights of a cover page: ``Implement roles and`` / ``separation of
    duties``): every line bold and at most :data:`SIDE_HEADING_MAX_WORDS`
    words, at least :data:`SIDE_HEADING_MIN_LINES` of them, and on their
    own baselines, fewer than a third of them level with a line of the
    text beside them (a table's bold first column sits on its rows'
    baselines, and is not this). Pure."""
    if len(frags) < SIDE_HEADING_MIN_LINES or not all(f.bold and len(f.words) <= SIDE_HEADING_MAX_WORDS for f in frags):
        return False
    return _level_with(frags, prose) * 3 < len(frags)


# --- drawn column separators ----------------------------------------------------------

SEPARATOR_REACH = 3.0  # points: a drawn separator ending this close to a line's top or bottom still spans it
RUNNING_MIN_LINES = 3  # lines of running text that one side of a drawn separator must hold


def ruled_columns(left: list[Fragment], right: list[Fragment], min_words: float) -> bool:
    """The lines on the two sides of a drawn vertical line are columns of
    their own: both sides hold text, one of them running text (at least
    :data:`RUNNING_MIN_LINES` lines of ``min_words`` words), and the lines
    of the side with fewer keep off the other's baselines (fewer than half
    level with one: two columns set at their own line pitches meet by
    chance, about one line in four; the cells of a table's columns share
    their rows' baselines, so a table is never cut). Pure."""
    if not left or not right:
        return False
    if not any(sum(1 for f in side if len(f.words) >= min_words) >= RUNNING_MIN_LINES for side in (left, right)):
        return False
    fewer, more = (left, right) if len(left) <= len(right) else (right, left)
    return _level_with(fewer, more) * 2 < len(fewer)


def ruled_cut(items: list[Item], vertical, min_words: float) -> tuple[list[Item], list[Item], list[Item], list[Item]] | None:
    """The first drawn vertical line (a rule, or the edge of a filled or
    stroked box: redp5110's red sidebar) that divides the items beside it
    into two columns (:func:`ruled_columns`): (items above its band, left
    column, right column, items below), or None. Its band is the items
    lying wholly within its height; no item of the band may cross it, and
    every other item must lie wholly above or below the band (the cut is a
    horizontal cut at the band's edges, then a vertical one). Pure."""
    for r in vertical:
        band = [i for i in items if i.bbox[1] >= r.y0 - SEPARATOR_REACH and i.bbox[3] <= r.y1 + SEPARATOR_REACH]
        left = [i for i in band if i.bbox[2] <= r.pos + 0.5]
        right = [i for i in band if i.bbox[0] >= r.pos - 0.5]
        if not left or not right or len(left) + len(right) != len(band):
            continue
        top = min(i.bbox[1] for i in band)
        bottom = max(i.bbox[3] for i in band)
        rest = [i for i in items if not (i.bbox[1] >= r.y0 - SEPARATOR_REACH and i.bbox[3] <= r.y1 + SEPARATOR_REACH)]
        above = [i for i in rest if i.bbox[3] <= top]
        below = [i for i in rest if i.bbox[1] >= bottom]
        if len(above) + len(below) != len(rest):
            continue
        if ruled_columns([i.fragment for i in left if i.fragment is not None], [i.fragment for i in right if i.fragment is not None], min_words):
            return above, left, right, below
    return None


MAX_COLUMN_SPLITS = 2  # a side of a gutter may itself be this many more columns of running text (a 3- or 4-column page)


def prose_gutter(items: list[Item], settings: PdfSettings, min_lines: int, depth: int = 0) -> tuple[float, float] | None:
    """The first gutter whose two sides carry running text (a side of lifted
    blocks only is allowed beside running text), with at least
    ``min_lines`` fragments in all. A side that is itself columns of
    running text split by a gutter of their own (two columns right of the
    first of a three-column page, whose lines fill half its width) carries
    running text too, up to :data:`MAX_COLUMN_SPLITS` deep."""
    if not _may_have_prose_sides([i.fragment for i in items if i.fragment is not None], settings.column_min_words):
        return None
    for a, b in _gutters(items, settings):
        left = [i for i in items if i.bbox[2] <= a + 0.5]
        right = [i for i in items if i.bbox[0] >= b - 0.5]
        if len(left) + len(right) != len(items) or not left or not right:
            continue
        lf = [i.fragment for i in left if i.fragment is not None]
        rf = [i.fragment for i in right if i.fragment is not None]
        if len(lf) + len(rf) < min_lines:
            continue
        words = settings.column_min_words
        left_ok = (_side_is_prose(lf, words) or _columns_of_prose(left, settings, depth)) if lf else bool(rf)
        right_ok = (_side_is_prose(rf, words) or _columns_of_prose(right, settings, depth)) if rf else bool(lf)
        if not left_ok and side_headings(lf, rf):  # side headings left of running text
            running = [f for f in rf if len(f.words) >= words]
            left_ok = right_ok = len(running) >= SIDE_HEADING_MIN_LINES and not any(is_rtl(f) for f in rf)
        if left_ok and right_ok:
            return (a, b)
    return None


def _columns_of_prose(items: list[Item], settings: PdfSettings, depth: int) -> bool:
    """``items`` (one side of a gutter) are columns of running text of their
    own, each with as many lines as a column needs; never when a line of
    them is a lone operator (``Tiền thuê đất phải nộp = Diện tích … x Đơn
    giá …``, a formula set in words in a decree)."""
    lines = 2 * settings.column_min_lines
    if depth >= MAX_COLUMN_SPLITS or len(items) < lines:
        return False
    if any(i.fragment is not None and i.fragment.text.strip() in LONE_OPERATORS for i in items):
        return False
    return prose_gutter(items, settings, lines, depth + 1) is not None


def _may_have_prose_sides(frags: list[Fragment], min_words: float) -> bool:
    """Whether any split of ``frags`` could pass :func:`prose_gutter`'s
    tests: a side of running text has at least ``RUNNING_FRAC`` of its
    lines of ``min_words`` words (:func:`_side_is_prose`), so two such sides
    have that share of all the lines; side headings need two short bold
    lines beside two running lines (:func:`side_headings`), and every line
    of a side of side headings is one, among them the leftmost line and the
    lines starting within its width (they are left of any gutter that has
    a line on its left). A necessary condition, in one pass:
    :func:`group_slabs` asks again each time a slab joins a one-column
    group, and a long table's rows of short cells went through every gutter
    of the grown group each time (a seventh of ``camelot__budget.pdf``'s
    parse). Pure."""
    running = sum(1 for f in frags if len(f.words) >= min_words)
    if running >= RUNNING_FRAC * len(frags) - 1e-6:
        return True
    if running < SIDE_HEADING_MIN_LINES:
        return False

    def head(f: Fragment) -> bool:
        return f.bold and len(f.words) <= SIDE_HEADING_MAX_WORDS

    lead = min(frags, key=lambda f: f.bbox[0])
    return all(head(f) for f in frags if f.bbox[0] <= lead.bbox[2]) and sum(1 for f in frags if head(f)) >= SIDE_HEADING_MIN_LINES


def _common_gutter(items: list[Item], gutter: tuple[float, float], settings: PdfSettings) -> tuple[float, float] | None:
    """The gutter of ``items`` that overlaps ``gutter`` (the first lines of
    a column may be indented: the gutter narrows, it does not move)."""
    a, b = gutter
    for c, d in _gutters(items, settings):
        if c < b and d > a:
            return (c, d)
    return None


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
            common = _common_gutter(items + slab, gutter, settings)
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


SIDE_BY_SIDE_MAX_LEVEL = 0.5  # two things side by side: fewer of either side's lines than this share level with a line of the other


def _level_share(lines: list[Fragment], others: list[Fragment]) -> float:
    """The share of ``lines`` whose baseline is level with one of ``others``'s."""
    level = sum(1 for f in lines if any(abs(f.bbox[3] - h.bbox[3]) <= 0.3 * max(f.bbox[3] - f.bbox[1], 1.0) for h in others))
    return level / len(lines)


def side_by_side(items: list[Item], gutter: tuple[float, float]) -> bool:
    """Whether ``items``, clear of ``gutter``, are two things set side by
    side in the page's columns (two tables, a table beside a figure) rather
    than one thing across them: each side has lines, and their rows do not
    line up (a table across both columns, or a line split at the gutter,
    keeps its rows level on both sides). Pure."""
    a, b = gutter
    left = [i.fragment for i in items if i.fragment is not None and i.bbox[2] <= a + 0.5]
    right = [i.fragment for i in items if i.fragment is not None and i.bbox[0] >= b - 0.5]
    if len(left) < 2 or len(right) < 2:
        return False
    return max(_level_share(left, right), _level_share(right, left)) < SIDE_BY_SIDE_MAX_LEVEL


def _side_by_side_joined(groups: list[tuple[list[Item], tuple[float, float] | None]], settings: PdfSettings) -> list[tuple[list[Item], tuple[float, float] | None]]:
    """``groups`` with a single-column group that opens a page's columns
    joined to them when the columns' gutter runs clear through it and it is
    two things side by side (:func:`side_by_side`): aaai p. 4 sets Table 1 at
    the top of the left column and Table 3 at the top of the right one;
    read as one band across the page, the two were taken for one table,
    cut where Table 3 ends (Table 1's last rows left in prose)."""
    out: list[tuple[list[Item], tuple[float, float] | None]] = []
    for items, gutter in groups:
        if gutter is not None and out and out[-1][1] is None:
            before = out[-1][0]
            common = _common_gutter(before + items, gutter, settings)
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
    column in rows where no gutter was found (dpr p. 5's axis ticks ``90``,
    ``80``, ``70`` at 326 pt beside lines that end at 292 read ``the effects
    of different 90 training schemes``) are read after the column, as
    printed, never inside its sentences."""
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


# --- paragraphs ---------------------------------------------------------------------


def line_gaps(leaves: list[Leaf], body_size: float) -> list[float]:
    """Whitespace between consecutive lines of the same size in the leaves."""
    gaps = []
    for leaf in leaves:
        prev: Item | None = None
        for it in leaf.items:
            if it.fragment is None:
                prev = None
                continue
            if prev is not None and prev.fragment is not None:
                gap = it.bbox[1] - prev.bbox[3]
                if 0 <= gap <= 0.8 * body_size and abs(prev.fragment.size - it.fragment.size) < 0.5:
                    gaps.append(gap)
            prev = it
    return gaps


def typical_line_gap(gaps: list[float], body_size: float) -> float:
    """The usual whitespace between two lines of one paragraph: the lower
    quartile of the document's line gaps (most lines sit inside paragraphs,
    and paragraph breaks only widen gaps)."""
    if len(gaps) < 4:
        return 0.25 * body_size
    return statistics.quantiles(gaps, n=4)[0]


def leaf_paragraphs(page_no: int, leaf: Leaf) -> list[Para | BlockCandidate]:
    """Given a leaf's items in reading order, return its paragraphs and
    blocks in order."""
    out: list[Para | BlockCandidate] = []
    lines: list[list[Fragment]] = []
    for it in leaf.items:
        if it.block is not None:
            if lines:
                out.append(_para(page_no, lines))
            lines = []
            out.append(it.block)
            continue
        f = it.fragment
        assert f is not None
        if lines and _same_line(lines[-1][-1], f):
            lines[-1].append(f)
        else:
            lines.append([f])
    if lines:
        out.append(_para(page_no, lines))
    return out


def _same_line(a: Fragment, b: Fragment) -> bool:
    """b continues a's line: beside it (either side: right to left too), on
    the same baseline."""
    overlap = min(a.bbox[3], b.bbox[3]) - max(a.bbox[1], b.bbox[1])
    beside = b.bbox[0] >= a.bbox[2] - 1 or b.bbox[2] <= a.bbox[0] + 1
    return overlap >= 0.5 * min(a.height, b.height) and beside


def _para(page_no: int, lines: list[list[Fragment]]) -> Para:
    lines = [ln for ln in lines if ln]
    return Para(page_no, tuple(tuple(ln) for ln in lines), union(f.bbox for ln in lines for f in ln))


def split_paragraphs(paras: list[Para | BlockCandidate], leaf: Leaf, settings: PdfSettings, line_gap: float) -> list[Para | BlockCandidate]:
    """Split each run of lines into paragraphs (see module doc)."""
    out: list[Para | BlockCandidate] = []
    frags = [i.fragment for i in leaf.items if i.fragment is not None]
    if frags:
        left = _common_left(frags)
        right = max(f.bbox[2] for f in frags)
        far_left = min(f.bbox[0] for f in frags)
        right_edge = _common_right(frags)
    else:
        left = right = far_left = right_edge = 0.0
    for p in paras:
        if not isinstance(p, Para):
            out.append(p)
            continue
        current: list[tuple[Fragment, ...]] = []
        prev: tuple[Fragment, ...] | None = None
        for line in p.lines:
            rtl = is_rtl(line[0])
            edges = (right_edge, far_left) if rtl else (left, right)  # (where lines start, where they end)
            if prev is not None and _breaks(prev, line, edges[0], edges[1], settings, line_gap, rtl):
                out.append(Para(p.page_no, tuple(current), union(f.bbox for ln in current for f in ln)))
                current = []
            current.append(line)
            prev = line
        if current:
            out.append(Para(p.page_no, tuple(current), union(f.bbox for ln in current for f in ln)))
    return out


def _common_left(frags: list[Fragment]) -> float:
    lefts = sorted(round(f.bbox[0]) for f in frags)
    counts: dict[int, int] = {}
    for x in lefts:
        counts[x] = counts.get(x, 0) + 1
    best = max(counts.values())
    # the leftmost edge that many lines share (not a stray outdented line)
    for x in lefts:
        if counts[x] >= max(2, best // 3):
            return float(x)
    return float(lefts[0])


def _common_right(frags: list[Fragment]) -> float:
    rights = sorted((round(f.bbox[2]) for f in frags), reverse=True)
    counts: dict[int, int] = {}
    for x in rights:
        counts[x] = counts.get(x, 0) + 1
    best = max(counts.values())
    for x in rights:
        if counts[x] >= max(2, best // 3):
            return float(x)
    return float(rights[0])


def _line_box(line: tuple[Fragment, ...]) -> BBox:
    return union(f.bbox for f in line)


def _line_text(line: tuple[Fragment, ...]) -> str:
    return " ".join(f.text for f in line)


def _line_size(line: tuple[Fragment, ...]) -> float:
    sizes = [w.size for f in line for w in f.words]
    return statistics.median(sizes) if sizes else 0.0


def _line_bold(line: tuple[Fragment, ...]) -> bool:
    words = [w for f in line for w in f.words]
    chars = sum(len(w.text) for w in words)
    return chars > 0 and sum(len(w.text) for w in words if w.bold) >= 0.8 * chars


def _breaks(prev, line, start: float, end: float, settings: PdfSettings, line_gap: float, rtl: bool = False) -> bool:
    """Whether ``line`` opens a new paragraph after ``prev``. ``start`` is
    the edge lines begin at (the left, or the right for right-to-left text),
    ``end`` the edge they run to."""
    pb, lb = _line_box(prev), _line_box(line)
    size = max(_line_size(prev), _line_size(line), 1.0)
    ps, ls = _line_size(prev), _line_size(line)
    if ps and ls and max(ps, ls) / min(ps, ls) > 1.1:
        return True
    if _line_bold(prev) != _line_bold(line):
        return True
    gap = lb[1] - pb[3]
    if gap > line_gap + settings.paragraph_gap_em * size:
        return True
    text = _line_text(line)
    if LIST_MARKER.match(text):
        return True
    prev_text = _line_text(prev).rstrip()
    finished = bool(_TERMINAL.search(prev_text))
    indent = (start - lb[2], pb[2] - lb[2]) if rtl else (lb[0] - start, lb[0] - pb[0])
    if finished and indent[0] >= settings.indent_em * size and indent[1] >= settings.indent_em * size * 0.5:
        return True
    # the line was broken although its first word would have fitted after the previous line
    first_word = line[0].words[0]
    room = (pb[0] - end) if rtl else (end - pb[2])
    fits = room > (first_word.bbox[2] - first_word.bbox[0]) + 0.6 * size
    if fits and (finished or text[:1].isupper() or text[:1].isdigit()):
        return True
    return False
