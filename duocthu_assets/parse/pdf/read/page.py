"""One PDF page read into typed records: words with their style, text
fragments, vector rules, and how much of the page images cover.

Coordinates are PDF points, top-left origin, in the page turned so that its
text reads left to right ("reading orientation"): for an ordinary page that
is the page as displayed; a landscape table set sideways on a portrait page,
or a page whose /Rotate turns its text, is turned by the quarter turns that
make most of its text horizontal (:func:`reading_matrix`).
:func:`duocthu_assets.parse.pdf.crops.render_block_crop` undoes the turn.
One MuPDF ``TextPage`` per page serves both the styled lines
(``extractDICT``) and the word boxes (``extractWORDS``).
"""

from __future__ import annotations

import bisect
import re
import statistics
import unicodedata

from ...inline_marks import scripted
from ..engine import PageImages, pymupdf, text_lines
from ..geometry import BBox
from .hidden import Fill, blank_boxes, covered_words, invisible_chars, is_pale, painted_over, pale_words, text_under_image
from ..records import Picture
from .pictures import drawn_figures, picture_regions, with_figures
from .scans import scanned_regions
from .strikes import mark_struck
from .rtl import has_rtl, joined_words, rtl_words
from .scripts import SCRIPT_MAX_CHARS, SCRIPT_MAX_SIZE_FRAC, SCRIPT_MIN_SHIFT_EM, Part, attach_script_lines, baseline_of, body_size, join_parts, readable
from ....settings.pdf import PdfSettings
from ..records import Fragment, PageContent, Rule, Word, make_fragment

TEXT_FLAGS = (
    pymupdf.TEXT_PRESERVE_WHITESPACE
    | pymupdf.TEXT_MEDIABOX_CLIP
    # no TEXT_PRESERVE_LIGATURES: "ﬁ" comes out as "fi"; no TEXT_DEHYPHENATE:
    # joining "beta-" and "lactam" is a decision we make ourselves.
    # no TEXT_CID_FOR_UNKNOWN_UNICODE (which ``page.get_text()`` sets): a glyph
    # without a Unicode mapping then comes out as U+FFFD, which we can count and
    # leave out, instead of its raw font code, which reads as a control
    # character or, worse, a wrong letter (TeX's big Σ is code 0x50, "P"; its
    # big ⟨ ⟩ are "h" and "i"; its radical is "q").
)
# Glyphs that carry no readable character: MuPDF's U+FFFD for a glyph without
# a Unicode mapping, private-use code points (a font's own symbols), and
# control characters (raw codes). Counted per page; shown as U+FFFD where they
# stood when they belong to the text (shown_glyphs), left out when they are a
# list's bullet before a line's words.
UNMAPPED = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
LOST = "\ufffd"  # a glyph with no Unicode mapping, shown where it stood


def shown_glyphs(text: str, leads_line: bool = False, next_word: str = "") -> set[int]:
    """Positions in the word ``text`` of the glyphs with no Unicode mapping
    that are shown as U+FFFD where they stood: every one, but for a list's
    bullet. Left out, the text reads whole and wrong: ``God⍰lowski`` (the
    stroke of an ``ł``) as ``Godlowski``, ``⍰30`` (a ``≤`` in a font with no
    mapping) as ``30``, ``Schemas ⍰ HR_SCHEMA`` (an arrow) as ``Schemas
    HR_SCHEMA``. A bullet is what leads its line's words (``leads_line``):
    glyphs before the first letter of the line's first word (redp5110's
    ``⍰⍰Database``, the Korean report's opening quotation mark), or a word
    of nothing but such glyphs before a word that begins with a letter, or
    alone on its line (a bullet, or a delimiter MuPDF set apart: a line of
    math that lost one is named by pdf_leaks.lost_glyphs_in). A word of such
    glyphs before a number (``⍰ 30``) is shown."""
    lost = [k for k, c in enumerate(text) if UNMAPPED.match(c)]
    if not lost:
        return set()
    readable = [k for k, c in enumerate(text) if not UNMAPPED.match(c) and not c.isspace()]
    if not readable:
        follower = UNMAPPED.sub("", next_word).strip()
        if leads_line and (not follower or follower[0].isalpha()):
            return set()
        return set(lost)
    if leads_line and text[readable[0]].isalpha():
        return {k for k in lost if k > readable[0]}
    return set(lost)


def kept_characters(text: str, leads_line: bool = False, next_word: str = "") -> list[tuple[int, str]]:
    """``(position, character)`` of what the page reader keeps of a word:
    the glyphs with no Unicode mapping it shows (:func:`shown_glyphs`) as
    U+FFFD, the others left out."""
    shown_at = shown_glyphs(text, leads_line, next_word)
    return [(k, LOST if k in shown_at else c) for k, c in enumerate(text) if k in shown_at or not UNMAPPED.match(c)]


