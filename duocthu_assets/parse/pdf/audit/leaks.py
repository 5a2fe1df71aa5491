"""Second opinion on a PDF's lifted tables: rows left outside a table, and
running text taken into one.

Independent of how the finders drew a table's box, the text just under it
tells whether the box is complete: a line directly below (within a couple
of the table's row pitches) whose pieces line up with two or more of the
table's columns is a row the table lost. The pieces of a table row start,
end or centre where the table's cells do; a note or a paragraph under the
table is one run of words and lines up with one column at most.

    block_grid        fragments inside a table → its column anchors and row pitch
    rows_below        the lines directly under it, outside every block
    aligned_columns   how many distinct columns a line lines up with
    leaked_rows       all of it, for one page
    prose_lines_in    lines of running text inside a block (prose swallowed)
    loose_cell_lines  a formula's cell lines left just over or under its block
    formula_goes_on   a formula ending with an operator, its next line left in prose

Pure: fragments and boxes in, findings out. :func:`find_leaks` reads the
pages of a PDF with the parser's own page reader and runs it per page.
"""

from __future__ import annotations

import bisect
import re
import statistics
from dataclasses import dataclass

from ...encoding.mojibake import misencoding
from ..geometry import BBox, center, contains_point, union
from ..read.rules import merge_rules
from ..records import Fragment, Rule
from ..records import fragments_in
from ..blocks.scoring import text_rows
from ..records import LONE_OPERATORS, MATH_CHAR, SCRIPT_MARK, is_bad_glyph, is_formula_piece, is_latin_or_greek, is_math_char
from ..blocks.columns import ANCHOR_TOL, Grid, aligned_columns, near
from ..blocks.lines import cell_lines_outside, ends_with_operator, lines_under, outside, word_formula_operators

MIN_ALIGNED = 2  # a leaked row lines up with at least this many columns
PROSE_MIN_WORDS = 9  # one run of this many words is a line of running text
MAX_WRAPPED = 2  # lines of one piece on a column's left edge (a wrapped cell) stepped over between rows


@dataclass(frozen=True)
class Leak:
    page_no: int
    block_index: int  # which of the page's blocks lost the row
    text: str
    bbox: BBox
    columns: int  # how many of the block's columns the line lines up with
    what: str = "table row"  # or "formula cell line" (:func:`loose_cell_lines`)


def _anchors(values: list[float], min_count: int = 2) -> tuple[float, ...]:
    """Positions that at least ``min_count`` values share (within the tolerance)."""
    out: list[float] = []
    values = sorted(values)
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] - values[i] <= ANCHOR_TOL:
            j += 1
        if j - i + 1 >= min_count:
            out.append(statistics.fmean(values[i : j + 1]))
        i = j + 1
    return tuple(out)


def block_grid(inside: list[Fragment]) -> Grid | None:
    """The column anchors and row pitch of a table's fragments; None when
    the block has fewer than two rows."""
    rows = text_rows(inside)
    if len(rows) < 2:
        return None
    tops = [min(f.bbox[1] for f in r) for r in rows]
    pitches = [b - a for a, b in zip(tops, tops[1:]) if b > a]
    heights = [f.bbox[3] - f.bbox[1] for f in inside]
    pitch = statistics.median(pitches) if pitches else statistics.median(heights) * 1.3
    return Grid(
        _anchors([f.bbox[0] for f in inside]),
        _anchors([f.bbox[2] for f in inside]),
        _anchors([center(f.bbox)[0] for f in inside]),
        max(pitch, statistics.median(heights)),
    )


def rows_below(block: BBox, fragments: list[Fragment], blocks: list[BBox], grid: Grid) -> list[list[Fragment]]:
    """Lines outside every block, under ``block`` and within its width,
    each starting within two row pitches of the one above it (the first of
    the block's bottom)."""
    x0, _, x1, y1 = block
    free = [
        f
        for f in fragments
        if f.bbox[1] >= y1 - 2
        and f.bbox[0] >= x0 - 3 * ANCHOR_TOL
        and f.bbox[2] <= x1 + 3 * ANCHOR_TOL
        and not any(contains_point(b, *center(f.bbox), pad=1.0) for b in blocks)
    ]
    out: list[list[Fragment]] = []
    bottom = y1
    for row in text_rows(free):
        top = min(f.bbox[1] for f in row)
        if top - bottom > 2.0 * grid.pitch:
            break
        out.append(row)
        bottom = max(f.bbox[3] for f in row)
    return out


