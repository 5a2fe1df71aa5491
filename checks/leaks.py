"""The leak detector (issue 15): content of a table or a formula that
reached a prose chunk instead of its lifted block, as blocking rules on the
``chunks`` asset. Better a blocked document than a silently wrong dose.

- ``leak_01_table_row_in_prose``: re-reading the PDF's pages that hold a
  table, a line directly under a table (within two of its row pitches) that
  lines up with two or more of its columns is a row the table lost
  (:func:`duocthu_assets.parse.pdf.audit.tables.leaked_rows`), and a line set
  solid over or under a line of a lifted formula, across its stretch, is a
  line of the formula's cell it lost
  (:func:`duocthu_assets.parse.pdf.audit.formulas.loose_cell_lines`); the document
  fails with the prose chunks that hold such a line and their pages.
- ``leak_02_flattened_math_in_prose``: a prose chunk whose text is dominated
  by the fragments of a flattened formula (U+FFFD or private-use glyphs, runs
  of lone characters and symbols: ``� n+1 � i=1 x2 i = 1 �``) fails the
  document with its chunk id, pages and what the run is (formula fragments,
  an unreadable text-layer line, symbol runs)
  (:func:`duocthu_assets.parse.pdf.audit.flattened_math.flattened_math`); a figure's labels
  read as printed are not math prose and pass, named in the message, and so
  does a code listing set in a fixed-pitch face (symbol runs such as
  ``|| '-' ||`` on lines of a monospace font: code is not flattened math).
  A superscript or subscript that MuPDF set on a line of its own and the
  page reader could not give back to its line (so it reads ``x 3``, never
  ``x^3``) fails it too, named with its page and text, when it lies in a
  prose chunk (:func:`duocthu_assets.parse.pdf.audit.glyphs.loose_scripts_in`).
  So does a pair of small words set one over the other beside a line's
  text and read as two words (a fraction whose bar could not be proven —
  ``⌊d/2⌋`` reads ``d 2`` —, a binomial coefficient, stacked scripts not
  joined to their base): an inline fraction *with* a drawn bar is written
  ``a/b`` in its line by the parser
  (:mod:`duocthu_assets.parse.pdf.read.fractions`), so what is left is what it
  could not prove (:func:`duocthu_assets.parse.pdf.audit.glyphs.stacked_pairs_in`).
  And so does a lone operator (``=``, ``x``, ``−``) set apart between two
  cells of words, in prose: a formula set in words (``Tiền thuê đất phải
  nộp = Diện tích … x Đơn giá …``) whose cells read as interleaved
  lines unless a block lifts it
  (:func:`duocthu_assets.parse.pdf.audit.glyphs.lone_operators_in`). So does a
  line of math in prose that lost a glyph with no Unicode mapping (U+FFFD,
  a private-use code point: a tall parenthesis, an ``∫``, a floor bracket
  the font does not map), which the text cannot show
  (:func:`duocthu_assets.parse.pdf.audit.glyphs.lost_glyphs_in`). So does a
  prose chunk — or a table row, whose text is embedded too — holding a run
  of characters mapped wrong, in any format: mojibake, which a PDF font's
  own encoding or a wrong code page gives (``Thuá»‘c`` for ``Thuốc``), or
  Vietnamese typed in a legacy font encoding (TCVN3's ``.VnTime``: ``Céng hoµ x· héi``; VNI's), which
  nothing else notices (:mod:`duocthu_assets.parse.encoding.mojibake`); in a
  document set in such a font (its name read off the file), two words that
  read as Vietnamese only in its encoding are enough, however short the
  text (:func:`set_in_legacy_fonts`).
"""

from __future__ import annotations

from duocthu_assets.parse.pdf.geometry import center, contains_point
from duocthu_assets.parse.pdf.audit.figures import figure_labels_in
from duocthu_assets.parse.pdf.audit.flattened_math import flattened_math, flattened_window
from duocthu_assets.parse.pdf.audit.glyphs import lone_operators_in, loose_scripts_in, lost_glyphs_in, stacked_pairs_in
from duocthu_assets.parse.pdf.audit.inspection import inspect_tables
from duocthu_assets.parse.pdf.audit.listings import code_listings_in
from duocthu_assets.parse.legacy_fonts import legacy_fonts
from duocthu_assets.parse.encoding.mojibake import LEGACY_FONT, WINDOW, legacy_words, misencoding

from .adr0006 import normalize_for_leaks
from .rules import DocumentRows, Row, Rule, RuleResult

ASSET = "chunks"
PROSE = "prose"
TABLE_ROW = "table_row"
LOST_GLYPH_MESSAGE = "a math glyph with no Unicode mapping left out of its line (shown ⍰)"


TYPED_FORMATS = ("csv", "xlsx")  # cells as typed: no layout to flatten a formula (their empty cells read "| | |")


def _prose_chunks(rows: DocumentRows) -> list[Row]:
    return [c for c in rows.chunks if c["chunk_kind"] == PROSE]


