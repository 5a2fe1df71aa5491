"""Inline scripts that MuPDF sets on lines of their own.

MuPDF starts a new line wherever the baseline jumps, so a superscript or a
subscript can come out of ``get_text("dict")`` as a line of its own (the
``c(X,Y)`` over ``p^{c(X,Y)}_{1:s}``; a subscript stacked under a
superscript, with the rest of the text line after it; a footnote mark).
Read apart, ``x³`` reads ``x 3`` or lands in another paragraph. Here such a
line is matched with the line it belongs to (its *host*) when the page is
read, so that its words are marked against the host's baseline
(``^{c(X,Y)}``); :func:`duocthu_assets.parse.pdf.read.script_marks.attach_script_fragments`
joins it to its host in prose once the blocks are lifted, before reading
order (a display formula keeps its lines as MuPDF set them):

    body_size             a line's characters per size → the size of its text
    line_geometry         a MuPDF line → where it runs, its text's size and baseline
    script_run            the leading spans of a line that are scripts of a host
    host_of               the line a script line belongs to, if any
    not_scripts           inline fractions and scripts with nothing to stand on
    attach_script_lines   every script line of a page → (host, baseline, size)
    join_parts            a host line's words and its scripts' words → words
    unattached_script_lines   scripts left apart (for the leak detector)

A line is a script line of a host when its first spans are set at most
:data:`SCRIPT_MAX_SIZE_FRAC` of the host's size with their baseline between
:data:`SCRIPT_MIN_SHIFT_EM` and :data:`SCRIPT_MAX_RAISE_EM` (or
:data:`SCRIPT_MAX_DROP_EM` below) of it off the host's, the rest of it (if
any) on the host's baseline, and it starts where the host ends: touching its
last glyph (within :data:`TOUCH_EM`), or under the host's last script (a
subscript stacked under a superscript). A script line that ends where a host
starts is a script before it (a footnote mark opening a footnote). A limit
under a big operator sits under it, not beside it, and further off the
baseline; a footnote's first line, a table cell or a caption is set apart
by more than a touch; a raised and a lowered line starting together after a
bracket or a comma are an inline fraction (``ϵ/4γ``): none of them is
attached.

Pure: MuPDF line dicts in, indices out; no page, no document.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

SCRIPT_MAX_SIZE_FRAC = 0.9  # a script is set at most this size of its line's text ...
SCRIPT_MIN_SHIFT_EM = 0.12  # ... and its baseline at least this far (in ems of the text) above or below
SCRIPT_MAX_RAISE_EM = 0.75  # a script line's baseline at most this far above its host's (further: a limit, another line)
SCRIPT_MAX_DROP_EM = 0.5  # ... and at most this far below it
SCRIPT_MAX_CHARS = 16  # characters of a script run set apart (an index, an exponent, a footnote mark)
TOUCH_EM = 0.2  # a script starts at most this far (ems of the host's text) after the host's last glyph
EDGE_TOL = 0.6  # points: glyph boxes that meet within this are touching


class Span(NamedTuple):
    """A non-blank span of a line, in the page's reading frame."""

    lo: float  # where it starts along the reading direction
    hi: float  # where it ends
    level: float  # its baseline, up the page's "up"
    size: float
    chars: int  # readable characters (:func:`readable`)
    text: str


class LineGeometry(NamedTuple):
    lo: float
    hi: float
    size: float  # the size its text is set in (:func:`body_size`)
    baseline: float  # the level of its longest span of about that size
    spans: tuple[Span, ...]  # non-blank, in reading order
    rtl: bool  # its spans run against the reading direction (Arabic, Hebrew)

    @property
    def base(self) -> str:
        """Its last character set in its text's size: what a script after it would belong to."""
        return next((s.text[-1] for s in reversed(self.spans) if s.size > SCRIPT_MAX_SIZE_FRAC * self.size), "")


class Attachment(NamedTuple):
    host: int  # the line it belongs to (the first of a chain: never itself attached)
    baseline: float  # the host's baseline and size, which its marks are measured against
    size: float


def _along(direction: tuple[int, int], bbox) -> tuple[float, float]:
    dx, dy = direction
    a, b = bbox[0] * dx + bbox[1] * dy, bbox[2] * dx + bbox[3] * dy
    return (a, b) if a <= b else (b, a)


def level(direction: tuple[int, int], origin) -> float:
    """How far up the reading frame's "up" (``(dy, -dx)``) a point lies."""
    dx, dy = direction
    return origin[0] * dy - origin[1] * dx


_UNMAPPED = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff]")


def readable(text: str) -> int:
    """How many characters of ``text`` say where a line's text sits: not
    blanks, and not glyphs without a Unicode mapping or of a private-use
    range (a big bracket or radical piece of a math extension font, whose
    origin is not on the line's baseline)."""
    if text.isascii():
        return len(text) - text.count(" ") - text.count("\t")
    kept = "".join(text.split())
    return len(kept) - len(_UNMAPPED.findall(kept))


