"""A page's words read from MuPDF's TextPage, each with the style of the
span it sits in, its scripts marked, its glyphs with no readable character
shown or left out, and its box in reading orientation; and a line's words
cut into fragments at wide gaps.

One MuPDF ``TextPage`` serves both the styled lines (``extractDICT``) and
the word boxes (``extractWORDS``): a word finds its line and, by where it
stands on it, its span's style.
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from ....settings.pdf import PdfSettings
from ..engine import pymupdf, text_lines
from ..geometry import BBox
from ..records import Fragment, Word, make_fragment
from .glyphs import UNMAPPED, drawn_glyphs, kept_characters, shown
from .orientation import (
    AcrossLine,
    Sideways,
    turned_box,
    line_direction,
    lines_apart,
    reading_direction,
    turn_matrix,
)
from .overprint import overprinted_lines
from .rtl import has_rtl, joined_words, rtl_words
from .script_marks import LineMarks, line_marks, mark_scripts, script_lines

_BOLD_NAMES = ("bold", "black", "heavy", "semibold", "demibold", ",b")
_ITALIC_NAMES = ("italic", "oblique", ",i")

Style = tuple[float, bool, bool]  # a span's size, bold, italic


def _style_of(span: dict) -> Style:
    font = str(span.get("font", "")).lower()
    flags = int(span.get("flags", 0))
    bold = bool(flags & pymupdf.TEXT_FONT_BOLD) or any(n in font for n in _BOLD_NAMES)
    italic = bool(flags & pymupdf.TEXT_FONT_ITALIC) or any(n in font for n in _ITALIC_NAMES)
    return float(span.get("size", 0.0)), bold, italic


class PageLines(NamedTuple):
    """A page's MuPDF lines, numbered in page order, as its words are read
    against them (:func:`page_lines`)."""

    number: dict[tuple[int, int], int]  # (block, line), as extractWORDS numbers a word's → the line's number
    spans: list[tuple[list[float], list[Style]]]  # each line's non-blank spans left to right: where each starts, its style
    styled: list[tuple[BBox, str, str, float]]  # each line's box, text, first font and size
    marks: dict[int, LineMarks]  # the lines that hold a script, their marks
    flat: list[dict | None]  # each line running straight in the page's reading direction (None for the others)
    across: list[AcrossLine]  # the lines a quarter turn from the page's text
    chars: int  # the page's characters, blanks left out
    text_x: tuple[float, float]  # where the lines running with the page's text start and end


def page_lines(page_dict: dict, direction: tuple[int, int]) -> PageLines:
    """The lines of a TextPage's ``extractDICT``, the page's text running in ``direction``."""
    number: dict[tuple[int, int], int] = {}
    spans: list[tuple[list[float], list[Style]]] = []
    styled: list[tuple[BBox, str, str, float]] = []
    marks: dict[int, LineMarks] = {}
    flat: list[dict | None] = []
    across: list[AcrossLine] = []
    total_chars = 0
    flat_x0, flat_x1 = float("inf"), float("-inf")
    style_cache: dict[tuple[str, int, float], Style] = {}
    for numbered, line in text_lines(page_dict):
        k = len(spans)
        starts: list[float] = []
        styles: list[Style] = []
        for span in sorted((sp for sp in line["spans"] if sp["text"].strip()), key=lambda sp: sp["bbox"][0]):
            look = (span.get("font", ""), span.get("flags", 0), span.get("size", 0.0))
            style = style_cache.get(look)
            if style is None:
                style = style_cache[look] = _style_of(span)
            starts.append(span["bbox"][0])
            styles.append(style)
        number[numbered] = k
        line_text = "".join(sp["text"] for sp in line["spans"])
        first = next((sp for sp in line["spans"] if sp["text"].strip()), None)
        styled.append((tuple(line["bbox"]), line_text, first["font"] if first else "", round(first["size"], 1) if first else 0.0))
        found = line_marks(line)
        if found is not None:
            marks[k] = found
        chars = sum(len(sp["text"].strip()) for sp in line["spans"])
        total_chars += chars
        way = line_direction(line)
        dx, dy = line.get("dir", (1, 0))
        if way != direction and abs(dx * direction[0] + dy * direction[1]) < 0.5:
            # a quarter turn from the text (slanted text stays): vertical on an upright page; on a page
            # turned to read, a line upright on paper (a folio set along the turned page's edge)
            across.append(AcrossLine(k, line["bbox"], chars, way))
        elif way == direction:
            flat_x0, flat_x1 = min(flat_x0, line["bbox"][0]), max(flat_x1, line["bbox"][2])
        flat.append(line if way == direction and (dx == 0 or dy == 0) else None)
        spans.append((starts, styles))
    return PageLines(number, spans, styled, marks, flat, across, total_chars, (flat_x0, flat_x1))


class PageWords(NamedTuple):
    """A page's words and what reading them found (:func:`read_words`)."""

    words: list[Word]
    unmapped: int  # glyphs without a readable character, left out of the words' text
    lost: int  # letters of right-to-left lines MuPDF's words lost (:func:`.rtl.rtl_words`)
    script_hosts: dict[int, int]  # a script line MuPDF set apart → the line it belongs to
    sideways: Sideways | None  # a region set sideways inside a page read as displayed


