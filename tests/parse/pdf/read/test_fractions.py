"""Inline stacked fractions in prose (issue 15 item 2): written ``a/b`` in
their line when a drawn bar proves them, loud (leak_02) when nothing does."""

from __future__ import annotations

import pytest

from checks.leaks import flattened_math_in_prose
from checks.rules import DocumentRows
from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.read.fractions import fraction_text, stacked_pairs
from duocthu_assets.parse.pdf.audit.glyphs import lone_operators_in, stacked_pairs_in
from duocthu_assets.parse.pdf.records import Word, make_fragment
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path
from tests.support.pdf_pages import text_writer

NUMERATOR = "(140 - age) x weight"
DENOMINATOR = "72 x SCr"


def _word(text: str, bbox, size: float = 7.0, marks: str = "") -> Word:
    plain = "".join(c for c in text if c not in "^_{}") if marks else ""
    return Word(text, bbox, size, False, False, 0, False, plain, marks)


def test_the_convention_puts_more_than_one_character_or_number_in_parentheses():
    def words(*texts):
        return [_word(t, (10.0 * k, 0, 10.0 * k + 8, 7)) for k, t in enumerate(texts)]

    assert fraction_text(words("d"), words("2")) == "d/2"
    assert fraction_text(words("ϵ"), words("4γ")) == "ϵ/(4γ)"
    assert fraction_text(words("1"), words("1", "+", "|x|^γ")) == "1/(1 + |x|^γ)"
    assert fraction_text(words("12.5"), words("72", "x", "SCr")) == "12.5/(72 x SCr)"
    # a word marked whole against the baseline of the line MuPDF put it on reads plain
    assert fraction_text([_word("^ϵ", (0, 0, 3, 5), marks="^")], [_word("_{4γ}", (0, 6, 8, 11), marks="__")]) == "ϵ/(4γ)"


def _inline_fraction_pdf(bar: bool = True) -> bytes:
    """A dosing sentence with the Cockcroft-Gault fraction set inline: the
    numerator and the denominator at 7 pt over and under a drawn bar on the
    10 pt line's math axis; without ``bar``, the two stacked and nothing
    between them."""
    doc = pymupdf.open()
    page = doc.new_page()
    put, font = text_writer(page)

    put(72, 86, "Adjust the dose to the creatinine clearance of the patient, estimated as", 10)
    x = put(72, 100, "CrCl = ", 10)
    wn, wd = font.text_length(NUMERATOR, 7), font.text_length(DENOMINATOR, 7)
    width = max(wn, wd) + 2
    put(x + (width - wn) / 2, 95.6, NUMERATOR, 7)
    put(x + (width - wd) / 2, 104.2, DENOMINATOR, 7)
    if bar:
        page.draw_line((x, 97.4), (x + width, 97.4), width=0.4)
    put(x + width + 2, 100, " mL/min for an adult man.", 10)
    put(72, 118, "A second line of prose follows the first one here and ends the paragraph.", 10)
    return doc.tobytes()


def _rows(data: bytes) -> tuple[DocumentRows, str]:
    parsed = parse_document(data, Format.PDF, Settings())
    text = " ".join(s.text for s in parsed.segments)
    chunk = {"chunk_id": "d:s:1", "chunk_kind": "prose", "text": text, "regions": [{"page_no": 1, "bbox": (60, 70, 540, 125)}]}
    return DocumentRows("d", raw={"format": "pdf"}, chunks=[chunk], source=data), text


def test_an_inline_fraction_over_a_drawn_bar_is_written_in_its_line():
    data = _inline_fraction_pdf()
    parsed = parse_document(data, Format.PDF, Settings())
    text = " ".join(s.text for s in parsed.segments)
    assert f"CrCl = ({NUMERATOR})/({DENOMINATOR}) mL/min for an adult man." in text
    assert "x SCr mL/min" not in text.replace(f"({DENOMINATOR})", "")  # never flattened next to the unit
    (account,) = parsed.page_accounts
    assert account.accounted and account.prose == account.chars_in  # the text layer's characters, all in prose
    rows, _ = _rows(data)
    assert flattened_math_in_prose(rows).passed
    assert stacked_pairs_in(data, [1]) == []