BODY_MIN_SHARE = 0.2  # the largest size holding this share of a line's characters is its text's (``H^{dis}``: 1 of 4)


def body_size(weights: dict[float, int]) -> float:
    """The size a line's text is set in, from its characters per size: the
    largest size holding at least :data:`BODY_MIN_SHARE` of them (a short
    base under a longer script, ``H^{dis}``, is still the text), else the
    size most of them are set in."""
    total = sum(weights.values())
    for size in sorted(weights, reverse=True):
        if weights[size] >= BODY_MIN_SHARE * total:
            return size
    return max(weights, key=lambda k: (weights[k], k))


def baseline_of(spans: list[tuple[float, int]]) -> float:
    """The level most of a line's text characters sit on, from its text
    spans' ``(level, characters)`` (a span's origin is its first
    character's: a span opening with the blank after a subscript reports
    the subscript's baseline)."""
    weights: dict[float, int] = {}
    for lvl, n in spans:
        key = round(lvl, 1)
        weights[key] = weights.get(key, 0) + n
    return max(weights, key=lambda k: weights[k])


def line_geometry(line: dict, direction: tuple[int, int]) -> LineGeometry | None:
    """Where a MuPDF line runs in the reading frame of ``direction``, its
    body size and baseline; None for a line of blanks."""
    spans: list[Span] = []
    weights: dict[float, int] = {}
    for sp in line["spans"]:
        text = sp["text"].strip()
        if not text:
            continue
        n = readable(text)
        lo, hi = _along(direction, sp["bbox"])
        spans.append(Span(lo, hi, level(direction, sp["origin"]), float(sp["size"]), n, text))
        if n:
            key = round(sp["size"], 1)
            weights[key] = weights.get(key, 0) + n
    if not spans:
        return None
    rtl = len(spans) >= 2 and spans[0].lo > spans[-1].lo
    size = body_size(weights) if weights else max(s.size for s in spans)
    body = [s for s in spans if s.size >= SCRIPT_MAX_SIZE_FRAC * size and s.chars] or spans
    baseline = baseline_of([(s.level, s.chars) for s in body])
    ordered = tuple(sorted(spans, key=lambda s: s.lo))
    return LineGeometry(ordered[0].lo, max(s.hi for s in ordered), size, baseline, ordered, rtl)


def _script_of(span: Span, baseline: float, size: float) -> bool:
    """Set smaller than ``size`` and raised or lowered off ``baseline`` by a script's shift."""
    if span.size > SCRIPT_MAX_SIZE_FRAC * size:
        return False
    off = span.level - baseline
    return SCRIPT_MIN_SHIFT_EM * size <= off <= SCRIPT_MAX_RAISE_EM * size or -SCRIPT_MAX_DROP_EM * size <= off <= -SCRIPT_MIN_SHIFT_EM * size


def script_run(line: LineGeometry, baseline: float, size: float) -> int:
    """How many of the line's leading spans are scripts of a host whose
    text is set in ``size`` on ``baseline``; 0 when the line is not a
    script line of it: no leading script, a run of more than
    :data:`SCRIPT_MAX_CHARS` characters, or a span after the run that is
    neither a script nor on the host's baseline (another line's text)."""
    run = 0
    while run < len(line.spans) and _script_of(line.spans[run], baseline, size):
        run += 1
    if not run or sum(s.chars for s in line.spans[:run]) > SCRIPT_MAX_CHARS:
        return 0
    shift = SCRIPT_MIN_SHIFT_EM * size
    for s in line.spans[run:]:
        if abs(s.level - baseline) >= shift and not _script_of(s, baseline, size):
            return 0
    return run


def _start_after(host: LineGeometry) -> float:
    """Where a script line after ``host`` may start: at its end, or, when
    the host ends in a run of scripts, under it from the end of the glyph
    they belong to (a subscript stacked under a superscript: ``H^{dis}``
    over ``0``)."""
    start = host.hi
    for s in reversed(host.spans):
        if not _script_of(s, host.baseline, host.size):
            return min(start, s.hi)
        start = s.lo
    return start


def host_of(line: LineGeometry, hosts: list[tuple[int, LineGeometry]]) -> tuple[int, bool] | None:
    """The line among ``hosts`` (``(index, geometry)``) that ``line`` is a
    script line of, and whether it stands before it: the largest-set one it
    touches (nearest first). None when there is none."""
    best = None
    for k, host in hosts:
        if host is line or host.rtl or line.rtl or host.size <= 0:
            continue
        run = script_run(line, host.baseline, host.size)
        if not run:
            continue
        touch = TOUCH_EM * host.size
        if _start_after(host) - EDGE_TOL <= line.lo <= host.hi + touch:
            before, gap = False, abs(line.lo - host.hi)
        elif run == len(line.spans) and host.lo - touch <= line.hi <= host.lo + EDGE_TOL:
            before, gap = True, abs(host.lo - line.hi)
        else:
            continue
        key = (-host.size, gap)
        if best is None or key < best[0]:
            best = (key, k, before)
    return None if best is None else (best[1], best[2])