def leaked_rows(page_no: int, fragments: list[Fragment], blocks: list[BBox], other_blocks: list[BBox] = ()) -> list[Leak]:
    """The lines under each table of ``blocks`` that line up with its
    columns, down to the first line that does not (text inside any block,
    ``other_blocks`` too, is not free). A line of one piece starting on a
    column's left edge is a wrapped cell's next line: stepped over (up to
    :data:`MAX_WRAPPED` in a row), not the end of the rows (aaai p. 4:
    ``marked as needing improvement`` under the block hid the two rows of
    Table 1 under it)."""
    every = list(blocks) + list(other_blocks)
    leaks: list[Leak] = []
    for k, box in enumerate(blocks):
        inside = [f for f in fragments if contains_point(box, *center(f.bbox), pad=1.0)]
        grid = block_grid(inside)
        if grid is None:
            continue
        wrapped = 0
        for row in rows_below(box, fragments, every, grid):
            n = aligned_columns(row, grid)
            # pieces of the other column beside it (a caption across the gutter) aside
            pieces = [f for f in row if aligned_columns([f], grid)]
            column = near(pieces[0].bbox[0], grid.lefts) if len(pieces) == 1 else None
            if column and not _long(pieces[0]) and wrapped < MAX_WRAPPED:  # not the first column: a paragraph starts there
                wrapped += 1  # a cell's next line, on a column's left edge: the rows may go on under it
                continue
            if len(row) < MIN_ALIGNED or n < MIN_ALIGNED:
                break
            wrapped = 0
            leaks.append(Leak(page_no, k, " ".join(f.text for f in row), union(f.bbox for f in row), n))
    return leaks


def formula_goes_on(page_no: int, fragments: list[Fragment], formulas: list[BBox], blocks: list[BBox] = ()) -> list[Leak]:
    """A formula whose last line ends with an operator and a line set solid
    under it, outside every block: the rest of the formula read as prose
    (what :func:`continued_lines` could not take: a line holding prose)."""
    free = outside(fragments, [*formulas, *blocks])
    return [
        Leak(page_no, k, g.text, g.bbox, 0, "line a formula goes on into")
        for k, box in enumerate(formulas)
        if ends_with_operator(box, fragments)
        for g in lines_under(box, free)[:1]
    ]


def loose_cell_lines(page_no: int, fragments: list[Fragment], formulas: list[BBox], blocks: list[BBox] = ()) -> list[Leak]:
    """Lines of a formula's cell left just outside its block: a line
    outside every block, set solid over or under a line inside one of
    ``formulas`` (:func:`set_solid`) and across that line's stretch (its
    ends within :data:`CELL_REACH_EM` ems, or centred on it and at most
    :data:`CENTRED_WIDER` times as wide; narrower than the formula,
    :data:`CELL_OF_BLOCK`), with no paragraph line set solid against it
    (:func:`cell_line`), unless the formula's line has words of prose
    beside it (a formula inline in a paragraph's line, aaai p. 2). A
    paragraph's line runs the text's width, so a line just over a display
    formula is not one; the next line of a numerator, of a denominator or
    of a cell set in words beside the bar is (50/2026/NĐ-CP p. 16 read a
    fraction's first numerator line, its last denominator line and the
    cells' other lines as one garbled sentence of prose; IEEE p. 3 a
    ``max``'s second limit line, ``d(x,y)=1``)."""
    free = outside(fragments, [*formulas, *blocks])
    return [
        Leak(page_no, k, g.text, g.bbox, 0, "formula cell line")
        for k, box in enumerate(formulas)
        for g in cell_lines_outside(box, fragments, free)
    ]


def _long(f: Fragment) -> bool:
    """One run of many words (dot leaders and numbers are not words)."""
    return sum(1 for w in f.words if sum(c.isalpha() for c in w.text) >= 2) >= PROSE_MIN_WORDS


CELL_RULE_TOL = 2.0  # points: a rule ending this close to a line's edge still runs past it


