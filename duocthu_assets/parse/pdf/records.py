"""The PDF reader's shared records and character classes, at the bottom of
the package: every step imports them, they import nothing of the reader but
geometry.

Coordinates are PDF points, top-left origin, in the page's reading
orientation (:mod:`.read.orientation`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from .geometry import BBox, center, contains_point


def is_bad_glyph(ch: str) -> bool:
    o = ord(ch)
    return ch == "\ufffd" or 0xE000 <= o <= 0xF8FF or o >= 0xF0000


def is_math_char(ch: str) -> bool:
    o = ord(ch)
    return (
        0x2200 <= o <= 0x22FF  # mathematical operators ∑ ∫ √ ∂ ≤
        or 0x27C0 <= o <= 0x27EF
        or 0x2980 <= o <= 0x2AFF
        or 0x1D400 <= o <= 0x1D7FF  # mathematical alphanumerics
        or 0x239B <= o <= 0x23B3  # bracket pieces of a tall ( [ {
        or ch in "∑∏∫√"
    )


# the characters of _bad_glyph and _math_char as one character class each: a
# text is searched once instead of a call per character (the gates run on
# every character of every page)
BAD_GLYPH = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff]")


MATH_CHAR = re.compile("[\u2200-\u22ff\u27c0-\u27ef\u2980-\u2aff\U0001d400-\U0001d7ff\u239b-\u23b3]")


def is_latin_or_greek(ch: str) -> bool:
    o = ord(ch)
    return ch.isalpha() and (o < 0x250 or 0x370 <= o <= 0x3FF or 0x1E00 <= o <= 0x1FFF)


# a script mark the page reader writes (read.script_marks.mark_scripts): x^3, x_i, 10^{−3}
SCRIPT_MARK = re.compile(r"[\^_](\{[^{}\s]+\}|[^\s{}^_])")


def unmark(token: str) -> str:
    """``token`` with its script marks taken out (``x^{2}`` → ``x2``): how
    the formula finders see it, whatever the reader made of the scripts."""
    return SCRIPT_MARK.sub(lambda m: m.group(1).strip("{}"), token)


def is_formula_piece(token: str) -> bool:
    """A piece of a formula: a lone Latin or Greek letter (a
    variable), a run of symbols, a bad glyph or a math operator, a short
    index (``i=1``, ``n+1``) or a letter fused with a digit (``x2``). Numbers
    are not: dosing prose is full of them; nor are lone letters of other
    scripts (Arabic ``ج``, Hangul syllables). Script marks are read through
    (``x^2`` is the piece ``x2``)."""
    token = unmark(token)
    if BAD_GLYPH.search(token) or MATH_CHAR.search(token):
        return True
    if not any(c.isalnum() for c in token):
        return True
    if len(token) == 1:
        return is_latin_or_greek(token)
    if len(token) <= 4 and any(c in "=+−^_" for c in token[1:]):
        return True  # i=1, n+1, x^2
    return len(token) <= 3 and any(is_latin_or_greek(c) for c in token) and any(c.isdigit() for c in token)  # x2, a1


LONE_OPERATORS = frozenset("=x×−-+÷")  # a line that is one of these, set apart: the operator of a formula set in words


class Word(NamedTuple):
    """One word and the style of the span it sits in. (Typed named tuples,
    not dataclasses, for the two records made per word and per line: a page
    holds thousands.)"""

    text: str
    bbox: BBox
    size: float
    bold: bool
    italic: bool
    line_id: int  # the MuPDF line it came from, unique on its page
    rotated: bool = False  # its line runs across the page's reading direction (a vertical margin stamp)
    plain: str = ""  # the word as the text layer spells it, when ``text`` carries script marks (``x^3``)
    marks: str = ""  # with ``plain``: each of its characters' mark, ``^``, ``_`` or a blank (none)
    confidence: float = -1.0  # read by OCR: Tesseract's confidence in it (0-100); -1: read from the text layer
    uncertain: bool = False  # read by OCR below the confidence floor, or a number in doubt (read/ocr_doubt.py)

    @property
    def ocr(self) -> bool:
        return self.confidence >= 0

    @property
    def source(self) -> str:
        """The word's characters of the text layer (script marks are not)."""
        return self.plain or self.text