def test_a_stacked_pair_no_bar_proves_fails_leak_02_with_its_page_and_words():
    data = _inline_fraction_pdf(bar=False)
    rows, text = _rows(data)
    assert f"({NUMERATOR})/" not in text  # no bar, no proof: not rewritten
    result = flattened_math_in_prose(rows)
    assert not result.passed and result.offending_ids == ("d:s:1",) and result.pages == (1,)
    assert "p1: two words stacked, read apart (a fraction without a bar, a binomial, stacked scripts):" in result.message
    assert f"'{NUMERATOR} / {DENOMINATOR}'" in result.message
    # inside a lifted block, the pair is the block's
    block = {"page_no": 1, "bbox": (60, 88, 540, 108), "kind": "formula"}
    assert flattened_math_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=rows.chunks, blocks=[block], source=data)).passed


def test_lines_of_small_text_are_not_stacked_pairs():
    """Two lines of a footnote set in the same small size stand over each
    other with no larger word of a line between them: no pair."""
    a = _word("see", (72, 90, 84, 97))
    b = _word("note", (72, 98, 88, 105))
    c = _word("also", (90, 90, 104, 97))
    assert stacked_pairs([make_fragment([a, c], 0), make_fragment([b], 1)]) == []
    host = Word("x", (60, 92, 66, 104), 10.0, False, False, 2)
    assert [p.text for p in stacked_pairs([make_fragment([host], 2), make_fragment([a], 0), make_fragment([b], 1)])] == ["see / note"]


@pytest.mark.corpus
def test_corpus_inline_fractions():
    """pdfminer issue 1061 (IEEE, p. 9): ``(ϵ/4γ, ϵ/γ)-admissible`` set with
    drawn bars reads in its line (before: ``( ^ϵ`` / ``_{4γ} , ^ϵ`` /
    ``_γ )-admissible`` in three paragraphs); papermage aaai p. 7:
    ``2 × ⌊d/2⌋`` has no drawn bar (and its floor brackets have no Unicode
    mapping), so ``d`` over ``2`` is found and named, never read ``d 2``
    silently."""
    ieee = parse_document(corpus_path("pdfminer__issue-1061-ieee-differential-privacy.pdf").read_bytes(), Format.PDF, Settings())
    assert "This noise distribution is ( ϵ/(4γ) , ϵ/γ )-admissible to achieve DP" in " ".join(s.text for s in ieee.segments)
    assert all(a.accounted for a in ieee.page_accounts)
    aaai = corpus_path("papermage__2202.00535v1_aaai.pdf").read_bytes()
    assert {(page, text) for page, text, _ in stacked_pairs_in(aaai, [7])} >= {(7, "d / 2")}


def test_a_fraction_in_the_lines_own_size_over_a_fitted_bar_is_a_barred_pair():
    """``df/dx`` set in the text's size (a display in prose): not joined (no
    script size proves it), found over its bar; an underlined word with a
    longer line under it is not."""
    from duocthu_assets.parse.pdf.read.fractions import barred_pairs
    from duocthu_assets.parse.pdf.records import Rule

    df = Word("df", (292.2, 483.8, 304.5, 495.7), 12.0, False, False, 0)
    dx = Word("dx", (292.4, 500.1, 305.5, 512.0), 12.0, False, False, 1)
    bar = Rule(292.2, 497.8, 305.8, 497.8, True)
    assert [p.text for p in barred_pairs([make_fragment([df], 0), make_fragment([dx], 1)], [bar])] == ["df / dx"]
    joined = Word("(df)/(dx)", (292.2, 483.8, 305.8, 512.0), 12.0, False, False, 0, False, "dfdx", "    ")
    assert barred_pairs([make_fragment([joined], 0)], [bar]) == []  # a fraction already joined spans its bar
    heading = Word("Dosage", (72, 90, 110, 100), 10.0, False, False, 0)
    under = Rule(72, 101.5, 110, 101.5, True)
    below = Word("Adults:", (72, 103, 114, 113), 10.0, False, False, 1)  # the next line's word runs past the underline
    assert barred_pairs([make_fragment([heading], 0), make_fragment([below], 1)], [under]) == []


