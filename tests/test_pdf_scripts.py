"""Inline superscripts and subscripts that stay in prose (issue 15): one
convention, ``x^3`` / ``x_i`` (``10^{−3}`` for a run of several characters),
never glued to the base (``x3``). The marks are not characters of the text
layer: the character accounting of issue 16 still counts the page's own
characters, and the leak detector reads marked scripts as faithful math."""

from __future__ import annotations

import pytest

from duocthu_assets.model import Format, SegmentKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf_engine import pymupdf
from duocthu_assets.parse.pdf_leaks import flattened_math, unmark
from duocthu_assets.parse.pdf_page import TEXT_FLAGS, mark_scripts, script_marks
from duocthu_assets.settings import Settings

from .conftest import corpus_path
from .test_pdf_stress import stress


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