def read_words(textpage, page_dict: dict, matrix) -> PageWords:
    """Words of a TextPage with the style of the span each one sits in, the
    number of glyphs without a readable character (:data:`.glyphs.UNMAPPED`),
    which are left out of the words' text (a word of nothing else is
    dropped), and the number of letters of right-to-left lines MuPDF's
    words lost (:func:`.rtl.rtl_words`). Boxes are turned by ``matrix``
    into reading orientation.

    On a page read as displayed (``matrix`` None), the lines of a region set
    sideways inside the page (a table turned a quarter beside upright prose,
    :func:`.orientation.lines_apart`) are named in ``sideways``; their
    words' boxes are turned to read left to right in that region's own frame
    (:func:`.orientation.turn_matrix`).

    The script lines MuPDF set apart from their text line (:mod:`.scripts`)
    are named in ``script_hosts`` (line id → its line's id); their words
    are marked against that line (``^{c(X,Y)}``) and stay on their own line
    until :func:`.script_marks.attach_script_fragments` joins them."""
    direction = reading_direction(page_dict)
    lines = page_lines(page_dict, direction)
    width, height = page_dict.get("width", 0.0), page_dict.get("height", 0.0)
    apart = lines_apart(lines.across, lines.chars, lines.text_x, direction, width, matrix is None)
    side_lines = apart.sideways.lines if apart.sideways is not None else set()
    side_matrix = turn_matrix(apart.sideways.direction, width, height) if apart.sideways is not None else None
    overprints = overprinted_lines(lines.styled)
    flat = list(lines.flat)
    for k in overprints | apart.rotated | side_lines:
        flat[k] = None
    found = script_lines(flat, direction)
    attached = dict(found.attached)
    marks = {**lines.marks, **found.marks}  # a script line's marks measured against its host
    raw_words = textpage.extractWORDS()
    lost = 0
    if has_rtl("".join(s[1] for s in lines.styled)):
        # right-to-left text: lines in reading order, a lam-alef ligature's letters in the font's
        # order, a word's pieces joined; letters MuPDF's words dropped, counted (.rtl)
        raw_words, lost = rtl_words(textpage.extractRAWDICT(sort=False), raw_words, drawn_glyphs(textpage.parent))
        raw_words = joined_words(raw_words, {key for key, k in lines.number.items() if k in marks})
    words: list[Word] = []
    unmapped = 0
    consumed: dict[int, int] = {}  # a line with scripts → how many of its characters its words took
    for n, (x0, y0, x1, y1, text, b_no, l_no, _w_no) in enumerate(raw_words):
        lid = lines.number.get((b_no, l_no), -1)
        has_unmapped = UNMAPPED.search(text) is not None
        leads_line, next_word = False, ""  # where the word stands on its line: asked only of one holding an unmapped glyph
        if has_unmapped:
            leads_line = n == 0 or raw_words[n - 1][5:7] != (b_no, l_no)
            next_word = raw_words[n + 1][4] if n + 1 < len(raw_words) and raw_words[n + 1][5:7] == (b_no, l_no) else ""
        if lid in overprints:
            continue  # glyphs drawn again over a line already read
        marked = ""
        word_marks = ""
        line_script = marks.get(lid)
        if line_script is not None:
            at = consumed.get(lid, 0)
            if line_script.chars.startswith(text, at):
                consumed[lid] = at + len(text)
                own = line_script.marks[at : at + len(text)]
                if any(own):
                    pairs = [(c, own[k]) for k, c in kept_characters(text, leads_line, next_word)]
                    word_marks = "".join(m or " " for _, m in pairs)
                    marked = mark_scripts("".join(c for c, _ in pairs), [m for _, m in pairs])
            else:
                del marks[lid]  # MuPDF cut the line's words otherwise: leave the line unmarked
                attached.pop(lid, None)  # ... and apart, as MuPDF set it
        if has_unmapped:
            kept_text = shown(text, leads_line, next_word)
            unmapped += len(text) - len(kept_text)
            text = kept_text
        if not text.strip():
            continue
        if lid >= 0 and lines.spans[lid][1]:
            starts, styles = lines.spans[lid]
            k = max(0, bisect.bisect_right(starts, (x0 + x1) / 2) - 1)
            size, bold, italic = styles[k]
        else:
            size, bold, italic = 0.0, False, False
        if size <= 0:
            size = max(y1 - y0, 1.0) / 1.2
        if lid in side_lines:
            box = turned_box((x0, y0, x1, y1), side_matrix)
        else:
            box = (x0, y0, x1, y1) if matrix is None else turned_box((x0, y0, x1, y1), matrix)
        line_id = lid if lid >= 0 else 10_000_000 + b_no * 1000 + l_no
        if marked and marked != text:
            words.append(Word(marked, box, size, bold, italic, line_id, lid in apart.rotated, text, word_marks))
        else:
            words.append(Word(text, box, size, bold, italic, line_id, lid in apart.rotated))
    return PageWords(words, unmapped, lost, {k: a.host for k, a in attached.items()}, apart.sideways)