@pytest.mark.corpus
def test_display_fractions_read_into_lines_are_lifted_whole():
    """IEEE p. 8: ``Pr(N = i) = (1−α)/(1+α) α^{|i|}`` — MuPDF reads the
    numerator into the line (``Pr(N = i) = 1 −α``) and the denominator with
    the power (``1 + αα^{|i|}.``), so no fragment is a numerator; the pair
    over the bar proves the formula and its line holds no running text: it
    is lifted whole (before: two prose lines, blocked by leak_02). The
    formula sheet's ``d/dx(f + g) = df/dx + dg/dx`` likewise; its next
    line (integrals) stays prose."""
    from duocthu_assets.model import BlockKind

    ieee = parse_document(corpus_path("pdfminer__issue-1061-ieee-differential-privacy.pdf").read_bytes(), Format.PDF, Settings())
    formulas = [b for b in ieee.blocks if b.kind == BlockKind.FORMULA and b.page_no == 8]
    assert any("Pr(N = i) = 1 −α" in b.text and "1 + α" in b.text for b in formulas)
    assert "Pr(N = i)" not in " ".join(s.text for s in ieee.segments)
    sheet = parse_document(corpus_path("pymupdf__test_5049_formula_sheet.pdf").read_bytes(), Format.PDF, Settings())
    assert any(b.kind == BlockKind.FORMULA and b.text.startswith("dx(f + g) = df") for b in sheet.blocks)
    assert "df d dx" not in " ".join(s.text for s in sheet.segments)


def _word_formula_pdf() -> bytes:
    """A decree's formula set in words: two cells of words, each over two
    lines, an ``=`` and an ``x`` between them on the cells' middle, and a
    paragraph of prose above it whose line holds a spaced ``=`` inline."""
    doc = pymupdf.open()
    page = doc.new_page()
    put, _ = text_writer(page)
    put(72, 80, "The rent is computed as follows, where the unit price = the land price of the table:", 10)
    put(72, 130, "Rent payable", 10)
    put(72, 142, "for the whole term", 10)
    put(158, 136, "=", 10)
    put(172, 130, "Area of land on", 10)
    put(172, 142, "which rent is paid", 10)
    put(254, 136, "x", 10)
    put(268, 130, "Unit price of the", 10)
    put(268, 142, "rent for one year", 10)
    return doc.tobytes()


def test_a_formula_set_in_words_read_into_prose_fails_leak_02():
    data = _word_formula_pdf()
    found = [text for _, text, _ in lone_operators_in(data, [1])]
    assert any(" = " in t for t in found) and any(" x " in t for t in found)
    text = " ".join(s.text for s in parse_document(data, Format.PDF, Settings()).segments)
    chunk = {"chunk_id": "d:s:1", "chunk_kind": "prose", "text": text, "regions": [{"page_no": 1, "bbox": (60, 60, 540, 160)}]}
    rows = DocumentRows("d", raw={"format": "pdf"}, chunks=[chunk], source=data)
    result = flattened_math_in_prose(rows)
    assert not result.passed and result.offending_ids == ("d:s:1",) and result.pages == (1,)
    assert "a formula set in words read into prose (its cells apart):" in result.message
    # lifted in a block, it is the block's
    block = {"page_no": 1, "bbox": (60, 118, 540, 150), "kind": "table"}
    assert flattened_math_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=rows.chunks, blocks=[block], source=data)).passed


def test_an_operator_inside_a_paragraph_is_not_a_formula_in_words():
    """IEEE p. 7: a justified line spaces ``κ(x) = f(x) +`` so far apart
    that the ``=`` is a fragment of its own; the lines of its paragraph
    stand over and under it."""
    ieee = corpus_path("pdfminer__issue-1061-ieee-differential-privacy.pdf").read_bytes()
    assert lone_operators_in(ieee, [7]) == []


def test_a_formula_set_in_words_is_lifted_whole():
    """The parser lifts the word formula (both operators, all three cells,
    every line of each) as one ``formula_2d``; the paragraph above stays
    prose."""
    from duocthu_assets.model import BlockKind

    parsed = parse_document(_word_formula_pdf(), Format.PDF, Settings())
    (block,) = [b for b in parsed.blocks if b.kind == BlockKind.FORMULA]
    for piece in ("Rent payable", "for the whole term", "=", "Area of land on", "which rent is paid", "x", "Unit price of the", "rent for one year"):
        assert piece in block.text
    prose = " ".join(s.text for s in parsed.segments)
    assert "The rent is computed as follows" in prose and "Area of land" not in prose
    assert all(a.accounted for a in parsed.page_accounts)


