"""Inline superscripts and subscripts marked in a line's words.

A run of characters set smaller than the line's text and raised or lowered
off its baseline is written ``x^3`` / ``x_i`` (``10^{−3}``, ``x_{ij}`` for a
run of more than one character), never glued to its base (``x3``). The
marks are not characters of the text layer: the character accounting counts
``Word.source``. A script MuPDF sets on a line of its own is marked against
the line it belongs to (:mod:`.scripts`), and joined to it once the blocks
are lifted (:func:`attach_script_fragments`).
"""

from __future__ import annotations

from typing import NamedTuple

from ...inline_marks import scripted
from ..records import Fragment, Word, make_fragment
from .scripts import (
    SCRIPT_MAX_CHARS,
    SCRIPT_MAX_SIZE_FRAC,
    SCRIPT_MIN_SHIFT_EM,
    Attachment,
    Part,
    attach_script_lines,
    baseline_of,
    body_size,
    join_parts,
    readable,
)


def script_marks(line: dict, host: tuple[float, float] | None = None) -> list[str] | None:
    """For each character of a MuPDF line (its spans' text in order): ``"^"``
    for a superscript, ``"_"`` for a subscript, ``""`` for the line's own
    text; None when the line holds no script. A script is a span set at most
    :data:`SCRIPT_MAX_SIZE_FRAC` of the size of the line's text
    (:func:`.scripts.body_size`: a short base under a longer script,
    ``H^{dis}``, is still the text), whose origin lies at least :data:`SCRIPT_MIN_SHIFT_EM` of
    that size above or below the baseline of the line's text (measured
    across the line's direction, so a page set sideways reads the same).
    ``host`` (baseline level, size) measures a script line MuPDF set apart
    against the text line it belongs to instead (:mod:`.scripts`)."""
    spans = line["spans"]
    dx, dy = line.get("dir", (1, 0))

    def level(sp) -> float:  # how far up the line's "up" (dy, -dx) the span's origin lies
        return sp["origin"][0] * dy - sp["origin"][1] * dx

    if host is not None:
        baseline, size = host
    else:
        if len(spans) < 2:
            return None
        weights: dict[float, int] = {}
        for sp in spans:
            n = readable(sp["text"])
            if n:
                key = round(sp["size"], 1)
                weights[key] = weights.get(key, 0) + n
        if len(weights) < 2:
            return None  # one size: no script
        size = body_size(weights)
        base = [sp for sp in spans if readable(sp["text"]) and sp["size"] >= SCRIPT_MAX_SIZE_FRAC * size]
        if not base:
            return None
        baseline = baseline_of([(level(sp), readable(sp["text"])) for sp in base])
    shift = SCRIPT_MIN_SHIFT_EM * size
    span_marks: list[str] = []
    for sp in spans:
        mark = ""
        if sp["text"].strip() and sp["size"] <= SCRIPT_MAX_SIZE_FRAC * size:
            off = level(sp) - baseline
            mark = "^" if off >= shift else "_" if off <= -shift else ""
        span_marks.append(mark)
    span_marks = _unmark_long_runs(spans, span_marks)
    if not any(span_marks):
        return None
    return [mark for sp, mark in zip(spans, span_marks) for _ in sp["text"]]


def _unmark_long_runs(spans: list[dict], marks: list[str]) -> list[str]:
    """``marks`` with the marks cleared of each run of script spans (blank
    spans inside it included) holding more than :data:`SCRIPT_MAX_CHARS`
    readable characters: a line's smaller text set off its baseline at that
    length is another cell's text on the same MuPDF line (a form's value
    beside its label), not an exponent or a footnote mark; script lines set
    apart are held to the same length."""
    marks = list(marks)
    k = 0
    while k < len(spans):
        if not marks[k]:
            k += 1
            continue
        end, chars = k, 0
        while end < len(spans) and (marks[end] == marks[k] or not spans[end]["text"].strip()):
            chars += readable(spans[end]["text"])
            end += 1
        if chars > SCRIPT_MAX_CHARS:
            marks[k:end] = [""] * (end - k)
        k = end
    return marks


def mark_scripts(chars: str, marks: list[str]) -> str:
    """``chars`` with each run of script characters written after its mark:
    ``x^3``, ``x_i``, ``10^{−3}``, ``x_i^2``."""
    out: list[str] = []
    i, n = 0, len(chars)
    while i < n:
        mark = marks[i]
        if not mark:
            out.append(chars[i])
            i += 1
            continue
        j = i
        while j < n and marks[j] == mark:
            j += 1
        run = chars[i:j]
        out.append(scripted(mark, run))
        i = j
    return "".join(out)


