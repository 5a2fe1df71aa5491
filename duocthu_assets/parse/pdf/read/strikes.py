"""Words a line is drawn through: text shown crossed out on the page.

Word, LibreOffice and browsers print struck-through text as ordinary text
with a thin line drawn across the middle of its letters; every text
extractor reads it as text like the rest, so a dose struck out with the new
one typed after it read as two doses (``0,5 g 0,375 g``). A struck word is
kept and its run written ``~~0,5 g~~`` (:mod:`duocthu_assets.parse.inline_marks`,
the convention of the DOCX and sheet readers); the parse warns how many.

A word is struck when a horizontal line (a stroke or a thin filled
rectangle: :class:`~duocthu_assets.parse.pdf.records.Rule`, pieces that touch
joined by :func:`~duocthu_assets.parse.pdf.read.rules.merge_rules`) crosses it
between :data:`BAND` of its height from its top (the middle of its letters:
an underline runs at its foot, a rule above or below it outside), over
:data:`MIN_COVER` of its width, and the line does not run on past the words
it crosses by more than :data:`MAX_OVERRUN_EM` (a table's rule or a chart's
grid line crosses far more than one run of text); the exceptions are
:func:`struck_word_indexes`'. MuPDF's own strike-out flag (``TEXT_COLLECT_STYLES``) was measured:
4.3× the text extraction's cost over the corpus, and it flags a radical's
bar and a table rule through a cell (none of the corpus's 46 PDFs strikes a
word)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ...inline_marks import STRUCK

if TYPE_CHECKING:
    from ..geometry import BBox
    from ..records import Rule, Word

BAND = (0.35, 0.75)  # where a strike runs, as shares of the word box's height from its top
MIN_COVER = 0.6  # of a word's width the line crosses
MAX_OVERRUN_EM = 1.0  # how far the line may run past the first and last word it crosses
JOIN_GAP = 1.0  # points: pieces of one line this close are one line
OVERLINES = re.compile("[\u00af\u203e\u0304\u0305]")  # a macron, an overline: a bar over a letter, drawn
EDGE_TOL = 0.5  # points: a line this close to a shape's top or bottom is its edge
STACKED_WIDTH = 0.5  # a word over or under a line, as wide as this share of it and within its ends, is set on it
ROW = 8.0  # points: the height of the bands words are looked up by
NEAR = 24.0  # points: words within this of a line are looked at (crossed by it, or set on it)


def struck_word_indexes(words: Sequence[Word], rules: Iterable[Rule], shapes: Sequence[BBox] = ()) -> set[int]:
    """Indexes in ``words`` of the words a line is drawn through. Not a
    strike: a line on the top or bottom edge of a drawn shape's box
    (``shapes``: a box's border, a drop shadow's edge under a caption); a
    line with a word set just over or under it and across it, not crossed
    by it (a fraction's bar between its numerator and denominator); a run
    holding a math sign or an overline (``−ᾱt−1``: a bar over a letter) or
    no letter or digit (a radical's bar)."""
    from .rules import merge_rules  # they import the page reader, which calls this
    from ..records import MATH_CHAR

    horizontal, _ = merge_rules([r for r in rules if r.horizontal], JOIN_GAP)
    if not horizontal:
        return set()
    edges = {round(y) for _, y0, _, y1 in shapes if y1 - y0 > EDGE_TOL * 4 for y in (y0, y1)}  # a first sieve
    rows: dict[int, list[int]] = {}  # words by the bands of ROW points their boxes span
    for k, w in enumerate(words):
        for band in range(int(w.bbox[1] // ROW), int(w.bbox[3] // ROW) + 1):
            rows.setdefault(band, []).append(k)
    out: set[int] = set()
    for line in horizontal:
        runs = _struck_runs(words, rows.get(int(line.pos // ROW), ()), line, MATH_CHAR)
        if not runs or _stacked(words, rows, line) or ({round(line.pos) + d for d in (-1, 0, 1)} & edges and _on_edge(line, shapes)):
            continue
        for ks in runs:
            out.update(ks)
    return out


def _crosses(w: Word, line: Rule) -> bool:
    """The line runs across the middle of the word's letters, over
    :data:`MIN_COVER` of its width."""
    wx0, wy0, wx1, wy1 = w.bbox
    height, width = wy1 - wy0, wx1 - wx0
    lo, hi = BAND
    return height > 0 and width > 0 and wy0 + lo * height <= line.pos <= wy0 + hi * height and min(wx1, line.x1) - max(wx0, line.x0) >= MIN_COVER * width


def _struck_runs(words: Sequence[Word], candidates: Iterable[int], line: Rule, math_char: re.Pattern) -> list[list[int]]:
    """The runs of words (one a text line) the line crosses and ends with
    (no further than :data:`MAX_OVERRUN_EM` past them) that read as text."""
    crossed: dict[int, list[int]] = {}
    for k in candidates:
        if _crosses(words[k], line):
            crossed.setdefault(words[k].line_id, []).append(k)
    runs = []
    for ks in crossed.values():
        em = max(words[k].size for k in ks)
        if line.x0 < min(words[k].bbox[0] for k in ks) - MAX_OVERRUN_EM * em or line.x1 > max(words[k].bbox[2] for k in ks) + MAX_OVERRUN_EM * em:
            continue  # a rule or a grid line running on past the text
        text = "".join(words[k].source for k in ks)
        if any(c.isalnum() for c in text) and not math_char.search(text) and not OVERLINES.search(text):
            runs.append(sorted(ks))
    return runs


def _stacked(words: Sequence[Word], rows: dict[int, list[int]], line: Rule) -> bool:
    """A word the line does not cross is set just over or under it and
    across it: a fraction's numerator or denominator on its bar."""
    for band in range(int((line.pos - NEAR) // ROW), int((line.pos + NEAR) // ROW) + 1):
        for k in rows.get(band, ()):
            wx0, wy0, wx1, wy1 = words[k].bbox
            if abs((wy0 + wy1) / 2 - line.pos) < wy1 - wy0 and _spans(wx0, wx1, line.x0, line.x1) and not _crosses(words[k], line):
                return True
    return False


def _spans(wx0: float, wx1: float, x0: float, x1: float) -> bool:
    """A word within a line's ends (a point either side) and at least
    :data:`STACKED_WIDTH` of its length: a fraction's numerator over its bar."""
    return x0 - 1.5 <= wx0 and wx1 <= x1 + 1.5 and wx1 - wx0 >= STACKED_WIDTH * (x1 - x0)


def _on_edge(line: Rule, shapes: Sequence[BBox]) -> bool:
    """The line lies on the top or bottom edge of a shape's box."""
    return any(
        (abs(line.pos - sy0) <= EDGE_TOL or abs(line.pos - sy1) <= EDGE_TOL) and sx0 - EDGE_TOL <= line.x0 and line.x1 <= sx1 + EDGE_TOL
        for sx0, sy0, sx1, sy1 in shapes
        if sy1 - sy0 > EDGE_TOL * 4
    )


def mark_struck(words: list[Word], rules: Iterable[Rule], shapes: Sequence[BBox] = ()) -> tuple[list[Word], list[str]]:
    """``words`` with each run of struck words on one line written
    ``~~…~~`` (the first word opens it, the last closes it; ``plain`` keeps
    the text layer's spelling for the character accounting), and each run's
    text as the text layer spells it."""
    struck = struck_word_indexes(words, rules, shapes)
    if not struck:
        return words, []
    out = list(words)
    passages: list[str] = []
    for k in sorted(struck):
        w = words[k]
        opens = k - 1 not in struck or words[k - 1].line_id != w.line_id
        closes = k + 1 not in struck or words[k + 1].line_id != w.line_id
        out[k] = w._replace(text=(STRUCK if opens else "") + w.text + (STRUCK if closes else ""), plain=w.source)
        if opens:
            passages.append(w.source)
        else:
            passages[-1] += " " + w.source
    return out, passages