def words_to_fragments(words: list[Word], settings: PdfSettings) -> list[Fragment]:
    """Given words in MuPDF's order (reading order within a line: right to
    left for Arabic or Hebrew), return fragments: each MuPDF line split
    wherever the gap between two neighbouring words exceeds
    ``fragment_gap_em``. Words keep their reading order."""
    by_line: dict[int, list[Word]] = {}
    for w in words:
        by_line.setdefault(w.line_id, []).append(w)
    fragments: list[Fragment] = []
    for lid, line_words in by_line.items():
        if line_words[0].rotated:
            fragments.append(make_fragment(line_words, lid))  # a vertical line is one fragment, read along its run
            continue
        run: list[Word] = [line_words[0]]
        for w in line_words[1:]:
            prev = run[-1]
            gap = max(w.bbox[0] - prev.bbox[2], prev.bbox[0] - w.bbox[2])
            size = max(prev.size, w.size, 1.0)
            vertical_jump = abs((w.bbox[1] + w.bbox[3]) - (prev.bbox[1] + prev.bbox[3])) / 2 > 0.8 * size
            if gap > settings.fragment_gap_em * size or vertical_jump:
                fragments.append(make_fragment(run, lid))
                run = [w]
            else:
                run.append(w)
        fragments.append(make_fragment(run, lid))
    return fragments


def is_rtl(fragment: Fragment) -> bool:
    """Whether a fragment reads right to left: its words run leftwards, or
    (one word) it is written in Hebrew or Arabic script."""
    words = fragment.words
    if len(words) >= 2:
        return words[0].bbox[0] > words[-1].bbox[0]
    return has_rtl(fragment.text)