@pytest.mark.corpus
def test_decree_formulas_set_in_words_are_all_lifted():
    """50-2026-ND-CP: every operator of a formula set in words lies in a
    lifted block (before: pp. 13, 17 and 24 read into prose, their cells
    interleaved)."""
    data = corpus_path("diepxuan__50-2026-ND-CP.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    blocks = [(b.page_no, b.bbox) for b in parsed.blocks]
    operators = lone_operators_in(data, list(range(1, 31)))
    assert len(operators) >= 20
    for page, text, box in operators:
        assert any(p == page and b[0] - 1 <= box[0] and box[2] <= b[2] + 1 and b[1] - 1 <= box[1] and box[3] <= b[3] + 1 for p, b in blocks), (page, text)


def _image_bar_pdf(numerator: str, denominator: str, lead: str = "CrCl = ") -> bytes:
    """A display fraction in the text's own size whose bar is a 1-pixel
    raster image stretched to a 0.5 pt line, as TeX drivers draw it (jcap,
    aaai): no vector stroke anywhere on the page."""
    doc = pymupdf.open()
    page = doc.new_page()
    put, font = text_writer(page)
    put(72, 86, "Adjust the dose to the creatinine clearance of the patient, estimated as", 10)
    x = put(120, 120, lead, 10)
    wn, wd = font.text_length(numerator, 10), font.text_length(denominator, 10)
    width = max(wn, wd) + 2
    put(x + (width - wn) / 2, 110.5, numerator, 10)
    put(x + (width - wd) / 2, 129.5, denominator, 10)
    pixel = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 1, 1), False)
    pixel.clear_with(0)
    page.insert_image(pymupdf.Rect(x, 116.3, x + width, 116.8), pixmap=pixel, keep_proportion=False)
    put(72, 150, "A second line of prose follows the formula here and ends the paragraph.", 10)
    return doc.tobytes()


def test_a_display_fraction_whose_bar_is_an_image_is_lifted_whole():
    """Before, a bar drawn as a raster image was no bar: the Cockcroft-Gault
    fraction read ``CrCl = (140 - age) x weight`` then ``72 x SCr`` in prose,
    a division shown as two lines, with nothing flagged."""
    from duocthu_assets.model import BlockKind

    parsed = parse_document(_image_bar_pdf(NUMERATOR, DENOMINATOR), Format.PDF, Settings())
    (formula,) = [b for b in parsed.blocks if b.kind == BlockKind.FORMULA]
    assert NUMERATOR in formula.text and DENOMINATOR in formula.text and "CrCl =" in formula.text
    prose = " ".join(s.text for s in parsed.segments)
    assert DENOMINATOR not in prose and "CrCl" not in prose


def test_a_short_fraction_over_an_image_bar_left_in_prose_fails_leak_02():
    """The check reads image bars too: ``df`` over ``dx`` read into a prose
    chunk is named with its page and words."""
    data = _image_bar_pdf("df", "dx", lead="f' = ")
    chunk = {"chunk_id": "d:s:1", "chunk_kind": "prose", "text": "f' = df dx", "regions": [{"page_no": 1, "bbox": (60, 70, 540, 160)}]}
    result = flattened_math_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=[chunk], source=data))
    assert not result.passed and result.offending_ids == ("d:s:1",)
    assert "'df / dx'" in result.message