def shown(text: str, leads_line: bool = False, next_word: str = "") -> str:
    """``text`` as the page reader keeps it (:func:`kept_characters`)."""
    return "".join(c for _, c in kept_characters(text, leads_line, next_word))


MAX_ACROSS_FRAC = 0.1  # vertical lines up to this share of a page's text are stamps or labels, read apart
MARGIN_FRAC = 0.12  # ... and any number in the outer 12% of the page's width beside the text are margin stamps
MAX_MARGIN_LINES = 4  # ... up to this many of them (more is a sideways table)
# Inline superscripts and subscripts (issue 15): a run of characters set
# smaller than the line's text and raised or lowered off its baseline is
# written ``x^3`` / ``x_i`` (``10^{−3}``, ``x_{ij}`` for a run of more than one
# character), never glued to its base (``x3``). The marks are not characters
# of the text layer: the character accounting counts ``Word.source``.
# A script MuPDF sets on a line of its own is given back to its line first
# (:mod:`duocthu_assets.parse.pdf.read.scripts`).
_BOLD_NAMES = ("bold", "black", "heavy", "semibold", "demibold", ",b")
_ITALIC_NAMES = ("italic", "oblique", ",i")


def _style_of(span: dict) -> tuple[float, bool, bool]:
    font = str(span.get("font", "")).lower()
    flags = int(span.get("flags", 0))
    bold = bool(flags & pymupdf.TEXT_FONT_BOLD) or any(n in font for n in _BOLD_NAMES)
    italic = bool(flags & pymupdf.TEXT_FONT_ITALIC) or any(n in font for n in _ITALIC_NAMES)
    return float(span.get("size", 0.0)), bold, italic


def _transform(bbox, matrix) -> BBox:
    """The box of ``bbox`` after a quarter-turn ``matrix`` (plain arithmetic:
    a pymupdf.Rect per word costs more than the rest of the word)."""
    x0, y0, x1, y1 = float(bbox[0]), float(bbox[1]), float(bbox[2]), float(bbox[3])
    if matrix is None:
        return (x0, y0, x1, y1)
    a, b, c, d, e, f = matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f
    xs = (a * x0 + c * y0 + e, a * x1 + c * y1 + e)
    ys = (b * x0 + d * y0 + f, b * x1 + d * y1 + f)
    return (min(xs), min(ys), max(xs), max(ys))


def unrotated_size(page) -> tuple[float, float]:
    r = page.rect * page.derotation_matrix if page.rotation else page.rect
    return abs(r.width), abs(r.height)


def _direction(line: dict) -> tuple[int, int]:
    dx, dy = line.get("dir", (1, 0))
    return (1, 0) if abs(dx) >= abs(dy) and dx > 0 else (-1, 0) if abs(dx) >= abs(dy) else (0, 1) if dy > 0 else (0, -1)


def reading_direction(page_dict: dict) -> tuple[int, int]:
    """The direction most characters of the page run in."""
    weight = {(1, 0): 0, (0, 1): 0, (0, -1): 0, (-1, 0): 0}
    for block in page_dict["blocks"]:
        if block.get("type", 0) != 0:
            continue
        for line in block["lines"]:
            weight[_direction(line)] += sum(len(sp["text"]) for sp in line["spans"])
    direction = max(weight, key=lambda k: (weight[k], k == (1, 0)))
    return (1, 0) if weight[direction] <= weight[(1, 0)] else direction


def reading_matrix(page_dict: dict, width: float, height: float):
    """The quarter turn (and shift) taking the unrotated page, where MuPDF
    reports text, to reading orientation: the direction most characters run
    in becomes left to right. None when the text already runs that way."""
    return turn_matrix(reading_direction(page_dict), width, height)


def turn_matrix(direction: tuple[int, int], width: float, height: float):
    """The quarter turn (and shift) taking text that runs in ``direction`` on
    a ``width`` × ``height`` page to left to right; None for (1, 0)."""
    if direction == (1, 0):
        return None
    if direction == (0, 1):  # text runs down the page: turn a quarter clockwise back
        return pymupdf.Matrix(0, -1, 1, 0, 0, width)
    if direction == (0, -1):  # text runs up the page
        return pymupdf.Matrix(0, 1, -1, 0, height, 0)
    return pymupdf.Matrix(-1, 0, 0, -1, width, height)