def in_ruled_cell(line: BBox, horizontal: list[Rule], vertical: list[Rule]) -> bool:
    """The line lies in a cell a table draws: a horizontal rule over it and
    one under it, each running its whole width, and a column rule beside it
    running its whole height (dpr's Table 7, passages in the cells of a
    ruled grid). A paragraph taken in under a table's last rule, or two
    columns of prose with no rule beside them, lie in no such cell. Pure."""
    x0, y0, x1, y1 = line
    tol = CELL_RULE_TOL
    across = [r for r in horizontal if r.x0 <= x0 + tol and r.x1 >= x1 - tol]
    beside = any(r.y0 <= y0 + tol and r.y1 >= y1 - tol and (r.pos <= x0 + tol or r.pos >= x1 - tol) for r in vertical)
    return beside and any(r.pos <= y0 + tol for r in across) and any(r.pos >= y1 - tol for r in across)


def prose_lines_in(block: BBox, fragments: list[Fragment], rules: list[Rule] = ()) -> list[Fragment]:
    """Fragments inside ``block`` that are lines of running text: a long run
    of words alone on its row (a table's long cell has short cells beside
    it), or beside another long run (two columns of prose side by side). A
    first row of one line centred over the table is its title row; a line
    in a cell drawn by the block's ``rules`` (:func:`in_ruled_cell`) is a
    long cell, not prose."""
    inside = [f for f in fragments if contains_point(block, *center(f.bbox), pad=1.0)]
    own = [r for r in rules if contains_point(block, *r.bbox[:2], pad=2.0) and contains_point(block, *r.bbox[2:], pad=2.0)]
    horizontal, vertical = merge_rules(own, CELL_RULE_TOL) if own else ([], [])
    out: list[Fragment] = []
    for k, row in enumerate(text_rows(inside)):
        if k == 0 and len(row) == 1 and abs(center(row[0].bbox)[0] - (block[0] + block[2]) / 2) <= 0.1 * (block[2] - block[0]):
            continue  # one line centred over the table: its spanning title row
        long = [f for f in row if _long(f)]
        if long and (len(row) == 1 or len(long) >= 2):
            out += [f for f in long if not in_ruled_cell(f.bbox, horizontal, vertical)]
    return out


@dataclass(frozen=True)
class Inspection:
    leaks: tuple[Leak, ...]
    prose_in_blocks: tuple[tuple[int, str], ...]  # (page_no, text) of running-text lines inside a table


def inspect_tables(data: bytes, tables: list[tuple[int, BBox]], blocks: list[tuple[int, BBox]] = (), formulas: list[tuple[int, BBox]] = ()) -> Inspection:
    """:func:`leaked_rows` and :func:`prose_lines_in` on every page of the
    PDF ``data`` that holds one of ``tables`` (``(page_no, bbox)`` in the
    parser's coordinates); ``blocks`` are every lifted block (formulas too),
    whose text is not free; :func:`loose_cell_lines` on every page that
    holds one of ``formulas``."""
    from ..engine import open_pdf
    from ..read.page import read_page
    from ....settings.pdf import resolve_pdf_settings

    by_page: dict[int, list[BBox]] = {}
    for page_no, bbox in tables:
        by_page.setdefault(page_no, []).append(tuple(bbox))
    by_formula: dict[int, list[BBox]] = {}
    for page_no, bbox in formulas:
        by_formula.setdefault(page_no, []).append(tuple(bbox))
    others: dict[int, list[BBox]] = {}
    for page_no, bbox in blocks:
        others.setdefault(page_no, []).append(tuple(bbox))
    settings = resolve_pdf_settings(None)
    leaks: list[Leak] = []
    prose: list[tuple[int, str]] = []
    doc = open_pdf(data)
    try:
        for page_no in sorted(set(by_page) | set(by_formula)):
            if not 1 <= page_no <= doc.page_count:
                continue
            content = read_page(doc[page_no - 1], settings)
            frags = list(content.fragments)
            boxes = by_page.get(page_no, [])
            extra = [b for b in others.get(page_no, []) if b not in boxes]
            leaks += leaked_rows(page_no, frags, boxes, extra)
            for box in boxes:
                prose += [(page_no, f.text) for f in prose_lines_in(box, frags, list(content.rules))]
            cells = by_formula.get(page_no, [])
            if cells:
                rest = [b for b in others.get(page_no, []) + boxes if b not in cells]
                leaks += loose_cell_lines(page_no, frags, cells, rest) + formula_goes_on(page_no, frags, cells, rest)
    finally:
        doc.close()
    return Inspection(tuple(leaks), tuple(prose))


