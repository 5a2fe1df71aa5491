"""Inline superscripts and subscripts that stay in prose (issue 15): one
convention, ``x^3`` / ``x_i`` (``10^{−3}`` for a run of several characters),
never glued to the base (``x3``). The marks are not characters of the text
layer: the character accounting of issue 16 still counts the page's own
characters, and the leak detector reads marked scripts as faithful math."""

from __future__ import annotations

import pytest

from duocthu_assets.model import Format, SegmentKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.audit.flattened_math import flattened_math
from duocthu_assets.parse.pdf.records import unmark
from duocthu_assets.parse.pdf.read.page import TEXT_FLAGS
from duocthu_assets.parse.pdf.read.script_marks import mark_scripts, script_marks
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path
from tests.support.stress_pdfs import stress
from tests.support.pdf_pages import text_writer


def _span(text, size, origin):
    return {"text": text, "size": size, "origin": origin}


def test_marks_follow_the_convention():
    assert mark_scripts("x3", ["", "^"]) == "x^3"
    assert mark_scripts("xi", ["", "_"]) == "x_i"
    assert mark_scripts("10−3", ["", "", "^", "^"]) == "10^{−3}"
    assert mark_scripts("xi2", ["", "_", "^"]) == "x_i^2"
    assert mark_scripts("plain", [""] * 5) == "plain"


def test_a_script_is_smaller_and_off_the_baseline_in_the_lines_direction():
    line = {"dir": (1, 0), "spans": [_span("x", 10, (0, 100)), _span("3", 7, (6, 96)), _span(" + y", 10, (10, 100)), _span("i", 7, (30, 102))]}
    assert script_marks(line) == ["", "^", "", "", "", "", "_"]
    # the same line set sideways (running up the page): "up" is to the left
    turned = {"dir": (0, -1), "spans": [_span("x", 10, (100, 0)), _span("3", 7, (96, -6)), _span(" + y", 10, (100, -10)), _span("i", 7, (102, -30))]}
    assert script_marks(turned) == ["", "^", "", "", "", "", "_"]
    # smaller on the same baseline (small capitals, a smaller cell) is no script
    assert script_marks({"dir": (1, 0), "spans": [_span("ABC", 10, (0, 100)), _span("def", 7, (20, 100))]}) is None
    # one size throughout: nothing to mark, however the spans sit
    assert script_marks({"dir": (1, 0), "spans": [_span("ab", 10, (0, 100)), _span("cd", 10, (20, 96))]}) is None


def test_a_long_run_of_smaller_raised_text_is_another_cell_not_a_script():
    """docling__right_to_left_03_persian_form.pdf: a value (``سازمان ملی
    استاندارد ايران``, smaller, set higher) on the MuPDF line of its label
    read ``^{سازمان} ^{ملی} ^{استاندارد} ^{ايران}``. A run of more than
    SCRIPT_MAX_CHARS readable characters is no script, blank spans inside
    it included; a short one still is."""
    cell = [_span("مرجع صادرکننده استاندارد", 11, (390, 100))]
    value = [_span("سازمان", 9, (240, 97)), _span(" ", 9, (236, 97)), _span("ملی", 9, (222, 97)), _span(" ", 9, (218, 97)), _span("استاندارد ايران", 9, (167, 97))]
    assert script_marks({"dir": (1, 0), "spans": cell + value}) is None
    assert script_marks({"dir": (1, 0), "spans": [_span("10", 10, (0, 100)), _span("−3", 7, (12, 96)), _span(" mg", 10, (20, 100))]}) == ["", "", "^", "^", "", "", ""]