def script_marks(line: dict, host: tuple[float, float] | None = None) -> list[str] | None:
    """For each character of a MuPDF line (its spans' text in order): ``"^"``
    for a superscript, ``"_"`` for a subscript, ``""`` for the line's own
    text; None when the line holds no script. A script is a span set at most
    :data:`SCRIPT_MAX_SIZE_FRAC` of the size of the line's text
    (:func:`.pdf_scripts.body_size`: a short base under a longer script,
    ``H^{dis}``, is still the text), whose origin lies at least :data:`SCRIPT_MIN_SHIFT_EM` of
    that size above or below the baseline of the line's text (measured
    across the line's direction, so a page set sideways reads the same).
    ``host`` (baseline level, size) measures a script line MuPDF set apart
    against the text line it belongs to instead (:mod:`.pdf_scripts`)."""
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
    _unmark_long_runs(spans, span_marks)
    if not any(span_marks):
        return None
    return [mark for sp, mark in zip(spans, span_marks) for _ in sp["text"]]


def _unmark_long_runs(spans: list[dict], marks: list[str]) -> None:
    """Clear the marks of a run of script spans (blank spans inside it
    included) holding more than :data:`SCRIPT_MAX_CHARS` readable
    characters: a line's smaller text set off its baseline at that length
    is another cell's text on the same MuPDF line (a Persian form's value,
    ``سازمان ملی استاندارد ايران``, beside its label), not an exponent or a
    footnote mark; script lines set apart are held to the same length."""
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


def _line_words_marks(line_marks: list[str], line_text: str) -> tuple[str, list[str]]:
    """The line's characters and marks with whitespace left out (the
    characters MuPDF's words are cut from, in order)."""
    keep = [k for k, c in enumerate(line_text) if not c.isspace()]
    return "".join(line_text[k] for k in keep), [line_marks[k] for k in keep]


OVERPRINT_TOL = 0.5  # points: a line this close to another's top, bottom and sides is drawn over it


def _is_subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(c in rest for c in short)


def overprinted_lines(lines: list[tuple[BBox, str, str, float]]) -> set[int]:
    """The lines (``(bbox, text, font, size)``, in page order) that repeat
    some of the glyphs of a longer line drawn in the same place: same font
    and size, inside its box on the same baseline, their characters a
    subsequence of its own (redp5110 p. 10 draws ``S ifi th t th …`` over
    ``Specifies that the row …``; a reader sees one line). pdfplumber's
    ``dedupe_chars`` drops such glyphs for the same reason. Pure."""
    tol = OVERPRINT_TOL
    buckets: dict[tuple[str, float, int], list[int]] = {}
    for k, (box, _text, font, size) in enumerate(lines):
        buckets.setdefault((font, size, round(box[3])), []).append(k)
    out: set[int] = set()
    for k, (box, text, font, size) in enumerate(lines):
        short = text.replace(" ", "")
        if not short:
            continue
        for key in ((font, size, round(box[3]) + d) for d in (-1, 0, 1)):
            for j in buckets.get(key, ()):
                other, otext = lines[j][0], lines[j][1].replace(" ", "")
                if (
                    j != k
                    and len(otext) > len(short)
                    and abs(other[1] - box[1]) <= tol
                    and abs(other[3] - box[3]) <= tol
                    and other[0] - tol <= box[0]
                    and box[2] <= other[2] + tol
                    and _is_subsequence(short, otext)
                ):
                    out.add(k)
                    break
            if k in out:
                break
    return out


