"""Glyph-level finders on a PDF's pages, each re-reading the pages it is
given: scripts MuPDF set on lines of their own and the reader left apart,
lines of math that lost a glyph with no Unicode mapping, pairs of words
stacked over each other that no word holds whole, and lone operators of a
formula set in words. Boxes in the parser's coordinates.
"""

from __future__ import annotations

import re

from ....settings.pdf import resolve_pdf_settings
from ..blocks.lines import word_formula_operators
from ..geometry import BBox, center, contains_point
from ..read import page as pdf_page
from ..read.fractions import (
    barred_pairs,
    fraction_bars,
    join_inline_fractions,
    stacked_pairs,
)
from ..read.glyphs import UNMAPPED
from ..read.orientation import reading_matrix, turned_box, unrotated_size
from ..read.page import read_page
from ..read.rules import read_drawings
from ..read.script_marks import attach_script_fragments
from ..read.scripts import LooseScript, attach_script_lines, unattached_script_lines
from ..records import LONE_OPERATORS, Word, make_fragment
from .figures import FIGURE_LABEL_GAP, FIGURE_MIN_SIDE
from .pages import page_dicts, reading_lines


def loose_scripts_in(data: bytes, page_nos: list[int]) -> list[tuple[int, str, BBox]]:
    """``(page_no, text, bbox)`` of each script MuPDF set on a line of its
    own on the pages ``page_nos`` of the PDF ``data`` that the page reader
    could not give back to its line (:func:`..read.scripts.unattached_script_lines`),
    or that it found but then left apart (MuPDF cut the line's words
    otherwise than its characters: the page reader's ``script_hosts`` lack
    it), its box in the parser's coordinates (the page turned to read)."""
    found: list[tuple[int, str, BBox]] = []
    for page_no, page, page_dict in page_dicts(data, page_nos):
        lines, direction = reading_lines(page_dict)
        attached = attach_script_lines(lines, direction)
        loose = unattached_script_lines(lines, direction, attached)
        if attached:  # only pages with a script set apart are read again
            # called through its module, so that a test can make the reader leave a script apart
            kept = pdf_page.read_page(page, resolve_pdf_settings(None)).script_hosts
            loose += [
                LooseScript(k, a.host, "".join(sp["text"] for sp in lines[k]["spans"]).strip(), tuple(lines[k]["bbox"]))
                for k, a in attached.items()
                if k not in kept
            ]
        if loose:
            matrix = reading_matrix(page_dict, *unrotated_size(page))
            found += [(page_no, s.text, turned_box(s.bbox, matrix)) for s in loose]
    return found


MATH_LINE = re.compile(r"[=<>≤≥±×÷]")  # a line holding a relation or an operator is a line of math
# a word of prose: three letters or more in a row. A line that lost a glyph and
# holds none (``⌊d``, ``DP Γ_3``, ``ℓr −c``: a symbol with its scripts) is math
PROSE_WORD = re.compile(r"[^\W\d_]{3,}")
BULLET_REACH_EM = 1.5  # a glyph with something this close before it on its line is inside a line, not a list's bullet


def _bullet(line: dict, lines: list[dict | None]) -> bool:
    """Whether a line that is nothing but unmapped glyphs is a list's
    bullet: nothing stands just before it on its baseline, and words follow
    it there; a stretched parenthesis or an ``∫`` has its expression's text
    just before it (``softmax``, ``as``)."""
    x0, y0, x1, y1 = line["bbox"]
    size = max((sp.get("size", 0.0) for sp in line["spans"]), default=0.0) or (y1 - y0)
    before = after = False
    for other in lines:
        if other is None or other is line:
            continue
        ox0, oy0, ox1, oy1 = other["bbox"]
        if min(oy1, y1) - max(oy0, y0) < 0.5 * min(oy1 - oy0, y1 - y0):
            continue  # not on its line
        if "".join(sp["text"] for sp in other["spans"]).strip():
            before |= 0 <= x0 - ox1 <= BULLET_REACH_EM * size
            after |= 0 <= ox0 - x1 <= 3 * BULLET_REACH_EM * size
    return after and not before


def lost_glyphs_in(data: bytes, page_nos: list[int]) -> list[tuple[int, str, BBox]]:
    """``(page_no, text, bbox)`` of each MuPDF line of the pages ``page_nos``
    that holds a glyph with no Unicode mapping (U+FFFD, a private-use code
    point: the page reader shows it as U+FFFD where it stood, which says
    nothing of what it was, or leaves out a bullet) and is math: the line
    holds a relation or an operator (:data:`MATH_LINE`), or is nothing but
    such glyphs and no list's bullet (:func:`_bullet`: a stretched delimiter
    or a big operator drawn on a line of its own), or holds no word of
    prose (:data:`PROSE_WORD`; a list item led by its bullet has its words).
    A list's bullet or a quotation mark among words is not math (a
    stretched parenthesis is). The text shows each lost glyph as ``⍰``;
    boxes in the parser's coordinates."""
    found: list[tuple[int, str, BBox]] = []
    for page_no, page, page_dict in page_dicts(data, page_nos):
        lines, _ = reading_lines(page_dict)
        hits = []
        for line in lines:
            if line is None:
                continue
            text = "".join(sp["text"] for sp in line["spans"])
            if not UNMAPPED.search(text):
                continue
            plain = UNMAPPED.sub("", text)
            if plain.strip():
                math = bool(MATH_LINE.search(plain)) or not PROSE_WORD.search(plain)
            else:
                math = not _bullet(line, lines)
            if math:
                hits.append((UNMAPPED.sub("⍰", text).strip(), tuple(line["bbox"])))
        if hits:
            matrix = reading_matrix(page_dict, *unrotated_size(page))
            found += [(page_no, text, turned_box(box, matrix)) for text, box in hits]
    return found