def test_inline_scripts_read_with_marks_and_every_character_is_still_accounted():
    data, expect = stress.build("inline_scripts")
    parsed = parse_document(data, Format.PDF, Settings())
    prose = " ".join(s.text for s in parsed.segments if s.kind is not SegmentKind.HEADING)
    for phrase in expect.prose:
        assert phrase in prose, (phrase, prose)
    assert "x1," not in prose and "mg/m2 " not in prose
    assert not parsed.blocks  # inline math stays in its paragraph
    # the marks are no characters of the text layer: chars_in is the page's own count
    page = pymupdf.open(stream=data, filetype="pdf")[0]
    own = sum(not c.isspace() for c in page.get_textpage(flags=TEXT_FLAGS).extractText())
    (account,) = parsed.page_accounts
    assert account.accounted and account.chars_in == own == account.prose
    # the leak detector reads marked scripts as faithful, the glued text as flattened math
    line = next(s.text for s in parsed.segments if "x_1" in s.text)
    assert flattened_math(line) is None
    assert flattened_math(unmark(line)) is not None


@pytest.mark.corpus
def test_formula_sheet_and_math_paper_keep_their_powers():
    sheet = parse_document(corpus_path("pymupdf__test_5049_formula_sheet.pdf").read_bytes(), Format.PDF, Settings())
    text = " ".join(s.text for s in sheet.segments)
    assert "a^2 + b^2 = c^2" in text and "e^{iπ} + 1 = 0" in text
    paper = parse_document(corpus_path("grobid__0807.3577_jcap_math.pdf").read_bytes(), Format.PDF, Settings())
    text = " ".join(s.text for s in paper.segments)
    assert "10^{−3}" in text and "kpc^{−1}" in text and "10−3" not in text
    for parsed in (sheet, paper):
        assert all(a.accounted for a in parsed.page_accounts)
        assert not [s.text for s in parsed.segments if s.kind is not SegmentKind.HEADING and flattened_math(s.text)]


@pytest.mark.corpus
def test_a_one_line_display_with_a_superscript_is_lifted():
    """docling__code_and_formula.pdf p. 2: ``a^2 + 8 = 12`` centred on a line
    of its own is a display formula (before: a paragraph ``a2 + 8 = 12``)."""
    from duocthu_assets.model import BlockKind, BlockShape

    parsed = parse_document(corpus_path("docling__code_and_formula.pdf").read_bytes(), Format.PDF, Settings())
    (formula,) = [b for b in parsed.blocks if b.kind is BlockKind.FORMULA]
    assert formula.page_no == 2 and formula.shape is BlockShape.FORMULA_2D and formula.text == "a^2 + 8 = 12"
    assert not any("8 = 12" in s.text for s in parsed.segments)


@pytest.mark.corpus
def test_footnotes_and_prose_lines_with_scripts_stay_prose():
    """A footnote (``^∗Equal contribution``) and a prose line holding inline
    math (``let P_i ∈ R^{L×h} (1 ≤ i ≤ k) be``) are not display formulas."""
    parsed = parse_document(corpus_path("unstructured__multi-column_dpr.pdf").read_bytes(), Format.PDF, Settings())
    formulas = " ".join(b.text for b in parsed.blocks if b.kind.value == "formula")
    assert "Equal contribution" not in formulas and "Specifically" not in formulas
    assert "sim(q, p) = E_Q(q)^⊺E_P (p)." in formulas  # its display (1) is


# --- scripts MuPDF sets on lines of their own (read/scripts) ------------------------------


def _line(*spans, direction=(1, 0)):
    """A MuPDF line dict of ``(text, size, x0, baseline)`` spans, glyphs 0.5 em wide."""
    out = []
    for text, size, x0, base in spans:
        out.append({"text": text, "size": size, "origin": (x0, base), "bbox": (x0, base - 0.8 * size, x0 + 0.5 * size * len(text), base + 0.2 * size)})
    return {"dir": direction, "spans": out, "bbox": (min(s["bbox"][0] for s in out), min(s["bbox"][1] for s in out), max(s["bbox"][2] for s in out), max(s["bbox"][3] for s in out))}