def read_words(textpage, page_dict: dict, matrix, sideways: dict | None = None, script_hosts: dict | None = None) -> tuple[list[Word], int, int]:
    """Words of a TextPage with the style of the span each one sits in, the
    number of glyphs without a readable character (:data:`UNMAPPED`),
    which are left out of the words' text (a word of nothing else is
    dropped), and the number of letters of right-to-left lines MuPDF's
    words lost (:func:`.pdf_rtl.rtl_words`).

    ``sideways``, when given for a page read as displayed (``matrix`` None),
    receives the lines of a region set sideways inside the page (a table
    turned a quarter beside upright prose): ``{"direction": (dx, dy),
    "lines": {line ids}}``; their words' boxes are turned to read left to
    right in that region's own frame (:func:`turn_matrix`).

    ``script_hosts``, when given, receives the script lines MuPDF set apart
    from their text line (:mod:`.pdf_scripts`): ``{line id: its line's id}``;
    their words are marked against that line (``^{c(X,Y)}``) and stay on
    their own line until :func:`attach_script_fragments` joins them."""
    line_spans: list[tuple[list[float], list[tuple[float, bool, bool]]]] = []
    line_index: dict[tuple[int, int], int] = {}
    across: set[int] = set()  # lines running across the page's reading direction
    total_chars = 0
    across_lines: list[tuple[int, tuple, int]] = []
    flat_x0, flat_x1 = float("inf"), float("-inf")
    direction = reading_direction(page_dict)
    style_cache: dict[tuple[str, int, float], tuple[float, bool, bool]] = {}
    scripts: dict[int, list] = {}  # line → [its characters, their marks, how many its words consumed]
    line_dirs: dict[int, tuple[int, int]] = {}
    styled: list[tuple[BBox, str, str, float]] = []  # each line's box, text, first font and size
    flat_lines: list[dict | None] = []  # each line running in the page's reading direction (None for the others)
    for numbered, line in text_lines(page_dict):
        starts: list[float] = []
        styles: list[tuple[float, bool, bool]] = []
        for span in sorted((sp for sp in line["spans"] if sp["text"].strip()), key=lambda sp: sp["bbox"][0]):
            look = (span.get("font", ""), span.get("flags", 0), span.get("size", 0.0))
            style = style_cache.get(look)
            if style is None:
                style = style_cache[look] = _style_of(span)
            starts.append(span["bbox"][0])
            styles.append(style)
        line_index[numbered] = len(line_spans)
        line_text = "".join(sp["text"] for sp in line["spans"])
        first = next((sp for sp in line["spans"] if sp["text"].strip()), None)
        styled.append((tuple(line["bbox"]), line_text, first["font"] if first else "", round(first["size"], 1) if first else 0.0))
        marks = script_marks(line)
        if marks is not None:
            chars, kept = _line_words_marks(marks, line_text)
            scripts[len(line_spans)] = [chars, kept, 0]
        chars = sum(len(sp["text"].strip()) for sp in line["spans"])
        total_chars += chars
        line_dirs[len(line_spans)] = _direction(line)
        dx, dy = line.get("dir", (1, 0))
        if _direction(line) != direction and abs(dx * direction[0] + dy * direction[1]) < 0.5:
            # a quarter turn from the text (slanted text stays): vertical on an upright page; on a page
            # turned to read, a line upright on paper (case_03 p. 1's folio "68 The Lower Muschelkalk")
            across.add(len(line_spans))
            across_lines.append((len(line_spans), line["bbox"], chars))
        elif _direction(line) == direction:
            flat_x0, flat_x1 = min(flat_x0, line["bbox"][0]), max(flat_x1, line["bbox"][2])
        flat_lines.append(line if _direction(line) == direction and (dx == 0 or dy == 0) else None)
        line_spans.append((starts, styles))
    # a vertical line clear of the text's sides is a margin stamp; the others are a
    # sideways table or figure when they make more than MAX_ACROSS_FRAC of the page
    # (their words are then read like the rest)
    width = page_dict.get("width", 0.0)
    margin = [
        k for k, box, _ in across_lines
        if direction == (1, 0) and (box[2] <= min(flat_x0 + 1, MARGIN_FRAC * width) or box[0] >= max(flat_x1 - 1, (1 - MARGIN_FRAC) * width))
    ]
    if len(margin) > MAX_MARGIN_LINES:
        margin = []  # many vertical lines at the side: a sideways table, not stamps
    inside = [(k, chars) for k, _, chars in across_lines if k not in margin]
    side_matrix = None
    side_lines: set[int] = set()
    if sum(chars for _, chars in inside) > MAX_ACROSS_FRAC * total_chars:
        across -= {k for k, _ in inside}
        if sideways is not None and matrix is None and direction == (1, 0):
            # a region set sideways beside the upright text: read in its own frame
            turns: dict[tuple[int, int], int] = {}
            for k, chars in inside:
                turns[line_dirs[k]] = turns.get(line_dirs[k], 0) + chars
            turn = max(turns, key=lambda d: (turns[d], d))
            side_lines = {k for k, _ in inside if line_dirs[k] == turn}
            # a line of the region standing in the margin (its first row, nearest the
            # page's edge) is the region's, not a margin stamp
            boxes = {k: box for k, box, _ in across_lines}
            rx0 = min(boxes[k][0] for k in side_lines) - SIDEWAYS_PAD
            rx1 = max(boxes[k][2] for k in side_lines) + SIDEWAYS_PAD
            ry0 = min(boxes[k][1] for k in side_lines) - SIDEWAYS_PAD
            ry1 = max(boxes[k][3] for k in side_lines) + SIDEWAYS_PAD
            joined = {
                k for k in margin
                if line_dirs[k] == turn and boxes[k][2] >= rx0 and boxes[k][0] <= rx1 and boxes[k][3] >= ry0 and boxes[k][1] <= ry1
            }
            side_lines |= joined
            across -= joined
            side_matrix = turn_matrix(turn, page_dict.get("width", 0.0), page_dict.get("height", 0.0))
            sideways.update(direction=turn, lines=side_lines)
    overprints = overprinted_lines(styled)
    for k in overprints | across | side_lines:
        flat_lines[k] = None
    attached = script_lines(flat_lines, direction, styled, scripts)
    words: list[Word] = []
    unmapped = 0
    raw_words = textpage.extractWORDS()
    lost = 0
    if has_rtl("".join(s[1] for s in styled)):
        # right-to-left text: lines in reading order, a lam-alef ligature's letters in the font's
        # order, a word's pieces joined; letters MuPDF's words dropped, counted (.pdf_rtl)
        raw_words, lost = rtl_words(textpage.extractRAWDICT(sort=False), raw_words, drawn_glyphs(textpage.parent))
        raw_words = joined_words(raw_words, {key for key, k in line_index.items() if k in scripts})
    for n, (x0, y0, x1, y1, text, b_no, l_no, _w_no) in enumerate(raw_words):
        lid = line_index.get((b_no, l_no), -1)
        has_unmapped = UNMAPPED.search(text) is not None
        leads_line, next_word = False, ""  # where the word stands on its line: asked only of one holding an unmapped glyph
        if has_unmapped:
            leads_line = n == 0 or raw_words[n - 1][5:7] != (b_no, l_no)
            next_word = raw_words[n + 1][4] if n + 1 < len(raw_words) and raw_words[n + 1][5:7] == (b_no, l_no) else ""
        if lid in overprints:
            continue  # glyphs drawn again over a line already read
        marked = ""
        marks = ""
        line_scripts = scripts.get(lid)
        if line_scripts is not None:
            chars, kept, at = line_scripts
            if chars.startswith(text, at):
                line_scripts[2] = at + len(text)
                word_marks = kept[at : at + len(text)]
                if any(word_marks):
                    pairs = [(c, word_marks[k]) for k, c in kept_characters(text, leads_line, next_word)]
                    marks = "".join(m or " " for _, m in pairs)
                    marked = mark_scripts("".join(c for c, _ in pairs), [m for _, m in pairs])
            else:
                del scripts[lid]  # MuPDF cut the line's words otherwise: leave the line unmarked
                attached.pop(lid, None)  # ... and apart, as MuPDF set it
        if has_unmapped:
            kept_text = shown(text, leads_line, next_word)
            unmapped += len(text) - len(kept_text)
            text = kept_text
        if not text.strip():
            continue
        if lid >= 0 and line_spans[lid][1]:
            starts, styles = line_spans[lid]
            k = max(0, bisect.bisect_right(starts, (x0 + x1) / 2) - 1)
            size, bold, italic = styles[k]
        else:
            size, bold, italic = 0.0, False, False
        if size <= 0:
            size = max(y1 - y0, 1.0) / 1.2
        if lid in side_lines:
            box = _transform((x0, y0, x1, y1), side_matrix)
        else:
            box = (x0, y0, x1, y1) if matrix is None else _transform((x0, y0, x1, y1), matrix)
        line_id = lid if lid >= 0 else 10_000_000 + b_no * 1000 + l_no
        if marked and marked != text:
            words.append(Word(marked, box, size, bold, italic, line_id, lid in across, text, marks))
        else:
            words.append(Word(text, box, size, bold, italic, line_id, lid in across))
    if script_hosts is not None:
        script_hosts.update((k, a.host) for k, a in attached.items())
    return words, unmapped, lost


