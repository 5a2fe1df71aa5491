"""Paragraphs of one page, built from its leaves' lines.

A paragraph ends at extra vertical space, a change of type size or weight, a
first-line indent after a finished sentence, a list marker, a lifted block,
or a line broken although its next word would have fitted.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from ..blocks.candidates import BlockCandidate
from ..geometry import BBox, union
from ..records import Fragment
from ..read.words import is_rtl
from ....settings.pdf import PdfSettings
from .items import Item, Leaf

LIST_MARKER = re.compile(r"^([•·●○◦▪▫■□‣⁃∙\-–—*+]\s|\(?\d{1,3}[.)]\s|\(?[a-zđ][.)]\s|\(?[ivx]{1,4}[.)]\s)", re.IGNORECASE)
_TERMINAL = re.compile(r"[.!?:;…][\"'”’»)\]]*$")


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