def test_a_raised_or_lowered_line_touching_the_end_of_a_line_is_its_script():
    from duocthu_assets.parse.pdf.read.scripts import attach_script_lines

    host = _line(("the cube x", 10, 100, 200))  # ends at x = 150
    sup = _line(("3", 7, 150, 194))  # 0.6 em up
    sub = _line(("i", 7, 150, 203), (" and more", 10, 154, 200))  # a subscript opening the rest of the line
    mark = _line(("12", 7, 300, 194))  # far from any line's end: nothing to belong to
    attached = attach_script_lines([host, sup, sub, mark], (1, 0))
    assert {k: a.host for k, a in attached.items()} == {1: 0, 2: 0}
    assert attached[1].baseline == -200 and attached[1].size == 10  # measured against the host: "up" is -y


def test_what_is_set_apart_for_a_reason_is_not_attached():
    from duocthu_assets.parse.pdf.read.scripts import attach_script_lines

    body = _line(("a line of prose", 10, 100, 200))  # ends at x = 175
    footnote = _line(("1 A footnote", 8, 175, 212))  # 1.2 em below: a line of its own
    wide = _line(("cell", 7, 185, 196))  # 10 points after the line's end: a cell, a label
    big_sum = _line(("∑", 15, 300, 200))
    limit = _line(("i=1", 7, 302, 209))  # under the operator, not after it
    fraction = [_line(("(", 10, 400, 200)), _line(("ϵ", 7, 405, 196)), _line(("4γ", 7, 405, 203))]  # (ϵ/4γ
    lines = [body, footnote, wide, big_sum, limit, *fraction]
    assert attach_script_lines(lines, (1, 0)) == {}


def test_a_script_before_its_line_and_a_right_to_left_line():
    from duocthu_assets.parse.pdf.read.scripts import attach_script_lines

    mark = _line(("1", 7, 95.5, 195))  # a footnote mark opening the footnote's line
    text = _line(("See the table.", 10, 99, 200))
    assert {k: a.host for k, a in attach_script_lines([mark, text], (1, 0)).items()} == {0: 1}
    rtl = _line(("ج", 10, 160, 200), ("ب", 10, 150, 200))  # spans running leftwards
    assert attach_script_lines([rtl, _line(("2", 7, 170, 195))], (1, 0)) == {}


def test_stacked_scripts_join_their_base_in_reading_order():
    from duocthu_assets.parse.pdf.read.scripts import Part, join_parts

    p = Part(186.6, 191.6, "p", ("",), 0, 10)
    of = Part(175.2, 183.6, "of", ("", ""), 0, 10)
    sup = [Part(191.6, 209.8, "c(X,Y", ("^",) * 5, 1, 7), Part(211.3, 214.0, ")", ("^",), 1, 5)]
    sub = Part(191.6, 201.6, "1:s", ("_",) * 3, 2, 7)
    after = Part(218.0, 232.5, "and", ("",) * 3, 0, 10)
    groups = join_parts([of, p, after], [*sup, sub], 0)
    assert [["".join(x.chars for x in g)] for g in groups] == [["of"], ["pc(X,Y)1:s"], ["and"]]


def _script_lines_pdf(long_script: bool = False) -> bytes:
    """A page whose superscripts MuPDF reads as lines of their own: ``x³``
    with ``i`` stacked under the ``3`` (MuPDF starts the rest of the line
    with the ``i``), and a footnote mark after a full stop; with
    ``long_script``, a raised run too long to be an index or a mark."""
    doc = pymupdf.open()
    put, font = text_writer(doc.new_page())
    x = put(72, 100, "The volume of the cube is x", 10)
    put(x, 94, "3", 7)
    put(x, 103, "i", 7)
    x = put(x + font.text_length("3", 7) + 0.5, 100, " for every side x.", 10)
    put(x, 94, "abcdefghijklmnopqr" if long_script else "12", 7)
    put(72, 114, "A second line of prose follows the first one here.", 10)
    return doc.tobytes()


