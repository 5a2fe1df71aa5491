"""Display math: formulas set on lines of their own, lifted as
``formula_2d`` blocks whatever the font (a stacked fraction whose bar is not
a separate rule, a sum or an integral with limits, a matrix, stacked
sub/superscripts, radicals).

    may_hold_math     cheap gate: a math glyph, an unmapped glyph, or an
                      equation number on the page
    math_rows         text rows that hold no running text and read as math
    group_rows        consecutive math rows (limits, numerators and
                      denominators are rows of their own) into one region
    find_display_math the regions that are two-dimensional, as candidates

A row is math when it holds no run of words (at most a few words of three or
more letters: ``where``, ``and``) and its tokens are mostly formula pieces
(:func:`duocthu_assets.parse.pdf.records.is_formula_piece`: lone variables,
symbols, operators, ``i=1``, ``x2``) or it carries a math operator or an
unmapped glyph (a bracket piece of a Computer Modern extension font). A
region is lifted only when it is two-dimensional: two or more rows, glyphs
of two sizes offset from one another (scripts, marked ``x^2`` by the page
reader or not), or a big operator or
bracket; a plain line like ``x = 3`` stays in prose. Inline math inside a
paragraph line is never lifted (the line is running text).
"""

from __future__ import annotations

import re

from ....model import BlockKind, BlockShape
from .candidates import BlockCandidate, inside_box
from ..geometry import center, contains_point, merge_overlapping, union
from ..records import BAD_GLYPH, LONE_OPERATORS, MATH_CHAR, is_bad_glyph, is_formula_piece, unmark
from .lines import cell_lines, word_formula_operators
from ..records import Fragment
from .scoring import row_box, text_rows

EQUATION_NUMBER = re.compile(r"^\(\d{1,3}[a-z]?\)$")
MAX_WORDS = 3  # words of 3+ letters a math row may hold ("where", "and", "for all")
MIN_MATH_FRAC = 0.5  # of a row's tokens that are formula pieces
BIG = set("∑∏∫∮√⎛⎜⎝⎞⎟⎠⎡⎢⎣⎤⎥⎦⎧⎨⎩⎫⎬⎭")


def may_hold_math(fragments: list[Fragment]) -> bool:
    """A math operator, an unmapped glyph or an equation number on the page,
    or a line that is one relation holding a marked superscript or subscript
    (``a^2 + 8 = 12``, :func:`_scripted_equation`)."""
    for f in fragments:
        if EQUATION_NUMBER.match(f.text.strip()) or MATH_CHAR.search(f.text) or BAD_GLYPH.search(f.text):
            return True
        if _scripted_equation([f]):
            return True
    return False


def _scripted(f: Fragment) -> bool:
    """A word of the fragment carries a script the page reader marked (``x^2``;
    a struck word's ``plain`` is set with no mark)."""
    return any(w.marks.strip() for w in f.words)


_EDGE_PUNCTUATION = ".,;:!?()[]\"'“”‘’"
_LETTER_PAIR = re.compile(r"[^\W\d_]{2}")


def _is_word(token: str) -> bool:
    """A word of running text (or a function name like ``exp(−ϵ)``): three
    or more letters, two of them together, and no math sign;
    ``c(X1,Y1)``, a script's index of lone letters, is not one."""
    return bool(_LETTER_PAIR.search(token)) and not MATH_CHAR.search(token) and sum(c.isalpha() for c in token) >= 3


def _words(text: str) -> int:
    return sum(1 for t in text.split() if _is_word(t))


def _strong(text: str) -> bool:
    """A math operator that does not occur in tables of numbers (the minus
    sign U+2212 does) in ``text``."""
    return MATH_CHAR.search(text.replace("\u2212", "")) is not None


def _variable(token: str) -> bool:
    """A lone Latin or Greek letter, or one with an index or a power
    (``x``, ``x2``, ``i=1``, ``n+1``): what a row of numbers never holds."""
    t = unmark(token).strip(",.;:()[]{}")
    return bool(t) and t[0].isalpha() and len(t) <= 4 and is_formula_piece(t)


