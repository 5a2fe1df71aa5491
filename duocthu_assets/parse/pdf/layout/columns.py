"""Where a page's columns are: gutters of whitespace or drawn separators
with running text on both sides.

A gutter splits items into columns only when both its sides carry running
text (so the cells of a table are never taken for columns; a column of short
bold side headings off the text's baselines counts as a side); a drawn
vertical line splits them when one side is running text and the other keeps
off its baselines. All tests here are pure.
"""

from __future__ import annotations

import bisect

from ..geometry import free_intervals
from ..records import LONE_OPERATORS, Fragment
from ..read.words import is_rtl
from ....settings.pdf import PdfSettings
from .items import Item


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
    stroked box: a coloured sidebar's) that divides the items beside it
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
    them is a lone operator (``=``, ``x``: a formula set in words)."""
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
    a line on its left). A necessary condition, in one pass: the slab
    grouping asks again each time a slab joins a one-column group, and a
    long table's rows of short cells would pay for every split. Pure."""
    running = sum(1 for f in frags if len(f.words) >= min_words)
    if running >= RUNNING_FRAC * len(frags) - 1e-6:
        return True
    if running < SIDE_HEADING_MIN_LINES:
        return False

    def head(f: Fragment) -> bool:
        return f.bold and len(f.words) <= SIDE_HEADING_MAX_WORDS

    lead = min(frags, key=lambda f: f.bbox[0])
    return all(head(f) for f in frags if f.bbox[0] <= lead.bbox[2]) and sum(1 for f in frags if head(f)) >= SIDE_HEADING_MIN_LINES


def common_gutter(items: list[Item], gutter: tuple[float, float], settings: PdfSettings) -> tuple[float, float] | None:
    """The gutter of ``items`` that overlaps ``gutter`` (the first lines of
    a column may be indented: the gutter narrows, it does not move)."""
    a, b = gutter
    for c, d in _gutters(items, settings):
        if c < b and d > a:
            return (c, d)
    return None


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