# --- flattened math in prose ---------------------------------------------------------

MATH_WINDOW = 10  # tokens
MATH_WINDOW_MIN = 7  # of them fragments of a formula
MAX_BAD_GLYPHS = 2  # U+FFFD / private-use characters a prose text may hold


def _flattened_token(token: str) -> bool:
    """A piece of a *flattened* formula: :func:`is_formula_piece`, except a
    token whose scripts are marked (``x^2``, ``10^{−3}``, ``x_i``), which
    reads as it was set; a bad glyph is flattened wherever it is."""
    if SCRIPT_MARK.search(token) and not any(is_bad_glyph(c) for c in token):
        return False
    return is_formula_piece(token)


def flattened_window(text: str) -> list[str] | None:
    """The first run of :data:`MATH_WINDOW` tokens of ``text`` of which
    :data:`MATH_WINDOW_MIN` are flattened formula pieces, or None."""
    # dot leaders and ellipses (". . . .") are neutral: tables of contents
    tokens = [t for t in text.split() if t.strip(".…·,")]
    flags = [_flattened_token(t) for t in tokens]
    run = sum(flags[:MATH_WINDOW])
    for k in range(len(tokens) - MATH_WINDOW + 1):
        if k:
            run += flags[k + MATH_WINDOW - 1] - flags[k - 1]
        if run >= MATH_WINDOW_MIN:
            return tokens[k : k + MATH_WINDOW]
    return None


def _letters_only(token: str) -> bool:
    return token.isalpha() and token.islower() and all(is_latin_or_greek(c) for c in token)


def window_kind(window: list[str]) -> str:
    """What a flagged run of tokens is, for the message: lowercase letters
    and letter pairs with nothing else (``ifi th t th i i i t b i``) are
    an unreadable text-layer line (a font whose spacing or glyphs lost the
    words); punctuation runs with no letter, variable or math sign
    (``|| '-' || ( )``) are symbols of code or math; anything else is
    formula fragments."""
    pieces = [t for t in window if _flattened_token(t)]
    if all(_letters_only(t) and len(t) <= 3 for t in window):
        return "unreadable text-layer line (words broken into letters)"
    if all(not any(c.isalnum() or is_math_char(c) for c in t) for t in pieces):
        return "symbol runs (code or flattened math)"
    return "formula fragments"


def flattened_math(text: str, laid_out: bool = True) -> str | None:
    """Why ``text`` (a prose chunk) looks like flattened 2D math or an
    unreadable text layer, or None:
    more than :data:`MAX_BAD_GLYPHS` unmapped glyphs (U+FFFD; private-use
    glyphs, often a symbol font's checkbox, count only inside a run),
    characters mapped wrong (:func:`duocthu_assets.parse.encoding.mojibake.misencoding`:
    mojibake, or Vietnamese typed in a legacy font encoding),
    or — for text read off a layout (``laid_out``: not a CSV's or a
    sheet's cells as typed, whose empty cells read ``| | |``) — a run of
    :data:`MATH_WINDOW` tokens of which :data:`MATH_WINDOW_MIN`
    are lone characters, symbol runs or math operators
    (``� n+1 � i=1 x2 i = 1 �``), named by :func:`window_kind`."""
    bad = text.count("\ufffd")
    if bad > MAX_BAD_GLYPHS:
        return f"{bad} unmapped glyphs (U+FFFD)"
    misencoded = misencoding(text)
    if misencoded:
        return misencoded
    window = flattened_window(text) if laid_out else None
    if window is None:
        return None
    return f"{window_kind(window)}: " + " ".join(window)


# --- figure labels ---------------------------------------------------------------

FIGURE_LABEL_GAP = 12.0  # points: a label this close to a figure's raster image belongs to it
FIGURE_MIN_SIDE = 4.0  # points: a raster image thinner than this is a rule, not a figure