def _may_pair(lines: list[dict | None], direction: tuple[int, int]) -> tuple[set[int], set[int]]:
    """A cheap first pass: the lines that may be script lines (a line within
    a script's reach of their first span's baseline is set large enough
    for that span to be its script) and the lines they may belong to."""
    quick: list[tuple[float, float, float, int]] = []  # first span's level and size, largest size, line
    for k, line in enumerate(lines):
        if line is None:
            continue
        first = None
        top = 0.0
        for sp in line["spans"]:
            if sp["text"].strip():
                if first is None:
                    first = sp
                top = max(top, sp["size"])
        if first is not None:
            quick.append((level(direction, first["origin"]), float(first["size"]), top, k))
    if len(quick) < 2:
        return set(), set()
    quick.sort()
    levels = [q[0] for q in quick]
    reach = max(q[2] for q in quick) * (max(SCRIPT_MAX_RAISE_EM, SCRIPT_MAX_DROP_EM) + SCRIPT_MAX_SIZE_FRAC)  # baselines vs first spans
    scripts: set[int] = set()
    hosts: set[int] = set()
    for lvl, size, _top, k in quick:
        bigger = [
            q[3]
            for q in quick[bisect.bisect_left(levels, lvl - reach) : bisect.bisect_right(levels, lvl + reach)]
            if q[3] != k and size <= SCRIPT_MAX_SIZE_FRAC * q[2]
        ]
        if bigger:
            scripts.add(k)
            hosts.update(bigger)
    return scripts, hosts


def attach_script_lines(lines: list[dict | None], direction: tuple[int, int]) -> dict[int, Attachment]:
    """The script lines among a page's MuPDF ``lines`` (None for one that
    runs another way, read apart), each with the line it belongs to: the
    host of its host when that one is a script line too (a chain along one
    text line), never a line that is itself attached."""
    scripts, hosts = _may_pair(lines, direction)
    if not scripts:
        return {}
    geometry: list[tuple[int, LineGeometry]] = []
    for k in sorted(scripts | hosts):
        g = line_geometry(lines[k], direction)
        if g is not None:
            geometry.append((k, g))
    by_level = sorted(geometry, key=lambda kg: kg[1].baseline)
    levels = [g.baseline for _, g in by_level]
    reach = max(g.size for _, g in geometry) * max(SCRIPT_MAX_RAISE_EM, SCRIPT_MAX_DROP_EM)
    direct: dict[int, tuple[int, bool]] = {}
    for k, g in geometry:
        if k not in scripts:
            continue
        first = g.spans[0].level
        near = by_level[bisect.bisect_left(levels, first - reach) : bisect.bisect_right(levels, first + reach)]
        found = host_of(g, near)
        if found is not None:
            direct[k] = found
    geometry_of = dict(geometry)
    for k in not_scripts(direct, geometry_of):
        del direct[k]
    out: dict[int, Attachment] = {}
    for k, (host, _before) in direct.items():
        seen = {k}
        while host in direct and host not in seen:
            seen.add(host)
            host = direct[host][0]
        if host in direct:
            continue  # a cycle: no line to measure against
        g = geometry_of[host]
        out[k] = Attachment(host, g.baseline, g.size)
    return out


NO_BASE = set("([{⟨=+−-<>≤≥±×÷∈→")  # no script follows an opening bracket or an operator (a fraction, a new term can)
CAN_BASE_PAIR = set(")]}⟩|′″'*")  # besides letters and digits, what a stacked superscript and subscript can belong to


def not_scripts(direct: dict[int, tuple[int, bool]], geometry: dict[int, LineGeometry]) -> set[int]:
    """The lines among ``direct`` (line → its host, whether before it) that
    are not scripts of their host after all: a raised line and a lowered one
    starting together after a sign that carries no stacked scripts (``(``,
    ``,``, ``=``: an inline fraction ``ϵ/4γ``), and a lone script after an
    opening bracket or an operator."""
    after: dict[int, list[int]] = {}
    for k, (host, before) in direct.items():
        if not before:
            after.setdefault(host, []).append(k)
    out: set[int] = set()
    for host, ks in after.items():
        base = geometry[host].base
        if not base or base.isalnum():
            continue
        h = geometry[host]
        baseline = h.baseline
        starts = [(geometry[j].lo, geometry[j].spans[0].level > baseline, j) for j in ks]
        tail = [s for s in h.spans if s.lo >= _start_after(h) - EDGE_TOL and _script_of(s, baseline, h.size)]
        if tail:  # the host's own last scripts stack with it
            starts.append((tail[0].lo, tail[0].level > baseline, -1))
        for k in ks:
            g = geometry[k]
            up = g.spans[0].level > baseline
            paired = any(j != k and abs(lo - g.lo) <= 2 * EDGE_TOL and raised != up for lo, raised, j in starts)
            if (paired and base not in CAN_BASE_PAIR) or base in NO_BASE:
                out.add(k)
    return out