def _cells(row: list[Fragment]) -> bool:
    """Two or more wide gaps along the row: cells of a table (whose cells
    may hold formulas), not one formula."""
    frags = sorted((f for f in row if not EQUATION_NUMBER.match(f.text.strip())), key=lambda f: f.bbox[0])
    # gaps in the row's horizontal projection: a fraction's short
    # denominator under a long numerator leaves no gap (the pieces stack)
    wide = 0
    reach, size = None, 1.0
    for f in frags:
        if reach is not None and f.bbox[0] - reach >= 2 * max(size, f.size, 1.0):
            wide += 1
        if reach is None or f.bbox[2] > reach:
            reach, size = f.bbox[2], f.size
    return wide >= 2


def is_math_row(row: list[Fragment]) -> bool:
    if _cells(row):
        return False
    text = " ".join(f.text for f in row if not EQUATION_NUMBER.match(f.text.strip()))
    tokens = text.split()
    if tokens and len(tokens[0]) == 1 and is_bad_glyph(tokens[0]):
        tokens = tokens[1:]  # a bullet set in a symbol font
    text = " ".join(tokens)
    if not tokens or _words(text) > MAX_WORDS:
        return False
    if _strong(text) or len(BAD_GLYPH.findall(text)) >= 2:
        return True
    if not any(_variable(t) for t in tokens) and "=" not in text:
        return False  # a row of numbers and dashes is a table's
    return sum(is_formula_piece(t) for t in tokens) >= MIN_MATH_FRAC * len(tokens) and len(tokens) >= 2


GUTTER = 6.0  # points between a display formula and the other column's text (fragments are already split at wide gaps)


def _own_column(row: list[Fragment]) -> list[Fragment]:
    """The row without the lines of running text of another column: a
    display formula in one column shares its text row with the prose of
    the other. A line of running text that the rest of the row touches is
    kept (inline math stays inline)."""
    running = [_words(f.text) > MAX_WORDS for f in row]
    prose = [f for f, r in zip(row, running) if r]
    rest = [f for f, r in zip(row, running) if not r]
    if not prose or not rest:
        return row
    near = [f for f in rest if any(max(p.bbox[0] - f.bbox[2], f.bbox[0] - p.bbox[2]) < GUTTER for p in prose)]
    if any(not _plain_text(f) for f in near):
        return row  # math touching running text: inline
    # a short line of words in the prose's column (a paragraph's last line)
    # goes with that column
    return [f for f in rest if f not in near] or row


def _plain_text(f: Fragment) -> bool:
    """Nothing but words and numbers: no formula piece, no math sign."""
    return all(_is_word(t) or t.strip(_EDGE_PUNCTUATION).isdigit() for t in f.text.split())


def is_satellite_row(row: list[Fragment]) -> bool:
    """A row of one to three formula pieces (a sum's limits ``n`` and
    ``i=1``, a lone exponent): part of the math row it sits against."""
    tokens = " ".join(f.text for f in row).split()
    return 1 <= len(tokens) <= 3 and all(is_formula_piece(t) or t.isdigit() for t in tokens)


def group_rows(rows: list[list[Fragment]], flags: list[bool]) -> list[list[list[Fragment]]]:
    """Runs of consecutive math rows no further apart than a line."""
    groups: list[list[list[Fragment]]] = []
    prev: list[Fragment] | None = None
    for row, math in zip(rows, flags):
        if not math:
            prev = None
            continue
        box = row_box(row)
        if prev is not None:
            pb = row_box(prev)
            height = max(pb[3] - pb[1], box[3] - box[1], 1.0)
            if box[1] - pb[3] <= 0.6 * height:
                groups[-1].append(row)
                prev = row
                continue
        groups.append([row])
        prev = row
    return groups


def _two_dimensional(group: list[list[Fragment]]) -> bool:
    frags = [f for row in group for f in row if not EQUATION_NUMBER.match(f.text.strip())]
    if len(group) >= 2:
        return True
    if any(c in BIG or is_bad_glyph(c) for f in frags for c in f.text):
        return True
    sizes = {round(w.size) for f in frags for w in f.words}
    if len(sizes) >= 2:
        return True
    tops = sorted(f.bbox[1] for f in frags)
    return len(tops) >= 2 and tops[-1] - tops[0] > 0.3 * max(f.height for f in frags)


RELATIONS = set("=<>≤≥≈≡∝∼≠")