def drawn_glyphs(page):
    """For :func:`.pdf_rtl.rtl_words`: the character of the glyph the page
    draws in a box (its middle inside), read NFKC (a presentation form as
    its letter), from the page's glyph trace, read on the first question
    only; None on a page turned by /Rotate (the trace's frame is not asked)."""
    trace: list[tuple[str, tuple]] | None = None

    def drawn(box: BBox) -> str | None:
        nonlocal trace
        if page.rotation:
            return None
        if trace is None:
            trace = [(chr(c[0]), c[3]) for span in page.get_texttrace() for c in span["chars"] if c[0] > 32]
        x0, y0, x1, y1 = box
        for ch, (a, b, c, d) in trace:
            if x0 < (a + c) / 2 < x1 and y0 < (b + d) / 2 < y1:
                return unicodedata.normalize("NFKC", ch)
        return None

    return drawn


def script_lines(lines: list[dict | None], direction, styled: list[tuple], scripts: dict[int, list]):
    """The page's script lines that MuPDF set apart from their text line
    (:func:`duocthu_assets.parse.pdf.read.scripts.attach_script_lines`), each
    given its marks measured against its host in ``scripts`` (line → its
    characters, their marks, how many its words consumed)."""
    attached = attach_script_lines(lines, direction)
    for k, a in list(attached.items()):
        marks = script_marks(lines[k], (a.baseline, a.size))
        if marks is None:
            del attached[k]
            continue
        chars, kept = _line_words_marks(marks, styled[k][1])
        scripts[k] = [chars, kept, 0]
    return attached