def _span_words(page_dict: dict) -> list:
    """A page's non-blank spans running left to right as one-line
    fragments of words (a cheap stand-in for its words, for a first pass)."""
    out = []
    for block in page_dict["blocks"]:
        if block.get("type", 0) != 0:
            continue
        for line in block["lines"]:
            if tuple(round(v) for v in line.get("dir", (1, 0))) != (1, 0):
                continue
            for sp in line["spans"]:
                text = sp["text"].strip()
                if text:
                    out.append(Word(text, tuple(sp["bbox"]), float(sp["size"]), False, False, -1))
    return [make_fragment(out, -1)] if out else []


def _holder(fragments: list, box: BBox, text: str):
    """The word of ``fragments`` over the middle of ``box`` that holds ``text``
    (its blanks aside: a numerator of several words is one fraction word)."""
    x, y = center(box)
    text = "".join(text.split())
    for f in fragments:
        if not contains_point(f.bbox, x, y, pad=0.5):
            continue
        for w in f.words:
            if contains_point(w.bbox, x, y, pad=0.5) and text in w.source:
                return w
    return None


def stacked_pairs_in(data: bytes, page_nos: list[int]) -> list[tuple[int, str, BBox]]:
    """``(page_no, "upper / lower", bbox)`` for each pair of small spans
    set one over the other beside a line's word
    (:func:`..read.fractions.stacked_pairs`: a fraction, a binomial
    coefficient, stacked scripts) on the pages ``page_nos`` that the page
    reader leaves in two words: the page is read as the parser reads prose
    (scripts set apart joined to their line, inline fractions joined:
    :func:`..read.script_marks.attach_script_fragments`,
    :func:`..read.fractions.join_inline_fractions`), and a pair is resolved
    when one word holds both spans. So is a short span over a short drawn
    bar and one under it (:func:`..read.fractions.barred_pairs`: a fraction
    set in the line's own size). A pair within :data:`FIGURE_LABEL_GAP` of
    a raster image is a figure's labels, read as printed. Only a page whose
    spans hold such a pair is read so. Boxes in the parser's coordinates."""
    settings = resolve_pdf_settings(None)
    found: list[tuple[int, str, BBox]] = []
    for page_no, page, page_dict in page_dicts(data, page_nos):
        spans = _span_words(page_dict)
        if not spans:
            continue
        pairs = stacked_pairs(spans)
        drawn = read_drawings(page, None, settings)
        rules, short = drawn.rules, drawn.bars
        pairs += barred_pairs(spans, short + [r for r in rules if r.horizontal])
        if not pairs:
            continue
        matrix = reading_matrix(page_dict, *unrotated_size(page))
        content = read_page(page, settings)
        fragments = attach_script_fragments(list(content.fragments), content.script_hosts)
        fragments = join_inline_fractions(fragments, fraction_bars(content))

        def box(b):
            return b if matrix is None else turned_box(b, matrix)

        # a figure's labels beside its raster images are read as printed (figure_labels)
        # (an image a point or two thin is a rule or a fraction bar drawn as a picture)
        images = [b for b in (tuple(info["bbox"]) for info in page.get_image_info()) if min(b[2] - b[0], b[3] - b[1]) > FIGURE_MIN_SIDE]
        pairs = [p for p in pairs if not any(contains_point(img, *center(p.bbox), pad=FIGURE_LABEL_GAP) for img in images)]
        seen: set[tuple] = set()
        for pair in pairs:
            upper = _holder(fragments, box(pair.upper.bbox), pair.upper.text)
            lower = _holder(fragments, box(pair.lower.bbox), pair.lower.text)
            where = tuple(round(v) for v in pair.bbox)
            if (upper is None or lower is None or upper is not lower) and where not in seen:
                seen.add(where)
                found.append((page_no, pair.text, box(pair.bbox)))
    return found


def _operator_lines(page_dict: dict) -> bool:
    """Whether a MuPDF line of the page is a lone operator (the cheap first pass)."""
    return any(
        "".join(sp["text"] for sp in line["spans"]).strip() in LONE_OPERATORS
        for block in page_dict["blocks"]
        if block.get("type", 0) == 0
        for line in block["lines"]
    )


def lone_operators_in(data: bytes, page_nos: list[int]) -> list[tuple[int, str, BBox]]:
    """``(page_no, "left = right", bbox)`` for each operator of a formula
    set in words (:func:`..blocks.lines.word_formula_operators`) on the pages
    ``page_nos`` of the PDF ``data``: its cells are read as lines of prose
    unless a block lifts them. Boxes in the parser's coordinates."""
    settings = resolve_pdf_settings(None)
    found: list[tuple[int, str, BBox]] = []
    for page_no, page, page_dict in page_dicts(data, page_nos):
        if not _operator_lines(page_dict):
            continue
        for f, a, b in word_formula_operators(list(read_page(page, settings).fragments)):
            found.append((page_no, f"{a.text[-30:]} {f.text.strip()} {b.text[:30]}", f.bbox))
    return found