def _scripted_equation(row: list[Fragment]) -> bool:
    """A line that is one relation with a marked script in it and not a word
    of prose (``a^2 + 8 = 12``, ``f_R(D) = |{x ∈ D}|``,
    ``P_{start,i}(s) = softmax(P_i w_start)_s`` — a function's name is no
    word of prose —; not ``^∗Equal contribution`` nor ``let P_i ∈ R^{L×h}
    (1 ≤ i ≤ k) be``)."""
    text = " ".join(f.text for f in row)
    if not any(_scripted(f) for f in row) or not any(c in RELATIONS for c in text):
        return False
    return not any(len(t) >= 3 and t.isalpha() and t.lower() not in FUNCTION_NAMES for t in (t.strip(",.;:") for t in text.split()))


def _numbered(row: list[Fragment]) -> bool:
    """The row ends with an equation number: ``(3)``."""
    return bool(row) and bool(EQUATION_NUMBER.match(max(row, key=lambda f: f.bbox[2]).text.strip()))


def _set_apart(row: list[Fragment], rows: list[list[Fragment]], k: int) -> bool:
    """The row is not a line of a paragraph: no line of its column just above
    or below it starts where it starts (a paragraph's last line ending in
    ``α ⩾ 10^{−26}.`` does; a display ``a^2 + 8 = 12``, centred, does not)."""
    box = row_box(row)
    height = max(box[3] - box[1], 1.0)
    for j in (k - 1, k + 1):
        if not 0 <= j < len(rows):
            continue
        for f in rows[j]:
            near = max(f.bbox[1] - box[3], box[1] - f.bbox[3]) <= 0.8 * height
            if near and f.bbox[0] < box[2] and f.bbox[2] > box[0] and abs(f.bbox[0] - box[0]) <= 2.0:
                return False
    return True


COLUMN_MIN_LINES = 5  # lines of running text starting at one x that make it a column's left edge
COLUMN_MIN_GAP = 100.0  # points between two columns' left edges
START_TOL = 4.0  # points: lines starting this close start at the same edge


def column_starts(fragments: list[Fragment]) -> list[float]:
    """The left edges of the page's columns of running text (one, or none,
    on a page of one column): an x where at least
    :data:`COLUMN_MIN_LINES` lines of more than :data:`MAX_WORDS` words
    start, :data:`COLUMN_MIN_GAP` from the previous edge."""
    starts = sorted(f.bbox[0] for f in fragments if _words(f.text) > MAX_WORDS)
    edges: list[float] = []
    k = 0
    while k < len(starts):
        j = k
        while j + 1 < len(starts) and starts[j + 1] - starts[k] <= START_TOL:
            j += 1
        if j - k + 1 >= COLUMN_MIN_LINES and (not edges or starts[k] - edges[-1] >= COLUMN_MIN_GAP):
            edges.append(starts[k])
        k = j + 1
    return edges