def _part(word: Word) -> Part:
    chars = word.source
    marks = tuple(m.strip() for m in word.marks) if word.marks else ("",) * len(chars)
    return Part(word.bbox[0], word.bbox[2], chars, marks, word.line_id, word.size)


def attach_script_fragments(fragments: list[Fragment], hosts: dict[int, int]) -> list[Fragment]:
    """``fragments`` with each fragment of a script line MuPDF set apart
    (``hosts``: its line → the line it belongs to, from :func:`read_words`)
    joined to the fragment of its line it stands beside, its words and that
    fragment's made one line's words
    (:func:`duocthu_assets.parse.pdf.read.scripts.join_parts`: ``p`` + ``c(X,Y)``
    + ``1:s`` → ``p^{c(X,Y)}_{1:s}``). Run on prose only, after the blocks
    are lifted: a display formula keeps its lines as MuPDF set them. A
    script whose line is not among ``fragments`` stays apart."""
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


def read_rules(
    page,
    matrix,
    settings: PdfSettings,
    bars: list[Rule] | None = None,
    fills: list[Fill] | None = None,
    marks: list[BBox] | None = None,
    strokes: list[BBox] | None = None,
    images: PageImages | None = None,
) -> tuple[list[Rule], list[BBox], int]:
    """Horizontal and vertical segments of the page's vector graphics, the
    boxes of paths drawn with curves or slanted lines (plots, figures), and
    the number of paths. Invisible paths (white fill, zero opacity) and
    page-sized backgrounds are skipped; a rectangle contributes its four
    edges. ``bars``, when given, receives the horizontal strokes too short
    to be rules (an inline fraction's bar, :data:`BAR_MIN_LENGTH` and up),
    and the raster images drawn as thin as a bar, whatever their length;
    ``fills`` the opaque filled rectangles, white ones too, that could
    cover a word (:func:`.pdf_hidden.covered_words`) or be the ground white
    text is seen on (:func:`.pdf_hidden.pale_words`); ``marks`` the box of
    every path drawn in a visible colour (a drawn figure's axes, ticks and
    labels set as outlines: :func:`.pdf_pictures.drawn_figures`), and
    ``strokes`` the boxes of the graphics that are stroked (a plot's lines,
    a diagram's arrows — a banner's rounded shape is filled)."""
    rules: list[Rule] = []
    graphics: list[BBox] = []
    paths = page.get_cdrawings()
    page_area = page.rect.width * page.rect.height
    thick = settings.rule_max_thickness
    for path in paths:
        kind = path.get("type", "")
        if fills is not None and "f" in kind and (path.get("fill_opacity", 1.0) or 0) >= 0.99:
            pale = is_pale(path.get("fill"))
            items = path.get("items", ())
            for item in items:
                if item[0] == "re":
                    box = _transform(item[1], matrix)
                    if box[2] - box[0] > thick and box[3] - box[1] > thick:
                        if (box[2] - box[0]) * (box[3] - box[1]) <= 0.6 * page_area:
                            fills.append(Fill(box, pale))
                        elif not pale:
                            fills.append(Fill(box, pale, cover=False))  # a dark page's background
            if not pale and any(item[0] != "re" for item in items):
                fills.append(Fill(_transform(path["rect"], matrix), pale, cover=False))  # a banner's rounded box
        stroked = "s" in kind and (path.get("stroke_opacity", 1.0) or 0) > 0 and not _is_white(path.get("color"))
        filled = "f" in kind and (path.get("fill_opacity", 1.0) or 0) > 0 and not _is_white(path.get("fill"))
        if not (stroked or filled):
            continue
        if marks is not None:
            marks.append(_transform(path["rect"], matrix))
        items = path.get("items", ())
        if any(it[0] == "c" or (it[0] == "l" and abs(it[1][0] - it[2][0]) > 1 and abs(it[1][1] - it[2][1]) > 1) for it in items):
            graphics.append(_transform(path["rect"], matrix))
            if strokes is not None and stroked:
                strokes.append(graphics[-1])
        for item in items:
            op = item[0]
            if op == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                box = _transform((min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)), matrix)
                _add_segment(rules, box, thick, settings.rule_min_length, bars)
            elif op in ("re", "qu"):
                if op == "re":
                    box = _transform(item[1], matrix)
                else:
                    quad = item[1]
                    xs = [p[0] for p in quad]
                    ys = [p[1] for p in quad]
                    box = _transform((min(xs), min(ys), max(xs), max(ys)), matrix)
                w, h = box[2] - box[0], box[3] - box[1]
                if w * h > 0.6 * page_area:
                    continue  # page background or frame
                if h <= thick or w <= thick:
                    _add_segment(rules, box, thick, settings.rule_min_length, bars)
                else:
                    x0, y0, x1, y1 = box
                    for edge in ((x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)):
                        _add_segment(rules, edge, thick, settings.rule_min_length, bars)
    if bars is not None and (images or PageImages(page)).any(lambda img: min(img[2], img[3]) <= BAR_IMAGE_MAX_PX):
        # a raster image of a pixel or two drawn as thin as a bar is one: TeX drivers draw fraction
        # bars so (jcap's 1x1 image, stretched). Bars only, never rules: aaai draws its tables'
        # rules as 1-pixel inline images, and the table finders, tuned on drawn rules, would cut
        # those tables at every midrule. (Inline images are not listed by ``get_images``: only
        # pages with an image object pay for the drawing log.)
        for kind, rect in page.get_bboxlog():
            if kind in IMAGE_OPS:
                x0, y0, x1, y1 = _transform(rect, matrix)
                if y1 - y0 <= min(thick, 0.5 * (x1 - x0)) and x1 - x0 >= BAR_MIN_LENGTH:
                    bars.append(Rule(x0, (y0 + y1) / 2, x1, (y0 + y1) / 2, True))
    return rules, graphics, len(paths)