def test_scripts_on_lines_of_their_own_are_marked_in_prose():
    data = _script_lines_pdf()
    lines = [
        [s["text"] for s in line["spans"]]
        for block in pymupdf.open(stream=data, filetype="pdf")[0].get_text("dict", flags=TEXT_FLAGS)["blocks"]
        for line in block["lines"]
    ]
    assert ["3"] in lines and ["12"] in lines  # MuPDF sets them apart: the case at hand
    parsed = parse_document(data, Format.PDF, Settings())
    (text,) = [s.text for s in parsed.segments]
    assert "cube is x^3_i for every side x.^{12} A second line" in text
    (account,) = parsed.page_accounts
    assert account.accounted and account.prose == account.chars_in


@pytest.mark.corpus
def test_aaai_scripts_set_apart_read_with_their_base():
    """papermage aaai p. 4: ``p^{c(X,Y)}_{1:s}`` — MuPDF sets the
    superscript and the subscript each on a line of its own (before: ``p
    1:s`` in one paragraph, ``c(X,Y ) and q^c`` a paragraph of its own)."""
    parsed = parse_document(corpus_path("papermage__2202.00535v1_aaai.pdf").read_bytes(), Format.PDF, Settings())
    texts = [s.text for s in parsed.segments]
    text = " ".join(texts)
    assert "(p^c_{1:s}) and infix (q^c_{1:t}) se-quences" in text
    assert "we simply use p^c_{1:s} instead of p_{1:s}^{c(X,Y)} and q^c_{1:t} instead of q" in text
    assert not any(t.startswith("c(X,Y )") for t in texts)
    dpr = parse_document(corpus_path("unstructured__multi-column_dpr.pdf").read_bytes(), Format.PDF, Settings())
    assert "w^{(i)}_1, w^{(i)}_2, · · · , w^{(i)}_{|pi|}" in " ".join(s.text for s in dpr.segments)
    for doc in (parsed, dpr):
        assert all(a.accounted for a in doc.page_accounts)


def test_a_script_left_apart_in_prose_fails_leak_02_with_its_page_and_text():
    from checks.leaks import flattened_math_in_prose
    from checks.rules import DocumentRows

    data = _script_lines_pdf(long_script=True)
    parsed = parse_document(data, Format.PDF, Settings())
    assert "abcdefghijklmnopqr" in " ".join(s.text for s in parsed.segments)  # read apart, unmarked
    chunk = {"chunk_id": "d:s:1", "chunk_kind": "prose", "text": " ".join(s.text for s in parsed.segments), "regions": [{"page_no": 1, "bbox": (60, 80, 400, 120)}]}
    result = flattened_math_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=[chunk], source=data))
    assert not result.passed and result.offending_ids == ("d:s:1",) and result.pages == (1,)
    assert "p1: a script set on a line of its own, unmarked: 'abcdefghijklmnopqr'" in result.message
    # the same page with scripts the reader attaches passes
    fine = _script_lines_pdf()
    chunk = dict(chunk, text=" ".join(s.text for s in parse_document(fine, Format.PDF, Settings()).segments))
    assert flattened_math_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=[chunk], source=fine)).passed
    # a script inside a lifted block is the block's
    block = {"page_no": 1, "bbox": (60, 80, 400, 120), "kind": "formula"}
    assert flattened_math_in_prose(DocumentRows("d", raw={"format": "pdf"}, chunks=[dict(chunk, text="prose")], blocks=[block], source=data)).passed


def test_a_script_the_reader_found_but_left_apart_is_loud_too(monkeypatch):
    """When MuPDF cuts a script line's words otherwise than its characters,
    the page reader leaves it apart (unmarked): the leak scan compares the
    reader's ``script_hosts`` with the pure finder and names it."""
    import dataclasses

    from duocthu_assets.parse.pdf.read import page as pdf_page
    from duocthu_assets.parse.pdf.audit.glyphs import loose_scripts_in

    data = _script_lines_pdf()
    assert loose_scripts_in(data, [1]) == []  # the reader attaches them all
    real = pdf_page.read_page
    monkeypatch.setattr(pdf_page, "read_page", lambda page, settings: dataclasses.replace(real(page, settings), script_hosts={}))
    found = sorted(text for _, text, _ in loose_scripts_in(data, [1]))
    assert found == ["12", "3", "i for every side x."]