@pytest.mark.corpus
def test_corpus_fractions_drawn_with_image_bars():
    """jcap (arXiv, JCAP) draws every fraction bar as a 1-pixel image. Before:
    equation (6) ``κρc² = 2M′/(R²R′),`` read as two prose lines and the
    document passed every check. Now it is a formula block (its
    denominator's comma and its tall parentheses no longer hide it), eq. (9)'s
    block holds its numerators, and the fractions still read into prose
    (p. 6's ``Ṙ′/R′``, eq. 16) are named by leak_02."""
    from duocthu_assets.model import BlockKind

    data = corpus_path("grobid__0807.3577_jcap_math.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    assert any(b.kind == BlockKind.FORMULA and b.page_no == 5 and "2M^′(r)" in b.text and "R^2(r, t)R^′(r, t)," in b.text for b in parsed.blocks)
    assert "κρ(r, t)c^2" not in " ".join(s.text for s in parsed.segments if s.page_no == 5)
    # equation (9): the display finder took its axis line; the block grows over its bars' numerators
    assert any(b.page_no == 5 and "Θ =" in b.text and "˙R′ | ˙R" in b.text for b in parsed.blocks)
    assert not any(s.page_no == 5 and "˙R′ ˙R" in s.text for s in parsed.segments)
    assert (6, "R˙ / R′") in {(page, text) for page, text, _ in stacked_pairs_in(data, [6])}


def test_a_math_glyph_stretched_over_the_next_line_does_not_join_the_two():
    """stream_parameter p. 1: ``∼N(0,`` has a box from 668 to 687 on a 10 pt
    line set at 669-678 (a math font's descent); the next line, 681-690,
    overlapped it by more than half its height and the two read as one row:
    ``image by using by initializing x_T ∼N(0, 1) …``."""
    from duocthu_assets.parse.pdf.layout.items import Item
    from duocthu_assets.parse.pdf.layout.order import order_lines

    def frag(words, line_id):
        return make_fragment([Word(t, b, 10.0, False, False, line_id) for t, b in words], line_id)

    first = frag([("by", (49, 669.1, 58.9, 678)), ("initializing", (63, 669.1, 106.2, 678)), ("∼N(0,", (130, 668.2, 160, 687)), ("1)", (162, 669.1, 170, 678))], 1)
    second = frag([("image", (48.9, 681.1, 73.3, 690)), ("by", (76.8, 681.1, 86.8, 690)), ("using", (90.2, 681.1, 111.8, 690))], 2)
    ordered = order_lines([Item(second.bbox, fragment=second), Item(first.bbox, fragment=first)])
    assert [i.fragment.line_id for i in ordered] == [1, 2]


@pytest.mark.corpus
def test_corpus_stream_parameter_reads_its_lines_in_order():
    parsed = parse_document(corpus_path("doclingparse__stream_parameter_misinterpretation_01.pdf").read_bytes(), Format.PDF, Settings())
    text = " ".join(s.text for s in parsed.segments)
    assert "by initializing x_T ∼N(0, 1) and, in T steps, denoising the image by using" in text
    assert "Let tumor binary masks M ∈R^{L×H×W} ^{×D} be longitudinal 3D tumor volumes" in text


def test_a_pair_half_inside_a_lifted_block_still_fails_leak_02():
    """A block that took the denominator's line but not the numerator's
    (jcap p. 5's ``Θ = Ṙ′/R′ + 2Ṙ/R`` before its block grew over its bars)
    does not resolve the pair: the numerator is in prose."""
    data = _inline_fraction_pdf(bar=False)
    rows, _ = _rows(data)
    half = {"page_no": 1, "bbox": (60, 99, 540, 108), "kind": "formula"}  # the denominator's line only
    result = flattened_math_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=rows.chunks, blocks=[half], source=data))
    assert not result.passed and f"'{NUMERATOR} / {DENOMINATOR}'" in result.message


def _cell_lines_left(data: bytes, parsed) -> list:
    from duocthu_assets.parse.pdf.audit.inspection import inspect_tables

    every = [(b.page_no, b.bbox) for b in parsed.blocks]
    formulas = [(b.page_no, b.bbox) for b in parsed.blocks if b.kind.value == "formula"]
    return [leak for leak in inspect_tables(data, [], every, formulas).leaks if leak.what == "formula cell line"]


def test_a_fraction_set_in_words_over_several_lines_is_lifted_whole():
    """The stress case ``word_fraction`` (50/2026/NĐ-CP p. 16's layout): the
    numerator's three lines, the denominator's two and both side cells'
    three are one ``formula_2d``; the paragraph over it and the one under
    it stay prose, and no cell line is left outside the block."""
    from tests.support.stress_pdfs import stress

    data, expect = stress.build("word_fraction")
    parsed = parse_document(data, Format.PDF, Settings())
    (block,) = [b for b in parsed.blocks if b.kind.value == "formula"]
    assert block.shape.value == "formula_2d"
    for line in expect.formulas:
        assert line in block.text, (line, block.text)
    prose = " ".join(s.text for s in parsed.segments)
    assert all(p in prose for p in expect.prose)
    assert not any(line in prose for line in ("Diện tích đất", "nhân (x)", "chuyển mục đích", "dụng đất còn"))
    assert _cell_lines_left(data, parsed) == []