class Part(NamedTuple):
    """A word of a host line or of one of its script lines, for
    :func:`join_parts`: its characters and their marks (``"^"``, ``"_"``,
    ``""``), its extent along the line, and the line it was read from."""

    lo: float
    hi: float
    chars: str
    marks: tuple[str, ...]
    line: int
    size: float


def _script_edge(part: Part, first: bool) -> str:
    return part.marks[0 if first else -1] if part.marks else ""


def join_parts(host: list[Part], scripts: list[Part], host_line: int) -> list[list[Part]]:
    """A host line's words with its script lines' words, as the words of
    one line: each group of parts is one word. First, the words of one
    script line that MuPDF cut at a blank inside one script (``c(X,Y`` and
    ``)``) are one; then, in reading order (a script stacked under another
    after it), a part joins the word before it when either comes from a
    script line and it starts where that word ends (``p`` + ``c(X,Y)`` +
    ``1:s`` → one word)."""
    units: list[list[Part]] = []
    for part in scripts:
        last = units[-1][-1] if units else None
        if (
            last is not None
            and last.line == part.line
            and part.lo - last.hi <= 0.5 * min(last.size, part.size)
            and _script_edge(last, False)
            and _script_edge(last, False) == _script_edge(part, True)
        ):
            units[-1].append(part)
        else:
            units.append([part])
    units += [[p] for p in host]
    units.sort(key=lambda u: u[0].lo)  # stable: stacked scripts keep the order MuPDF read them in
    words: list[list[Part]] = []
    reach = float("-inf")
    for unit in units:
        if words and (unit[0].line != host_line or words[-1][-1].line != host_line):
            size = max(p.size for p in words[-1] if p.line == host_line) if any(p.line == host_line for p in words[-1]) else unit[0].size
            if unit[0].lo <= reach + TOUCH_EM * 0.5 * size:
                words[-1] += unit
                reach = max(reach, max(p.hi for p in unit))
                continue
        words.append(list(unit))
        reach = max(p.hi for p in unit)
    return words


class LooseScript(NamedTuple):
    """A script line MuPDF set apart that :func:`attach_script_lines` left
    apart: it reaches prose unmarked unless a lifted block holds it."""

    line: int
    host: int
    text: str
    bbox: tuple[float, float, float, float]


def unattached_script_lines(lines: list[dict | None], direction: tuple[int, int], attached: dict[int, Attachment] | None = None) -> list[LooseScript]:
    """Lines made only of scripts of a neighbouring line (each span set
    smaller than its text, raised or lowered by a script's shift off its
    baseline) that start or end within :data:`TOUCH_EM` of one of its
    glyphs, yet are not attached (``attached``, computed when not given): a
    script the reader could not give back to its line safely (its line
    reads right to left, the script is longer than :data:`SCRIPT_MAX_CHARS`,
    it touches a glyph inside the line rather than its end). Pure."""
    if attached is None:
        attached = attach_script_lines(lines, direction)
    geometry = [(k, line_geometry(line, direction)) for k, line in enumerate(lines) if line is not None]
    geometry = [(k, g) for k, g in geometry if g is not None]
    by_level = sorted(geometry, key=lambda kg: kg[1].baseline)
    levels = [g.baseline for _, g in by_level]
    reach = max((g.size for _, g in geometry), default=0.0) * max(SCRIPT_MAX_RAISE_EM, SCRIPT_MAX_DROP_EM)
    out: list[LooseScript] = []
    for k, g in geometry:
        if k in attached:
            continue
        first = g.spans[0].level
        for j, h in by_level[bisect.bisect_left(levels, first - reach) : bisect.bisect_right(levels, first + reach)]:
            if j == k or not all(_script_of(s, h.baseline, h.size) for s in g.spans):
                continue
            touch = TOUCH_EM * h.size
            if any(s.hi - EDGE_TOL <= g.lo <= s.hi + touch or s.lo - touch <= g.hi <= s.lo + EDGE_TOL for s in h.spans):
                text = "".join(sp["text"] for sp in lines[k]["spans"]).strip()
                out.append(LooseScript(k, j, text, tuple(lines[k]["bbox"])))
                break
    return out