class LineMarks(NamedTuple):
    """A line's characters with whitespace left out (those MuPDF's words are
    cut from, in order) and the script mark of each (:func:`script_marks`)."""

    chars: str
    marks: list[str]


def line_marks(line: dict, host: tuple[float, float] | None = None) -> LineMarks | None:
    """The script marks of a MuPDF line's characters, whitespace left out
    (:func:`script_marks`); None when the line holds no script."""
    marks = script_marks(line, host)
    if marks is None:
        return None
    text = "".join(sp["text"] for sp in line["spans"])
    keep = [k for k, c in enumerate(text) if not c.isspace()]
    return LineMarks("".join(text[k] for k in keep), [marks[k] for k in keep])


class ScriptLines(NamedTuple):
    """The page's script lines that MuPDF set apart from their text line."""

    attached: dict[int, Attachment]  # script line → its host, baseline and size
    marks: dict[int, LineMarks]  # script line → its marks measured against its host


def script_lines(lines: list[dict | None], direction) -> ScriptLines:
    """The page's script lines that MuPDF set apart from their text line
    (:func:`.scripts.attach_script_lines`), each with its marks measured
    against its host; a line that holds no script so measured is left out."""
    attached: dict[int, Attachment] = {}
    marks: dict[int, LineMarks] = {}
    for k, a in attach_script_lines(lines, direction).items():
        found = line_marks(lines[k], (a.baseline, a.size))
        if found is not None:
            attached[k] = a
            marks[k] = found
    return ScriptLines(attached, marks)


def _part(word: Word) -> Part:
    chars = word.source
    marks = tuple(m.strip() for m in word.marks) if word.marks else ("",) * len(chars)
    return Part(word.bbox[0], word.bbox[2], chars, marks, word.line_id, word.size)


def attach_script_fragments(fragments: list[Fragment], hosts: dict[int, int]) -> list[Fragment]:
    """``fragments`` with each fragment of a script line MuPDF set apart
    (``hosts``: its line → the line it belongs to, from
    :func:`.words.read_words`) joined to the fragment of its line it stands
    beside, its words and that fragment's made one line's words
    (:func:`.scripts.join_parts`: ``p`` + ``c(X,Y)`` + ``1:s`` →
    ``p^{c(X,Y)}_{1:s}``). Run on prose only, after the blocks are lifted: a
    display formula keeps its lines as MuPDF set them. A script whose line
    is not among ``fragments`` stays apart."""
    if not hosts:
        return fragments
    by_line: dict[int, list[int]] = {}
    for k, f in enumerate(fragments):
        by_line.setdefault(f.line_id, []).append(k)
    joins: dict[int, list[int]] = {}  # host fragment → its script fragments
    for k, f in enumerate(fragments):
        host = hosts.get(f.line_id)
        if host is None or host not in by_line:
            continue
        lo, hi = f.bbox[0], f.bbox[2]
        best = min(by_line[host], key=lambda j: min(abs(lo - fragments[j].bbox[2]), abs(hi - fragments[j].bbox[0])))
        joins.setdefault(best, []).append(k)
    if not joins:
        return fragments
    gone = {k for ks in joins.values() for k in ks}
    out: list[Fragment] = []
    for k, f in enumerate(fragments):
        if k in gone:
            continue
        if k not in joins:
            out.append(f)
            continue
        scripts = [w for j in joins[k] for w in fragments[j].words]
        own_parts = [(_part(w), w) for w in f.words]
        script_parts = [(_part(w), w) for w in scripts]
        style = {id(p): w for p, w in own_parts + script_parts}
        words: list[Word] = []
        for group in join_parts([p for p, _ in own_parts], [p for p, _ in script_parts], f.line_id):
            first = style[id(next((p for p in group if p.line == f.line_id), group[0]))]
            if len(group) == 1:
                words.append(style[id(group[0])]._replace(line_id=f.line_id))
                continue
            chars = "".join(p.chars for p in group)
            marks = [m for p in group for m in p.marks]
            text = mark_scripts(chars, marks)
            boxes = [style[id(p)].bbox for p in group]
            box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
            plain, mark_str = (chars, "".join(m or " " for m in marks)) if text != chars else ("", "")
            words.append(Word(text, box, first.size, first.bold, first.italic, f.line_id, False, plain, mark_str))
        out.append(make_fragment(words, f.line_id)._replace(joined=f.words + tuple(scripts)))
    return out