IMAGE_OPS = frozenset(("fill-image", "fill-imgmask"))  # MuPDF's bbox-log names of a raster image drawn
BAR_IMAGE_MAX_PX = 2  # an image this few pixels high or wide may be drawn as a bar


def _is_white(color) -> bool:
    return color is not None and len(color) >= 1 and all(c >= 0.97 for c in color)


BAR_MIN_LENGTH = 1.5  # points: a horizontal stroke this long and up, shorter than a rule, may be a fraction bar


def _add_segment(rules: list[Rule], box: BBox, thick: float, min_length: float, bars: list[Rule] | None = None) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if h <= thick and w >= min_length and w > h:
        y = (y0 + y1) / 2
        rules.append(Rule(x0, y, x1, y, True))
    elif bars is not None and h <= min(thick, 0.5 * w) and BAR_MIN_LENGTH <= w < min_length:
        y = (y0 + y1) / 2
        bars.append(Rule(x0, y, x1, y, True))
    elif w <= thick and h >= min_length and h > w:
        x = (x0 + x1) / 2
        rules.append(Rule(x, y0, x, y1, False))


def image_cover(page) -> float:
    """Fraction of the page area covered by images (overlaps counted once on
    a coarse grid)."""
    rect = page.rect
    if rect.is_empty:
        return 0.0
    boxes = []
    for info in page.get_image_info():
        r = pymupdf.Rect(info["bbox"]) & rect
        if not r.is_empty:
            boxes.append(r)
    if not boxes:
        return 0.0
    n = 40
    covered = 0
    for i in range(n):
        for j in range(n):
            px = rect.x0 + (i + 0.5) * rect.width / n
            py = rect.y0 + (j + 0.5) * rect.height / n
            if any(b.x0 <= px <= b.x1 and b.y0 <= py <= b.y1 for b in boxes):
                covered += 1
    return covered / (n * n)