def figure_labels(fragments: list[Fragment], images: list[BBox], window: list[str]) -> bool:
    """Whether the run of tokens ``window`` is a figure's labels: the lines
    that spell it (every word of the line is one of the window's) cover most
    of it, and each lies over or within :data:`FIGURE_LABEL_GAP` of a raster
    image on the page (``s1 s2 s3`` over a grid of scans). Pure."""
    if not images:
        return False
    wanted = set(window)
    covered = 0
    for fragment in fragments:
        words = fragment.text.split()
        if not words or not set(words) <= wanted:
            continue
        g = FIGURE_LABEL_GAP
        x0, y0, x1, y1 = fragment.bbox
        if any(x0 < i[2] + g and x1 > i[0] - g and y0 < i[3] + g and y1 > i[1] - g for i in images):
            covered += len(words)
    return covered * 2 > len(window)


def figure_labels_in(data: bytes, page_nos: list[int], window: list[str]) -> list[int]:
    """The pages among ``page_nos`` of the PDF ``data`` where ``window`` is
    a figure's labels (:func:`figure_labels`), read with the parser's own
    page reader."""
    from ..read.page import read_page
    from ....settings.pdf import resolve_pdf_settings

    settings = resolve_pdf_settings(None)

    def labels_on(page) -> bool:
        images = [tuple(i["bbox"]) for i in page.get_image_info()]
        return bool(images) and figure_labels(list(read_page(page, settings).fragments), images, window)

    return pages_where(data, page_nos, labels_on)


def _pages(data: bytes, page_nos: list[int]):
    """``(page_no, page)`` for each of the pages ``page_nos`` of the PDF
    ``data`` (numbered from 1; numbers outside the document skipped), in
    order; the document is closed when the caller is done."""
    from ..engine import open_pdf

    doc = open_pdf(data)
    try:
        for page_no in sorted(set(page_nos)):
            if 1 <= page_no <= doc.page_count:
                yield page_no, doc[page_no - 1]
    finally:
        doc.close()


def pages_where(data: bytes, page_nos: list[int], holds) -> list[int]:
    """The pages among ``page_nos`` of the PDF ``data`` for which
    ``holds(page)`` is true (:func:`_pages`)."""
    return [page_no for page_no, page in _pages(data, page_nos) if holds(page)]


# --- code listings ---------------------------------------------------------------

MONOSPACE_NAMES = ("mono", "courier", "consol", "code")  # font names of fixed-pitch faces
MONOSPACE_FLAG = 8  # MuPDF's span flag for a fixed-pitch font (pymupdf.TEXT_FONT_MONOSPACED)
MONOSPACE_MIN_DISTINCT = 6  # distinct characters a span needs before equal advances say "fixed pitch"
ADVANCE_TOL = 0.05  # points
MIN_LISTING_LINES = 2  # a code listing is at least this many fixed-pitch lines on the page


def monospaced(font: str, flags: int, chars: list[tuple[str, float]]) -> bool:
    """Whether a span is set in a fixed-pitch face: the font says so (its
    flag or its name: Courier, ``…Mono``), or its characters (``(char,
    advance)``), of at least :data:`MONOSPACE_MIN_DISTINCT` different ones,
    all advance by the same width (IBM's ``BookMasterGothic`` listings carry
    no flag; every glyph is 0.498 em wide)."""
    if flags & MONOSPACE_FLAG or any(n in font.lower() for n in MONOSPACE_NAMES):
        return True
    if len({c for c, _ in chars if not c.isspace()}) < MONOSPACE_MIN_DISTINCT:
        return False
    widths = [w for _, w in chars]
    return max(widths) - min(widths) <= ADVANCE_TOL