def test_a_cell_line_left_outside_its_formula_fails_leak_01(monkeypatch):
    """The parser as it was: a fraction's bar took its nearest rows only
    (and no formula grew over its cells' lines).
    The leak detector names the cell lines left just over and under the
    block, and leak_01 fails the document with the prose chunk holding them."""
    from checks.leaks import table_row_in_prose
    from duocthu_assets.parse.pdf.blocks import find as pdf_blocks, formulas as pdf_formulas

    from tests.support.stress_pdfs import stress

    monkeypatch.setattr(pdf_formulas, "_cell", lambda lines, fragments, fits: list(lines))
    monkeypatch.setattr(pdf_blocks, "with_cell_lines", lambda blocks, fragments: blocks)
    data, _ = stress.build("word_fraction")
    parsed = parse_document(data, Format.PDF, Settings())
    left = _cell_lines_left(data, parsed)
    texts = {leak.text for leak in left}
    assert {"nhân (x) giá đất tương ứng với", "đất trước khi chuyển mục đích"} <= texts, texts
    assert all(leak.page_no == 1 for leak in left)
    blocks = [{"page_no": b.page_no, "bbox": b.bbox, "kind": b.kind.value} for b in parsed.blocks]
    chunks = [
        {"chunk_id": f"d:s:{k}", "chunk_kind": "prose", "text": s.text, "regions": [{"page_no": s.page_no, "bbox": s.bbox}]}
        for k, s in enumerate(parsed.segments)
    ]
    result = table_row_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=chunks, blocks=blocks, source=data))
    assert not result.passed and result.pages and set(result.pages) == {1}
    assert "formula cell line 'đất trước khi chuyển mục đích'" in result.message, result.message
    holders = {c["chunk_id"] for c in chunks if "chuyển mục đích" in c["text"]}
    assert holders and holders <= set(result.offending_ids)