def find_display_math(fragments: list[Fragment]) -> list[BlockCandidate]:
    """Display formulas among ``fragments`` (text no other block took), each
    column of running text on its own (:func:`column_starts`): a row of a
    formula in one column never takes the other column's line, however
    much math that line holds (a row reaching across the gutter took lines
    of prose of both columns with it)."""
    if not fragments:
        return []
    heights = sorted(f.height for f in fragments)
    typical = heights[len(heights) // 2]
    # a tall fragment (a rotated margin stamp, set sideways) would join every row it spans
    rows = text_rows([f for f in fragments if f.height <= 3 * typical])
    edges = column_starts(fragments)
    if len(edges) < 2:
        return _display_math(rows)
    bounds = [float("-inf")] + edges[1:] + [float("inf")]
    out: list[BlockCandidate] = []
    for left, lo, hi in zip(edges, bounds, bounds[1:]):
        # the page's rows cut at the gutters (rows found on the whole page: a formula's
        # limits and scripts stay on its row)
        column = [r for r in ([f for f in row if lo - START_TOL <= f.bbox[0] < hi - START_TOL] for row in rows) if r]
        running = [f.bbox[2] for r in column for f in r if _words(f.text) > MAX_WORDS]
        right = max(running, default=float("inf"))
        out += _display_math(column, lambda row: _column_line(row, left, right))
    return out


def _column_line(row: list[Fragment], left: float, right: float) -> bool:
    """A row set flush from the column's left edge to its right one, two
    words of prose or more among its math: a justified line of prose
    holding inline math, not a display, which stands apart from an edge or
    holds no words but function names (a display may fill its column:
    ``exp(…) ≤ Pr(z + N = s)/Pr(z′ + N = s) ≤ exp(…)``). A paragraph's
    first line may start indented, and its words may be short (``we
    decompose … as``)."""
    box = row_box(row)
    indent = PARAGRAPH_INDENT_EM * max((f.size for f in row), default=0.0)  # a paragraph's first line
    text = " ".join(f.text for f in row)
    return box[0] <= left + START_TOL + indent and box[2] >= right - START_TOL and (_prose_words(text) >= 2 or _small_words(text) >= 3)


PARAGRAPH_INDENT_EM = 1.5  # a paragraph's first line starts at most this many ems in from its column's edge


def _small_words(text: str) -> int:
    """Words of two or more lower-case letters (``we decompose … as``), not a function's name."""
    return sum(1 for t in (token.strip(_EDGE_PUNCTUATION) for token in text.split()) if len(t) >= 2 and t.isalpha() and t.islower() and t not in FUNCTION_NAMES)


FUNCTION_NAMES = frozenset("exp log ln lg sin cos tan cot sinh cosh tanh arg det dim ker max min sup inf lim mod gcd softmax argmax argmin sigmoid diag".split())


def _prose_words(text: str) -> int:
    """Words of running text in ``text``: letters only (edge punctuation
    aside), three or more, not all capitals, not a function's name."""
    n = 0
    for token in text.split():
        t = token.strip(_EDGE_PUNCTUATION)
        n += len(t) >= 3 and t.isalpha() and not t.isupper() and t.lower() not in FUNCTION_NAMES
    return n


def _display_math(page_rows: list[list[Fragment]], prose_line=lambda row: False) -> list[BlockCandidate]:
    """Display formulas among rows of text, in reading order (``prose_line``:
    a row that, alone, is a line of prose whatever math it holds)."""
    rows = [_own_column(r) for r in page_rows]
    # a numbered line set apart that is one relation with marked scripts and no word of prose is
    # a display whatever share of its tokens look like formula pieces (``softmax`` and its scripts)
    math = [is_math_row(r) or (_numbered(r) and _scripted_equation(r) and _set_apart(r, rows, k)) for k, r in enumerate(rows)]
    flags = [m or is_satellite_row(r) for m, r in zip(math, rows)]
    real = {id(r) for r, m in zip(rows, math) if m}
    out = []
    index = {id(r): k for k, r in enumerate(rows)}
    for group in group_rows(rows, flags):
        if not any(id(r) in real for r in group):
            continue  # limits or indices alone are not a formula
        if not _two_dimensional(group):
            # one line whose only second dimension is a marked script (x^2): a
            # display when set apart from the paragraph lines around it
            row = group[0]
            if not (len(group) == 1 and _scripted_equation(row) and _set_apart(row, rows, index[id(row)])):
                continue
        if len(group) == 1 and prose_line(group[0]):
            continue
        out.append(BlockCandidate(BlockKind.FORMULA, BlockShape.FORMULA_2D, union(f.bbox for row in group for f in row), "display"))
    return out


CHAIN_GAP = 15.0  # points: a formula's pieces along its line are at most this far apart
PROSE_GAP = 6.0  # points: running text this close beside a formula's line makes it inline math


def find_stacked_math(fragments: list[Fragment], bars: list) -> list[BlockCandidate]:
    """Display formulas that MuPDF read into lines with their neighbours:
    a numerator and a denominator stacked over each other
    (:func:`..read.fractions.stacked_pairs`: set smaller than the line beside
    them; :func:`..read.fractions.barred_pairs`: over and under a fitted bar),
    with the fragments of no running text (at most :data:`MAX_WORDS` words)
    chained to them along their line (at most :data:`CHAIN_GAP` apart,
    overlapping the region's height by half their own). ``Pr(N = i) =
    (1−α)/(1+α) α^{|i|}`` read as ``Pr(N = i) = 1 −α`` and ``1 + αα^{|i|}.``
    is lifted whole. A pair in a fragment of running text, or with running
    text within :data:`PROSE_GAP` beside its line, is inline math and is not
    lifted (it is joined in its line,
    :func:`..read.fractions.join_inline_fractions`, or named by ``leak_02``)."""
    from ..read.fractions import barred_pairs, stacked_pairs

    pairs = stacked_pairs(fragments) + barred_pairs(fragments, bars)
    if not pairs:
        return []
    running = {id(f) for f in fragments if _words(f.text) > MAX_WORDS}
    starts = [f.bbox[0] for f in fragments if id(f) in running]  # where lines of running text start: a column's left edge
    found = []
    for pair in pairs:
        region = [f for f in fragments if any(contains_point(f.bbox, *center(w.bbox), pad=0.5) for w in (pair.upper, pair.lower))]
        if not region or any(id(f) in running for f in region):
            continue
        tall = 3 * max(f.height for f in region)
        box = union(f.bbox for f in region)
        inline = False
        grown = True
        while grown and not inline:
            grown = False
            for f in fragments:
                if f in region or f.height > tall:
                    continue
                if min(f.bbox[3], box[3]) - max(f.bbox[1], box[1]) < 0.5 * f.height:
                    continue
                gap = max(box[0] - f.bbox[2], f.bbox[0] - box[2])
                if id(f) in running:
                    if gap <= PROSE_GAP:
                        inline = True
                        break
                    continue
                if f.bbox[0] > box[2] and any(abs(f.bbox[0] - x) <= 2.0 for x in starts):
                    continue  # the first piece of the next column's line
                if gap <= CHAIN_GAP:
                    region.append(f)
                    box = union([box, f.bbox])
                    grown = True
        if not inline:
            found.append(box)
    return [BlockCandidate(BlockKind.FORMULA, BlockShape.FORMULA_2D, b, "stacked") for b in merge_overlapping(found, 0.0, 0.0)]


WORD_CHAIN_EM = 4.5  # a formula set in words: its next cell or operator at most this far (ems) along its height
WORD_CELL_MAX_WORDS = 8  # ... and a cell's line holds at most this many words (a line of prose holds more)
CELL_LINE_GAP = 0.25  # ... and a cell's next line over or under it starts within this share of its height (set solid)


def has_lone_operator(fragments: list[Fragment]) -> bool:
    """Cheap gate: a fragment that is a lone ``=``, ``x``, ``−`` …"""
    return any(f.text.strip() in LONE_OPERATORS for f in fragments)


def find_word_formulas(fragments: list[Fragment]) -> list[BlockCandidate]:
    """Formulas set in words (``Tiền thuê đất phải nộp = Diện tích … x
    Đơn giá …``): each lone operator between two cells of words
    (:func:`.lines.word_formula_operators`) with the lines of both
    cells, grown along the formula's height to its other cells and
    operators (at most :data:`WORD_CHAIN_EM` apart) and through each cell's
    lines over and under the box (set solid: within :data:`CELL_LINE_GAP`
    of a line's height, across the same stretch); operators that share a
    cell are one formula, lifted as ``formula_2d``. Read as lines, its
    cells interleave."""
    words = [f for f in fragments if f.text.strip() not in LONE_OPERATORS]
    found = []
    for op, a, b in word_formula_operators(fragments):
        box = union([op.bbox] + [g.bbox for cell in (a, b) for g in cell_lines(cell, words)])
        reach = WORD_CHAIN_EM * max(op.size, 1.0)
        grown = True
        while grown:
            grown = False
            inside = [g for g in fragments if inside_box(g.bbox, box, pad=0.5)]
            for g in fragments:
                if inside_box(g.bbox, box, pad=0.5) or _words(g.text) > WORD_CELL_MAX_WORDS:
                    continue
                along = min(g.bbox[3], box[3]) - max(g.bbox[1], box[1]) >= 0.5 * g.height and g.height <= box[3] - box[1] + 1
                if along and max(box[0] - g.bbox[2], g.bbox[0] - box[2]) <= reach:
                    box = union([box, g.bbox])
                    grown = True
                    continue
                # a cell's line over or under the box, set solid with a line inside it
                if any(
                    max(g.bbox[1] - h.bbox[3], h.bbox[1] - g.bbox[3]) <= CELL_LINE_GAP * max(g.height, 1.0)
                    and min(g.bbox[2], h.bbox[2]) - max(g.bbox[0], h.bbox[0]) >= 0.5 * min(g.bbox[2] - g.bbox[0], h.bbox[2] - h.bbox[0])
                    for h in inside
                ):
                    box = union([box, g.bbox])
                    grown = True
        found.append(box)
    return [BlockCandidate(BlockKind.FORMULA, BlockShape.FORMULA_2D, b, "words") for b in merge_overlapping(found, 1.0, 0.0)]