def _overlaps(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0 and min(a[3], b[3]) - max(a[1], b[1]) > 0


def _within(a, b, pad: float = 2.0) -> bool:
    """Box ``a`` lies inside box ``b``, give or take ``pad`` points."""
    return a[0] >= b[0] - pad and a[1] >= b[1] - pad and a[2] <= b[2] + pad and a[3] <= b[3] + pad


def _holders(chunks: list[Row], page: int, bbox, text: str) -> list[str]:
    """The prose chunks that hold a line: a region on its page over its box,
    or its text."""
    needle = normalize_for_leaks(text)
    out = []
    for chunk in chunks:
        regions = chunk.get("regions") or []
        if any(r["page_no"] == page and r.get("bbox") is not None and _overlaps(r["bbox"], bbox) for r in regions):
            out.append(chunk["chunk_id"])
        elif needle and needle in normalize_for_leaks(chunk["text"]):
            out.append(chunk["chunk_id"])
    return out


def table_row_in_prose(rows: DocumentRows) -> RuleResult:
    """No line directly under a lifted table lines up with two or more of
    its columns (a row left out of the table, in prose or in no chunk), and
    no line of a lifted formula's cell is left just over or under it."""
    placed = [b for b in rows.blocks if b.get("bbox") is not None]
    tables = [(b["page_no"], tuple(b["bbox"])) for b in placed if b["kind"] == "table"]
    formulas = [(b["page_no"], tuple(b["bbox"])) for b in placed if b["kind"] == "formula"]
    if not (tables or formulas) or not rows.source:
        return RuleResult(True, message="no lifted table or formula (or no PDF source) to look around")
    every = [(b["page_no"], tuple(b["bbox"])) for b in placed]
    leaks = inspect_tables(rows.source, tables, every, formulas).leaks
    chunks = _prose_chunks(rows)
    offenders, pages = [], []
    for leak in leaks:
        holders = _holders(chunks, leak.page_no, leak.bbox, leak.text)
        offenders += holders or [f"page {leak.page_no}: {leak.text[:60]!r} (in no chunk)"]
        pages.append(leak.page_no)
    result = RuleResult.from_offenders(offenders, "prose chunks holding a table row or a formula's cell line left outside its block", pages)
    if leaks and not result.passed:
        shown = "; ".join(f"p{l.page_no} {l.what} {l.text[:50]!r}" for l in leaks[:5])
        result = RuleResult(False, result.count, result.offending_ids, result.pages, f"{result.message} — lines: {shown}")
    return result


def _pages(chunk: Row) -> list[int]:
    return sorted({r["page_no"] for r in chunk.get("regions") or []})


def _page_span(pages: list[int]) -> str:
    if not pages:
        return "p?"
    return f"p{pages[0]}" if len(pages) == 1 else f"p{pages[0]}-{pages[-1]}"


def _shown(chunks: list[Row]) -> str:
    return "; ".join(f"{_page_span(_pages(c))} {c['chunk_id']}: {' '.join(flattened_window(c['text']) or [])}" for c in chunks)


def _is_pdf(rows: DocumentRows) -> bool:
    fmt = (rows.raw or {}).get("format")
    return fmt == "pdf" if fmt else bool(rows.source) and b"%PDF" in rows.source[:1024]


def unmarked_scripts(rows: DocumentRows) -> list[tuple[Row, int, str]]:
    """``(chunk, page, what)`` for each script MuPDF set on a line of its
    own that the page reader left apart, and each pair of small words
    stacked one over the other that it leaves as two words (a fraction it
    could not prove, :func:`duocthu_assets.parse.pdf.audit.glyphs.stacked_pairs_in`),
    inside a prose chunk's region on its page and not inside a lifted
    block (a pair with one word in a block and one out is the leak)."""
    chunks = _prose_chunks(rows)
    if not chunks or not rows.source or not _is_pdf(rows):
        return []
    pages = sorted({p for c in chunks for p in _pages(c)})
    blocks = [(b["page_no"], tuple(b["bbox"])) for b in rows.blocks if b.get("bbox") is not None]
    out = []
    # each finding with how a block holds it: whole (one word over a block's edge is not the
    # block's: a fraction's numerator standing over its block), or by its centre (a lost glyph's
    # line in a block is shown by its crop; a tall brace's line box stands over the block's)
    loose = [(page, f"a script set on a line of its own, unmarked: {text!r}", bbox, True) for page, text, bbox in loose_scripts_in(rows.source, pages)]
    stacked = [(page, f"two words stacked, read apart (a fraction without a bar, a binomial, stacked scripts): {text!r}", bbox, True) for page, text, bbox in stacked_pairs_in(rows.source, pages)]
    words = [(page, f"a formula set in words read into prose (its cells apart): {text!r}", bbox, True) for page, text, bbox in lone_operators_in(rows.source, pages)]
    lost = [(page, f"{LOST_GLYPH_MESSAGE}: {text!r}", bbox, False) for page, text, bbox in lost_glyphs_in(rows.source, pages)]
    for page, text, bbox, whole in loose + stacked + words + lost:
        if any(p == page and (_within(bbox, b) if whole else contains_point(b, *center(bbox))) for p, b in blocks):
            continue  # the block's
        for chunk in chunks:
            regions = chunk.get("regions") or []
            if any(r["page_no"] == page and r.get("bbox") is not None and _overlaps(r["bbox"], bbox) for r in regions):
                out.append((chunk, page, text))
                break
    return out


MIN_LEGACY_WORDS = 2  # words read as Vietnamese only in the encoding of a font the document is set in


def set_in_legacy_fonts(rows: DocumentRows, flagged: set[str]) -> list[tuple[Row, str]]:
    """``(chunk, why)`` for each prose chunk or table row not yet flagged
    that holds a word reading as Vietnamese only in the encoding of a
    legacy font the document is set in (``.VnTime``, ``VNI-Times``: read
    off the file), when the document holds :data:`MIN_LEGACY_WORDS` such
    words: a sheet's one-word cells (``Viªn``, ``Hép``) are too short for
    :func:`duocthu_assets.parse.encoding.mojibake.legacy_vietnamese_window`'s run."""
    chunks = [c for c in rows.chunks if c["chunk_kind"] in (PROSE, TABLE_ROW) and c["chunk_id"] not in flagged]
    if not rows.source or all(c["text"].isascii() for c in chunks):
        return []  # ASCII reads the same in any font: the file's fonts are not read
    fonts = legacy_fonts(rows.source, (rows.raw or {}).get("format") or "")
    out: list[tuple[Row, str]] = []
    for encoding, names in fonts.items():
        found = [(c, legacy_words(c["text"], encoding)) for c in chunks]
        found = [(c, words) for c, words in found if words]
        if sum(len(words) for _, words in found) < MIN_LEGACY_WORDS:
            continue
        for chunk, words in found:
            shown = words[:WINDOW]
            out.append((chunk, LEGACY_FONT.format(encoding=encoding, fonts=", ".join(names), words=" ".join(w for w, _ in shown), readings=" ".join(r for _, r in shown))))
    return out


def flattened_math_in_prose(rows: DocumentRows) -> RuleResult:
    """No prose chunk is dominated by the fragments of a flattened formula
    or of an unreadable text layer, or holds math its text cannot carry (a
    script or a stacked pair read apart, a formula set in words, a line of
    math that lost a glyph with no Unicode mapping). A run that is a
    figure's labels (lines set over or beside the figure's raster images,
    read as printed) or a code listing (symbol runs on lines set in a
    fixed-pitch face) is not math prose: it passes, named in the message.
    Neither a prose chunk nor a table row holds misencoded text
    (:func:`duocthu_assets.parse.encoding.mojibake.misencoding`,
    :func:`set_in_legacy_fonts`)."""
    laid_out = (rows.raw or {}).get("format") not in TYPED_FORMATS
    bad = [(c, flattened_math(c["text"], laid_out)) for c in _prose_chunks(rows)]
    bad = [(c, why) for c, why in bad if why]
    labels, listings = [], []
    if rows.source and _is_pdf(rows):  # figure labels and code listings are looked for on a PDF's pages
        for chunk, _ in bad:
            window = flattened_window(chunk["text"])
            if not window:
                continue
            if figure_labels_in(rows.source, _pages(chunk), window):
                labels.append(chunk)
            elif code_listings_in(rows.source, _pages(chunk), window):
                listings.append(chunk)
        bad = [(c, why) for c, why in bad if c not in labels and c not in listings]
        for chunk, page, text in unmarked_scripts(rows):
            bad.append((chunk, f"p{page}: {text}"))
    # a table's rows are not prose, but their text is embedded too: misencoded text in a cell
    # (a sheet typed in a .VnTime font, a CSV saved from one) is as lost as in a paragraph
    rows_bad = [(c, misencoding(c["text"])) for c in rows.chunks if c["chunk_kind"] == TABLE_ROW]
    bad += [(c, f"a table row: {why}") for c, why in rows_bad if why]
    bad += set_in_legacy_fonts(rows, {c["chunk_id"] for c, _ in bad})
    result = RuleResult.from_offenders(
        (c["chunk_id"] for c, _ in bad),
        "chunks holding flattened math, an unreadable text layer or misencoded text",
        (p for c, _ in bad for p in _pages(c)),
    )
    if not bad:
        message = result.message
        if labels:
            message += f"; figure labels read as printed, not math: {_shown(labels)}"
        if listings:
            message += f"; code listings in a fixed-pitch face, read as printed, not math: {_shown(listings)}"
        return RuleResult(True, message=message) if labels or listings else result
    shown = "; ".join(f"{_page_span(_pages(c))} {c['chunk_id']}: {why[:200]}" for c, why in bad[:5])
    return RuleResult(False, result.count, result.offending_ids, result.pages, f"{result.message} — {shown}")


def _rule(number: int, name: str, evaluate, needs) -> Rule:
    return Rule.of(f"leak_{number:02d}_{name}", ASSET, evaluate, needs, prefix="Leak detector (issue 15): ")


LEAK_RULES: list[Rule] = [
    _rule(1, "table_row_in_prose", table_row_in_prose, ("chunks", "blocks", "source")),
    _rule(2, "flattened_math_in_prose", flattened_math_in_prose, ("chunks", "source")),
]