@pytest.mark.corpus
def test_decree_fractions_set_in_words_keep_every_cell_line():
    """50-2026-ND-CP p. 16: two fractions whose numerator, denominator and
    side cells run over several lines (before: the bar's nearest rows were
    lifted, the rest read across as one garbled sentence of prose). No cell
    line is left anywhere: p. 24's ``sử dụng đất thì:``, a paragraph's short
    last line over a cell's first line, is the paragraph's (its full-width
    line over it)."""
    data = corpus_path("diepxuan__50-2026-ND-CP.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    page = [b for b in parsed.blocks if b.page_no == 16 and b.kind.value == "formula"]
    assert len(page) == 2
    assert "Diện tích đất có thu tiền thuê đất nhân (x)" in page[0].text and "chuyển mục đích" in page[0].text.split("\n")[-1]
    assert "Diện tích đất nhân (x) giá đất tương" in page[1].text and "Tiền đất trước" in page[1].text
    prose = [s.text for s in parsed.segments if s.page_no == 16]
    assert not any("Diện tích đất" in t or t.startswith("Tiền đất trước") for t in prose), prose
    assert _cell_lines_left(data, parsed) == []


@pytest.mark.corpus
def test_words_of_a_justified_paragraph_around_an_inline_formula_are_no_cell_lines():
    """aaai p. 2: a narrow justified column spaces ``and a generic sequence
    of tokens denoting`` into one fragment per word, under a formula set at
    the end of a paragraph's line; they are the paragraph's, not a cell's."""
    data = corpus_path("papermage__2202.00535v1_aaai.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    assert _cell_lines_left(data, parsed) == []


@pytest.mark.corpus
def test_a_limit_line_under_a_big_operator_joins_its_formula():
    """IEEE p. 3: ``Δf = max_{x,y∈D, d(x,y)=1} ‖f(x) − f(y)‖₁``; the display
    finder took the operator with its first limit line, the second
    (``d(x,y)=1``, set solid under it) was read into the next paragraph."""
    data = corpus_path("pdfminer__issue-1061-ieee-differential-privacy.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    (block,) = [b for b in parsed.blocks if b.page_no == 3 and b.kind.value == "formula" and "max" in b.text and "D" in b.text and b.bbox[1] < 300]
    assert "d(x,y)=1" in block.text
    assert not any(s.text.startswith("d(x,y)=1") for s in parsed.segments if s.page_no == 3)
    assert _cell_lines_left(data, parsed) == []


def _line(text: str, x0: float, top: float, size: float = 10.0):
    """One fragment of words 6 pt apart per character, a line's height high."""
    words, x = [], x0
    for token in text.split():
        words.append(_word(token, (x, top, x + 5.0 * len(token), top + 1.2 * size), size))
        x += 5.0 * len(token) + 3.0
    return make_fragment(words, 0)


def test_a_formula_ending_with_an_operator_goes_on_into_its_lines_of_math_not_into_prose():
    from duocthu_assets.parse.pdf.audit.formulas import formula_goes_on
    from duocthu_assets.parse.pdf.blocks.lines import continued_lines

    head = _line("S_{max}(D) =", 80, 100)
    box = head.bbox
    math = [_line("max {exp(−kϵ)(max(Dom(A)) −x_{n−k}),", 82, 112.5), _line("exp(−kϵ)(x_n −x_{n−k−1})}.", 82, 125)]
    after = _line("Calibration to the smooth sensitivity is effective", 60, 150)
    fragments = [head, *math, after]
    # the lines of math it goes on into, down to the gap before the paragraph
    assert continued_lines(box, fragments, math + [after]) == math
    assert formula_goes_on(10, fragments, [box]) and formula_goes_on(10, fragments, [box])[0].text == math[0].text
    # a line of prose under it: not taken, and named
    prose = _line("y) Pr(A(y) = x) and we use that M satisfies", 80, 112.5)
    assert continued_lines(box, [head, prose], [prose]) == []
    (leak,) = formula_goes_on(7, [head, prose], [box])
    assert leak.what == "line a formula goes on into" and leak.text.startswith("y) Pr(A(y) = x)")
    # a formula ending its line with no operator goes on into nothing
    done = _line("S_{max}(D) = 1.", 80, 100)
    assert continued_lines(done.bbox, [done, prose], [prose]) == [] and formula_goes_on(7, [done, prose], [done.bbox]) == []


@pytest.mark.corpus
def test_a_display_equation_ending_its_first_line_with_an_operator_is_lifted_whole():
    """IEEE p. 10: ``S_{maximum,ϵ}(D) =`` was lifted alone; its right-hand
    side (``max`` with its limit, two lines of braces) was read into prose
    out of order. p. 7's formula, cut inside a paragraph's line
    (``Pr(M(d) =`` in the block, ``y) Pr(A(y) = x) and we use that …``
    in prose), is named by leak_01 instead: that line holds prose."""
    from duocthu_assets.parse.pdf.audit.inspection import inspect_tables

    data = corpus_path("pdfminer__issue-1061-ieee-differential-privacy.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    (block,) = [b for b in parsed.blocks if b.page_no == 10 and "maximum,ϵ}(D) =" in b.text]
    for piece in ("max", "k=0,...,n", "exp(−kϵ)(x_n"):
        assert piece in block.text, block.text
    assert not any("k=0,...,n" in s.text for s in parsed.segments if s.page_no == 10)
    every = [(b.page_no, b.bbox) for b in parsed.blocks]
    formulas = [(b.page_no, b.bbox) for b in parsed.blocks if b.kind.value == "formula"]
    leaks = inspect_tables(data, [], every, formulas).leaks
    assert [(leak.page_no, leak.what) for leak in leaks] == [(7, "line a formula goes on into")], leaks


def test_a_wrapped_cells_next_line_does_not_hide_the_rows_under_it():
    """aaai p. 4: under the block, ``marked as needing improvement`` (the
    second line of a cell of the second column) stood first; the check
    stopped there and Table 1's last two rows went to prose unnamed. A line
    of one piece on a column's left edge (not the first column: a paragraph
    starts there) is stepped over."""
    from duocthu_assets.parse.pdf.audit.tables import leaked_rows

    table = [_line("Input", 60, 100), _line("why do all of my questions", 150, 100),
             _line("LPT", 60, 115), _line("why do my questions get", 150, 115)]
    box = (58.0, 98.0, 290.0, 128.0)
    wrapped = _line("marked as needing", 150, 130)
    row = [_line("NC-RAPT", 60, 145), _line("why is my question being", 150, 145)]
    leaks = leaked_rows(4, table + [wrapped] + row, [box])
    assert [leak.text for leak in leaks] == ["NC-RAPT why is my question being"]
    # a paragraph under the table (its lines start at the first column's edge) ends the rows
    paragraph = [_line("Here Y is the truth for X and we keep", 60, 130), *row]
    assert leaked_rows(4, table + paragraph, [box]) == []


@pytest.mark.corpus
def test_aaai_table_1s_last_rows_no_longer_left_in_prose():
    """aaai p. 4: Table 1 (left column) was found together with Table 3
    (right column) as one block ending at Table 3's foot; Table 1's last two
    rows were in prose, named by leak_01. The layout now reads the two
    tables in their own columns (layout/columns.side_by_side, tested in
    blocks/test_stress): no row of a table is left under it on p. 4."""
    from duocthu_assets.parse.pdf.audit.inspection import inspect_tables

    data = corpus_path("papermage__2202.00535v1_aaai.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    tables = [(b.page_no, b.bbox) for b in parsed.blocks if b.kind.value == "table"]
    leaks = inspect_tables(data, tables, [(b.page_no, b.bbox) for b in parsed.blocks]).leaks
    assert not any(leak.page_no == 4 for leak in leaks), leaks


def _lost_outside_blocks(data: bytes, parsed) -> list:
    from duocthu_assets.parse.pdf.audit.glyphs import lost_glyphs_in

    blocks = [(b.page_no, b.bbox) for b in parsed.blocks]
    return [
        (page, text) for page, text, box in lost_glyphs_in(data, list(range(1, parsed.page_count + 1)))
        if not any(p == page and b[0] <= (box[0] + box[2]) / 2 <= b[2] and b[1] <= (box[1] + box[3]) / 2 <= b[3] for p, b in blocks)
    ]


@pytest.mark.corpus
def test_numbered_display_equations_whose_parentheses_have_no_unicode_are_lifted():
    """dpr p. 7: ``P_{start,i}(s) = softmax(P_i w_start)_s, (3)`` and (4)
    were read into prose as ``softmax P_iw_{start} _s``: the tall
    parentheses have no Unicode mapping, so the text lost them, silently.
    A numbered line set apart that is one relation with marked scripts is
    a display: (3)-(5) are one formula block, its crop shows them."""
    data = corpus_path("unstructured__multi-column_dpr.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    (block,) = [b for b in parsed.blocks if b.page_no == 7 and b.kind.value == "formula" and "softmax" in b.text]
    assert "P_{start,i}(s)" in block.text and "P_{end,i}(t)" in block.text and "(5)" in block.text
    assert not any("softmax" in s.text for s in parsed.segments if s.page_no == 7)
    assert _lost_outside_blocks(data, parsed) == []


@pytest.mark.corpus
def test_a_math_glyph_with_no_unicode_left_out_of_prose_fails_leak_02():
    """aaai p. 7: ``⌊d/2⌋``'s floor brackets have no Unicode mapping; the
    lines that lost them are named (the document was already blocked for
    the stacked ``d/2``; now the lost glyphs are named too). A list's
    bullets with no mapping (redp5110) are not math and are not named."""
    from checks.leaks import flattened_math_in_prose

    data = corpus_path("papermage__2202.00535v1_aaai.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    assert {page for page, _ in _lost_outside_blocks(data, parsed)} == {7}
    chunks = [
        {"chunk_id": f"d:s:{k}", "chunk_kind": "prose", "text": s.text, "regions": [{"page_no": s.page_no, "bbox": s.bbox}]}
        for k, s in enumerate(parsed.segments) if s.page_no == 7
    ]
    blocks = [{"page_no": b.page_no, "bbox": b.bbox, "kind": b.kind.value} for b in parsed.blocks]
    result = flattened_math_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=chunks, blocks=blocks, source=data))
    assert not result.passed and 7 in result.pages
    assert "a math glyph with no Unicode mapping left out of its line (shown ⍰)" in result.message, result.message
    redp = corpus_path("docling__redp5110_sampled.pdf").read_bytes()
    assert _lost_outside_blocks(redp, parse_document(redp, Format.PDF, Settings())) == []


@pytest.mark.corpus
def test_a_line_that_lost_a_glyph_and_holds_no_word_of_prose_is_named_as_math():
    """A line that lost a glyph with no Unicode mapping and holds no word of
    three letters is a symbol with its scripts, not prose: IEEE p. 10's plot
    legends ``DP γ=3`` (the ``=`` has no mapping: the text read ``DP Γ3``)
    and aaai p. 7's ``⌊d`` lines were dropped from their lines with no
    check naming them. Lines of words that lost a glyph are left alone: the
    Korean report's quotation marks, redp5110's bullets before their items."""
    ieee = corpus_path("pdfminer__issue-1061-ieee-differential-privacy.pdf").read_bytes()
    named = _lost_outside_blocks(ieee, parse_document(ieee, Format.PDF, Settings()))
    # nine legends, each in its plot, lifted with it as a picture (read/pictures.drawn_figures): none left in prose
    # (before, the lost ``=`` shown, ``DP Γ�3``, made eight of them formula blocks and the ninth was named here)
    assert [text for page, text in named if page == 10] == []
    aaai = corpus_path("papermage__2202.00535v1_aaai.pdf").read_bytes()
    assert ("⍰d" in {text for page, text in _lost_outside_blocks(aaai, parse_document(aaai, Format.PDF, Settings())) if page == 7})
    korean = corpus_path("docling__normal_4pages_korean.pdf").read_bytes()
    assert _lost_outside_blocks(korean, parse_document(korean, Format.PDF, Settings())) == []