def read_page(page, settings: PdfSettings) -> PageContent:
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    page_dict = textpage.extractDICT(sort=False)
    width, height = unrotated_size(page)
    matrix = reading_matrix(page_dict, width, height)
    if matrix is not None and abs(matrix.b) == 1:
        width, height = height, width
    sideways: dict = {}
    script_hosts: dict[int, int] = {}
    words, unmapped, lost = read_words(textpage, page_dict, matrix, sideways, script_hosts)
    side = None
    side_matrix = None
    if sideways.get("lines"):
        side_words = [w for w in words if w.line_id in sideways["lines"]]
        words = [w for w in words if w.line_id not in sideways["lines"]]
        side_matrix = turn_matrix(sideways["direction"], width, height)
        side = sideways_region(page, side_words, side_matrix, width, height, settings)
    bars: list[Rule] = []
    fills: list[Fill] = []
    marks: list[BBox] = []
    strokes: list[BBox] = []
    images = PageImages(page)  # listed once, drawn looked up once, for every finder below
    rules, graphics, path_count = read_rules(page, matrix, settings, bars, fills, marks, strokes, images)
    hidden: list[Word] = []
    if matrix is None and not page.rotation:
        # words an opaque shape drawn after them covers, or drawn in white on white: not on the page (pdf_hidden)
        gone = set(painted_over(page, words, covered_words(words, [f.bbox for f in fills if f.cover])))
        pale = [k for k in pale_words(words, page_dict, [f.bbox for f in fills if not f.pale]) if k not in gone]
        gone.update(k for k, blank in zip(pale, blank_boxes(page, [words[k].bbox for k in pale])) if blank)
        hidden = [w for k, w in enumerate(words) if k in gone]
        words = [w for k, w in enumerate(words) if k not in gone]
    words, struck = mark_struck(words, rules + bars, marks)
    fragments = words_to_fragments(words, settings)
    char_count = sum(len(w.source) for w in words)
    cover = image_cover(page) if char_count < settings.ocr_min_chars * 4 else 0.0
    unseen = invisible_chars(page_dict)
    if char_count > unseen:  # of the drawn text, what lies under a scan of the page
        unseen += round(text_under_image(page, images) * (char_count - unseen))
    # a page an OCR program has read (text no reader sees) is judged by its OCR layer (pdf.ocr_layer)
    scanned = [] if unseen else scanned_regions(page, words, (lambda box: _transform(box, matrix)) if matrix is not None else None, images)
    # pictures: on an upright page only (a turned page's boxes are in another frame), not on a page an OCR program read
    pictures: list[Picture] = []
    figures: list[BBox] = []
    if matrix is None and not page.rotation and not unseen:
        pictures, figures = with_figures(picture_regions(page, words, [box for box, _ in scanned], images), drawn_figures(strokes, marks, words, width, height))
    return PageContent(
        sideways=side,
        sideways_matrix=side_matrix,
        page_no=page.number + 1,
        width=width,
        height=height,
        words=tuple(words),
        fragments=tuple(fragments),
        rules=tuple(rules),
        graphics=tuple(graphics),
        path_count=path_count,
        image_cover=cover,
        unmapped=unmapped,
        lost=lost,
        script_hosts=script_hosts,
        bars=tuple(bars),
        invisible=unseen,
        hidden=tuple(hidden),
        scanned=tuple(scanned),
        pictures=tuple(pictures),
        figures=tuple(figures),
        struck=tuple(struck),
    )


SIDEWAYS_PAD = 12.0  # points around a sideways region's words within which its rules are its own


def sideways_region(page, words: list[Word], matrix, width: float, height: float, settings: PdfSettings) -> PageContent:
    """The sideways region of a page as a page of its own, in its reading
    frame (``matrix`` turns the page into it): its words, their fragments,
    and the rules and drawings around them, turned the same way."""
    x0 = min(w.bbox[0] for w in words) - SIDEWAYS_PAD
    y0 = min(w.bbox[1] for w in words) - SIDEWAYS_PAD
    x1 = max(w.bbox[2] for w in words) + SIDEWAYS_PAD
    y1 = max(w.bbox[3] for w in words) + SIDEWAYS_PAD
    rules, graphics, path_count = read_rules(page, matrix, settings)

    def within(b) -> bool:  # its middle lies in the region
        return x0 <= (b[0] + b[2]) / 2 <= x1 and y0 <= (b[1] + b[3]) / 2 <= y1

    turned_w, turned_h = (height, width) if abs(matrix.b) == 1 else (width, height)
    return PageContent(
        page_no=page.number + 1,
        width=turned_w,
        height=turned_h,
        words=tuple(words),
        fragments=tuple(words_to_fragments(words, settings)),
        rules=tuple(r for r in rules if within(r.bbox)),
        graphics=tuple(g for g in graphics if within(g)),
        path_count=path_count,
        image_cover=0.0,
    )


def body_font_size(pages: list[PageContent]) -> float:
    """The size most characters of the document are set in."""
    weights: dict[float, int] = {}
    for page in pages:
        for w in page.words:
            key = round(w.size * 2) / 2
            weights[key] = weights.get(key, 0) + len(w.text)
    if not weights:
        return 10.0
    return max(weights, key=lambda s: (weights[s], -s))


def median(values, default: float) -> float:
    values = list(values)
    return statistics.median(values) if values else default