class Fragment(NamedTuple):
    """A run of words on one baseline with no wide gap inside: a line of a
    paragraph, a heading, a table cell, one side of a two-column page."""

    words: tuple[Word, ...]
    bbox: BBox
    line_id: int
    text: str = ""
    size: float = 0.0  # the size most of its characters are set in
    bold: bool = False  # at least 80% of its characters bold
    joined: tuple[Word, ...] = ()  # the page's words it was made of, when scripts were joined to its line (its words are new)

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]


def make_fragment(words: list[Word] | tuple[Word, ...], line_id: int) -> Fragment:
    weights: dict[float, int] = {}
    chars = bold = 0
    x0 = y0 = float("inf")
    x1 = y1 = float("-inf")
    for w in words:
        n = len(w.text)
        key = round(w.size, 1)
        weights[key] = weights.get(key, 0) + n
        chars += n
        if w.bold:
            bold += n
        b = w.bbox
        if b[0] < x0:
            x0 = b[0]
        if b[1] < y0:
            y0 = b[1]
        if b[2] > x1:
            x1 = b[2]
        if b[3] > y1:
            y1 = b[3]
    size = max(weights, key=lambda s: (weights[s], s)) if weights else 0.0
    return Fragment(tuple(words), (x0, y0, x1, y1), line_id, " ".join(w.text for w in words), size, chars > 0 and bold >= 0.8 * chars)


TALL_GLYPH_EM = 1.5  # a word's box this many times its size high was stretched by a glyph's ascent or descent


def line_extent(f: Fragment) -> tuple[float, float]:
    """The top and bottom of the line a fragment is set on: its words of an
    ordinary height (at most :data:`TALL_GLYPH_EM` of their size), not a
    math glyph whose box a font's ascent or descent stretched over the next
    line or a fraction's bar. A fragment of tall words only is given a
    line's height (its size) about its middle, so that a lone ``∀`` or
    ``∑`` does not join its row to the next line's."""
    ordinary = [w.bbox for w in f.words if w.bbox[3] - w.bbox[1] <= TALL_GLYPH_EM * w.size]
    if len(ordinary) == len(f.words):
        return f.bbox[1], f.bbox[3]
    if not ordinary:  # tall glyphs only (a lone ``∀``, ``∑``): a line's height about their middle
        middle = (f.bbox[1] + f.bbox[3]) / 2
        return middle - f.size / 2, middle + f.size / 2
    return min(b[1] for b in ordinary), max(b[3] for b in ordinary)


@dataclass(frozen=True)
class Rule:
    """A horizontal or vertical line segment drawn on the page (a stroked
    line, a thin filled rectangle, or one edge of a rectangle)."""

    x0: float
    y0: float
    x1: float
    y1: float
    horizontal: bool

    @property
    def length(self) -> float:
        return (self.x1 - self.x0) if self.horizontal else (self.y1 - self.y0)

    @property
    def pos(self) -> float:
        """y of a horizontal rule, x of a vertical one."""
        return (self.y0 + self.y1) / 2 if self.horizontal else (self.x0 + self.x1) / 2

    @property
    def bbox(self) -> BBox:
        return (self.x0, self.y0, self.x1, self.y1)