def code_listing(lines: list[str], window: list[str]) -> bool:
    """Whether the run of tokens ``window`` that leak_02 flagged is a code
    listing read as printed: the run is symbol runs (``|| '-' || (``: no
    lone variable, math operator or bad glyph, see :func:`window_kind`),
    the page holds at least :data:`MIN_LISTING_LINES` ``lines`` set in a
    fixed-pitch face, and their tokens hold every symbol run of the window
    and most of its tokens. A flattened formula fails the first test in any
    font. Pure."""
    if len(lines) < MIN_LISTING_LINES or not window_kind(window).startswith("symbol runs"):
        return False
    listed: dict[str, int] = {}
    for line in lines:
        for token in line.split():
            listed[token] = listed.get(token, 0) + 1
    covered = 0
    for token in window:
        if listed.get(token, 0) > 0:
            listed[token] -= 1
            covered += 1
        elif _flattened_token(token):
            return False  # a symbol run the listing does not hold
    return covered * 2 > len(window)


def monospaced_lines(page) -> list[str]:
    """The text of the page's lines whose every non-blank span is set in a
    fixed-pitch face (:func:`monospaced`), from MuPDF's raw characters."""
    out = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            spans = [s for s in line["spans"] if "".join(c["c"] for c in s["chars"]).strip()]
            if spans and all(
                monospaced(s["font"], int(s["flags"]), [(c["c"], c["bbox"][2] - c["bbox"][0]) for c in s["chars"]]) for s in spans
            ):
                out.append("".join(c["c"] for s in spans for c in s["chars"]))
    return out


def code_listings_in(data: bytes, page_nos: list[int], window: list[str]) -> list[int]:
    """The pages among ``page_nos`` of the PDF ``data`` where ``window`` is
    part of a code listing (:func:`code_listing`)."""
    return pages_where(data, page_nos, lambda page: code_listing(monospaced_lines(page), window))


# --- scripts MuPDF set on lines of their own and the reader left apart --------------


def reading_lines(page_dict: dict) -> tuple[list[dict | None], tuple[int, int]]:
    """A page dict's lines in the order the page reader numbers them, each
    running in the page's reading direction with no slant (None for the
    others), and that direction."""
    from ..read.orientation import reading_direction

    direction = reading_direction(page_dict)
    lines: list[dict | None] = []
    for block in page_dict["blocks"]:
        if block.get("type", 0) != 0:
            continue
        for line in block["lines"]:
            dx, dy = line.get("dir", (1, 0))
            flat = (dx == 0 or dy == 0) and (round(dx), round(dy)) == direction
            lines.append(line if flat else None)
    return lines, direction


def _page_dicts(data: bytes, page_nos: list[int]):
    """``(page_no, page, page dict)`` for each page of :func:`_pages`, the
    dict read with the page reader's flags."""
    from ..read.page import TEXT_FLAGS

    for page_no, page in _pages(data, page_nos):
        yield page_no, page, page.get_textpage(flags=TEXT_FLAGS).extractDICT(sort=False)


def loose_scripts_in(data: bytes, page_nos: list[int]) -> list[tuple[int, str, BBox]]:
    """``(page_no, text, bbox)`` of each script MuPDF set on a line of its
    own on the pages ``page_nos`` of the PDF ``data`` that the page reader
    could not give back to its line (:func:`.pdf_scripts.unattached_script_lines`),
    or that it found but then left apart (MuPDF cut the line's words
    otherwise than its characters: the page reader's ``script_hosts`` lack
    it), its box in the parser's coordinates (the page turned to read)."""
    from ..read import page as pdf_page
    from ..read.orientation import _transform, reading_matrix, unrotated_size
    from ..read.scripts import LooseScript, attach_script_lines, unattached_script_lines
    from ....settings.pdf import resolve_pdf_settings

    found: list[tuple[int, str, BBox]] = []
    for page_no, page, page_dict in _page_dicts(data, page_nos):
        lines, direction = reading_lines(page_dict)
        attached = attach_script_lines(lines, direction)
        loose = unattached_script_lines(lines, direction, attached)
        if attached:  # only pages with a script set apart are read again
            kept = pdf_page.read_page(page, resolve_pdf_settings(None)).script_hosts
            loose += [
                LooseScript(k, a.host, "".join(sp["text"] for sp in lines[k]["spans"]).strip(), tuple(lines[k]["bbox"]))
                for k, a in attached.items()
                if k not in kept
            ]
        if loose:
            matrix = reading_matrix(page_dict, *unrotated_size(page))
            found += [(page_no, s.text, _transform(s.bbox, matrix)) for s in loose]
    return found


MATH_LINE = re.compile(r"[=<>≤≥±×÷]")  # a line holding a relation or an operator is a line of math
# a word of prose: three letters or more in a row. A line that lost a glyph and
# holds none (``⌊d``, ``DP Γ_3``, ``ℓr −c``: a symbol with its scripts) is math
PROSE_WORD = re.compile(r"[^\W\d_]{3,}")
BULLET_REACH_EM = 1.5  # a glyph with something this close before it on its line is inside a line, not a list's bullet


def _bullet(line: dict, lines: list[dict | None]) -> bool:
    """Whether a line that is nothing but unmapped glyphs is a list's
    bullet: nothing stands just before it on its baseline, and words follow
    it there (redp5110's bullets); a stretched parenthesis or an ``∫`` has
    its expression's text just before it (``softmax``, ``as``)."""
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
    prose (:data:`PROSE_WORD`: aaai p. 7's ``⌊d``, IEEE p. 10's ``DP Γ_3``;
    a list item led by its bullet has its words). dpr p. 7's
    ``softmax(P_i w_start)_s`` lost its tall parentheses, IEEE p. 7 its
    ``∫``, aaai p. 7 its ``⌊ ⌋``; a list's bullet (redp5110) or a quotation
    mark among words (the Korean report) is not math. The text shows each
    lost glyph as ``⍰``; boxes in the parser's coordinates."""
    from ..read.glyphs import UNMAPPED
    from ..read.orientation import _transform, reading_matrix, unrotated_size

    found: list[tuple[int, str, BBox]] = []
    for page_no, page, page_dict in _page_dicts(data, page_nos):
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
            found += [(page_no, text, _transform(box, matrix)) for text, box in hits]
    return found


def _span_words(page_dict: dict) -> list:
    """A page's non-blank spans running left to right as one-line
    fragments of words (a cheap stand-in for its words, for a first pass)."""
    from ..records import Word, make_fragment

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
    (:func:`.pdf_fractions.stacked_pairs`: a fraction, a binomial
    coefficient, stacked scripts) on the pages ``page_nos`` that the page
    reader leaves in two words: the page is read as the parser reads prose
    (scripts set apart joined to their line, inline fractions joined:
    :func:`.pdf_page.attach_script_fragments`,
    :func:`.pdf_fractions.join_inline_fractions`), and a pair is resolved
    when one word holds both spans. So is a short span over a short drawn
    bar and one under it (:func:`.pdf_fractions.barred_pairs`: a fraction
    set in the line's own size). A pair within :data:`FIGURE_LABEL_GAP` of
    a raster image is a figure's labels, read as printed. Only a page whose
    spans hold such a pair is read so. Boxes in the parser's coordinates."""
    from ..read.fractions import barred_pairs, fraction_bars, join_inline_fractions, stacked_pairs
    from ..read.orientation import _transform, reading_matrix, unrotated_size
    from ..read.page import read_page
    from ..read.rules import read_drawings
    from ..read.script_marks import attach_script_fragments
    from ....settings.pdf import resolve_pdf_settings

    settings = resolve_pdf_settings(None)
    found: list[tuple[int, str, BBox]] = []
    for page_no, page, page_dict in _page_dicts(data, page_nos):
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
            return b if matrix is None else _transform(b, matrix)

        # a figure's labels beside its raster images are read as printed (figure_labels)
        # (an image a point or two thin is a rule or a fraction bar drawn as a picture: aaai p. 7's ``d/2``)
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
    set in words (:func:`word_formula_operators`) on the pages
    ``page_nos`` of the PDF ``data``: its cells are read as lines of prose
    unless a block lifts them. Boxes in the parser's coordinates."""
    from ..read.page import read_page
    from ....settings.pdf import resolve_pdf_settings

    settings = resolve_pdf_settings(None)
    found: list[tuple[int, str, BBox]] = []
    for page_no, page, page_dict in _page_dicts(data, page_nos):
        if not _operator_lines(page_dict):
            continue
        for f, a, b in word_formula_operators(list(read_page(page, settings).fragments)):
            found.append((page_no, f"{a.text[-30:]} {f.text.strip()} {b.text[:30]}", f.bbox))
    return found