@dataclass(frozen=True, eq=False)
class PageContent:
    page_no: int  # 1-based
    width: float
    height: float
    words: tuple[Word, ...]
    fragments: tuple[Fragment, ...]
    rules: tuple[Rule, ...]
    graphics: tuple[BBox, ...]  # paths with curves or slanted lines: plots, drawings (not tables)
    path_count: int
    image_cover: float  # fraction of the page covered by images (computed only for near-empty pages)
    stream_errors: tuple[str, ...] = ()
    unmapped: int = 0  # glyphs without a readable character, left out of ``words``
    # letters MuPDF read on a right-to-left line but put in none of its words (.read.rtl.rtl_words):
    # in no place, so the page's account fails
    lost: int = 0
    # a region of the page set sideways (a table turned a quarter beside upright
    # prose), read in its own frame: its words are not in ``words``
    sideways: PageContent | None = None
    sideways_matrix: object = None  # the quarter turn from the page to that frame
    # script lines MuPDF set apart from their text line → that line (read/scripts), joined in prose
    script_hosts: dict[int, int] = field(default_factory=dict)
    # horizontal strokes shorter than a rule (``rule_min_length``): inline fraction bars (read/fractions)
    bars: tuple[Rule, ...] = ()
    # characters of the text layer no reader sees (counted in ``words`` too): drawn invisibly
    # (:func:`.read.hidden.invisible_chars`), or under an image over most of the page
    # (:func:`.read.hidden.text_under_image`)
    invisible: int = 0
    # words an opaque shape drawn after them covers (:func:`.read.hidden.painted_over`), or drawn
    # in white on white (:func:`.read.hidden.pale_words`): not on the page, kept out of ``words``
    # and recorded as furniture of kind ``hidden``
    hidden: tuple[Word, ...] = ()
    # scanned pictures with no text over them (:func:`.read.scans.scanned_regions`): each box
    # (page coordinates) and the share of the page it covers; the page needs OCR
    scanned: tuple[tuple[BBox, float], ...] = ()
    # pictures on the page (:func:`.read.pictures.picture_regions`): each box, page coordinates, and
    # the images it is drawn from; lifted as blocks of kind ``picture`` that lift no words
    pictures: tuple[Picture, ...] = ()
    # figures drawn in vector graphics (:func:`.read.pictures.drawn_figures`), with the pictures
    # they overlap: lifted as blocks of kind ``picture`` holding the words over them (a plot's labels)
    figures: tuple[BBox, ...] = ()
    # passages a line is drawn through (:func:`.read.strikes.mark_struck`): their words are written ``~~…~~``
    struck: tuple[str, ...] = ()
    # the page was read by OCR (read/scan_page.py): what read it and how sure it was; None: its text layer
    ocr: OcrRead | None = None

    @property
    def all_words(self) -> tuple[Word, ...]:
        """The page's words and its sideways region's."""
        return self.words + (self.sideways.words if self.sideways is not None else ())

    @property
    def chars(self) -> int:
        """Characters of the page's text layer: its words' (its sideways
        region's too), the unmapped glyphs and the letters lost."""
        return sum(len(w.source) for w in self.all_words + self.hidden) + self.unmapped + self.lost


@dataclass(frozen=True)
class OcrRead:
    """How a page was read by OCR: the engine, its version, languages and
    dpi, how many words it read and how many fell below the confidence floor,
    and whether the page stays blocked (nothing read, or mostly uncertain:
    ``blocked`` says why)."""

    engine: str
    version: str
    languages: str
    dpi: int
    words: int
    uncertain: int
    blocked: str = ""


class Picture(NamedTuple):
    """An image's picture on a page: its box, and the images (their xrefs)
    it is drawn from, where the page's resources name them unambiguously
    (:func:`.read.pictures.repeated_images`)."""

    bbox: BBox
    images: frozenset[int] = frozenset()


def fragments_in(bbox: BBox, fragments, pad: float = 1.0) -> list[Fragment]:
    return [f for f in fragments if contains_point(bbox, *center(f.bbox), pad=pad)]


def dominant_size(words, default: float) -> float:
    """The size most characters of ``words`` are set in, to the half point
    (the smaller of equals); ``default`` when there are none."""
    weights: dict[float, int] = {}
    for w in words:
        key = round(w.size * 2) / 2
        weights[key] = weights.get(key, 0) + len(w.text)
    if not weights:
        return default
    return max(weights, key=lambda s: (weights[s], -s))
