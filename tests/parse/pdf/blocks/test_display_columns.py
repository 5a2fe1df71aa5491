"""Display formulas on a page of two columns stay in their column
(issue 15 item 1: a block never crosses a column gutter into prose)."""

from __future__ import annotations

import pytest

from duocthu_assets.model import BlockKind, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.blocks.display_math import column_starts, find_display_math
from duocthu_assets.parse.pdf.records import Word, make_fragment
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path

PROSE = "the patient received the dose every morning with food"


def _line(texts_at: list[tuple[str, float]], y: float, line_id: int, size: float = 10.0):
    """One fragment: words ``(text, x)`` on a line whose top is ``y``."""
    words = [Word(t, (x, y, x + 5.5 * len(t), y + 10.0), size, False, False, line_id) for t, x in texts_at]
    return make_fragment(words, line_id)


def _words_from(text: str, x: float) -> list[tuple[str, float]]:
    out = []
    for t in text.split():
        out.append((t, x))
        x += 5.5 * len(t) + 3
    return out


def _two_columns(with_formula: bool = True):
    frags = []
    for k in range(6):  # six lines of running text in each column
        frags.append(_line(_words_from(PROSE[: 40], 50), 100 + 12 * k, k))
        frags.append(_line(_words_from(PROSE[: 40], 320), 100 + 12 * k, 100 + k))
    if with_formula:
        frags.append(_line([("∑", 90), ("x_i", 100), ("≤", 118), ("∫", 130), ("f", 140)], 190, 50))
    # the right column's line at the formula's height: a line of prose set flush
    # to both edges, inline math and two words (too few to count as running text)
    right = max(f.bbox[2] for f in frags if f.bbox[0] >= 320)
    frags.append(_line(_words_from("with D = {d_1, d_2}", 320), 190, 150))
    tail = "∀ d ∈ N and"
    frags.append(_line(_words_from(tail, right - (5.5 * len(tail.replace(" ", "")) + 3 * (len(tail.split()) - 1))), 190, 151))
    return frags


def test_column_edges_are_where_running_lines_start():
    assert column_starts(_two_columns()) == [50, 320]
    assert column_starts([f for f in _two_columns() if f.bbox[0] < 300]) == [50]


def test_a_display_formula_does_not_take_the_other_columns_line():
    """Before, the formula's row held the right column's ``with D = {d_1,
    d_2}`` and ``∀ d ∈ N and`` (too few words to be running text), and the
    block spanned both columns; the right column's line, flush to both its
    edges, is prose."""
    (block,) = find_display_math(_two_columns())
    assert block.bbox[0] >= 89 and block.bbox[2] < 300


@pytest.mark.corpus
def test_corpus_formulas_stay_in_their_column():
    """stream_parameter p. 1: equation (11)'s block ran from 49 to 563 pt
    and took ``train the neural network.``, ``4) Inference: …`` and six
    lines of the right column (``This work considers two treatment types:
    chemoradiation (CRT) and temozolomide (TMZ)``); now it is confined to
    the left column, the right column reads in order, and the ``and``
    between equations (7) and (8) is prose. revtex p. 2: equation (5), which
    shared its row with a line of the other column and was named by
    leak_02, is lifted. IEEE p. 7: ``The Laplace(μ, b) distribution …`` is
    prose again."""
    stream = parse_document(corpus_path("doclingparse__stream_parameter_misinterpretation_01.pdf").read_bytes(), Format.PDF, Settings())
    gutter = 306.0
    across = [b for b in stream.blocks if b.bbox[0] < gutter < b.bbox[2]]
    assert [(b.kind, b.page_no) for b in across] == [(BlockKind.PICTURE, 1)] and across[0].bbox[3] < 215  # Fig. 1, drawn across both
    assert any(b.kind == BlockKind.FORMULA and "(11)" in b.text and b.bbox[2] <= 300.5 for b in stream.blocks)
    text = " ".join(s.text for s in stream.segments)
    assert "defined as D = {d_1, d_2, . . . , d_l, . . . , d_L} ∀ d ∈N_0 and 0 ≤d_{l−1} < d_l. This work considers two treatment types: chemoradiation" in text
    assert "train the neural network." in text
    revtex = parse_document(corpus_path("grobid__0908.0054v1_arxiv_revtex.pdf").read_bytes(), Format.PDF, Settings())
    assert any(b.kind == BlockKind.FORMULA and b.page_no == 2 and "(5)" in b.text for b in revtex.blocks)
    ieee = parse_document(corpus_path("pdfminer__issue-1061-ieee-differential-privacy.pdf").read_bytes(), Format.PDF, Settings())
    assert "The Laplace(μ, b) distribution (a.k.a the double expo" in " ".join(s.text for s in ieee.segments if s.page_no == 7)
    assert not any(b.page_no in (7, 8) and b.bbox[0] < gutter - 3 < b.bbox[2] and b.bbox[2] - b.bbox[0] > 300 for b in ieee.blocks)


def _item(text: str, x: float, y: float, line_id: int):
    from duocthu_assets.parse.pdf.layout.items import Item

    f = _line(_words_from(text, x), y, line_id)
    return Item(f.bbox, fragment=f)


def test_a_figures_labels_beside_a_column_are_read_after_it():
    """dpr p. 5: where the rows beside a plot hold no running text, no gutter
    is found, and the plot's axis ticks read into the column's lines
    (``the effects of different 90 training schemes``). A tick standing past
    the column's right edge across a gutter goes after the column; a word
    after a justified line's wide space does not."""
    from duocthu_assets.parse.pdf.layout.items import Leaf
    from duocthu_assets.parse.pdf.layout.order import _with_asides

    items = []
    for k in range(4):
        y = 100 + 12 * k
        items.append(_item("the patient received the dose", 50, y, k))  # ends at 232
        items.append(_item(str(90 - 10 * k), 280, y, 10 + k))  # a tick label past a gutter
    leaf = Leaf((50, 100, 300, 148), tuple(sorted(items, key=lambda i: (i.bbox[1], i.bbox[0]))))
    main, aside = _with_asides(leaf, 10.0)
    assert [i.fragment.text for i in aside.items] == ["90", "80", "70", "60"]
    assert all(i.fragment.text.startswith("the patient") for i in main.items)
    justified = []
    for k in range(4):
        y = 100 + 12 * k
        justified.append(_item("the patient received the dose", 50, y, k))
        justified.append(_item("that" if k == 1 else "and then more", 216 if k == 1 else 205, y, 10 + k))  # the others cross the gap
    leaf = Leaf((50, 100, 320, 148), tuple(sorted(justified, key=lambda i: (i.bbox[1], i.bbox[0]))))
    assert len(_with_asides(leaf, 10.0)) == 1


@pytest.mark.corpus
def test_corpus_plot_ticks_stay_out_of_the_sentences():
    dpr = parse_document(corpus_path("unstructured__multi-column_dpr.pdf").read_bytes(), Format.PDF, Settings())
    text = " ".join(s.text for s in dpr.segments if s.page_no == 5)
    assert "the effects of different training schemes and the run-time efficiency." in text
    assert "We trained the question and passage encoders for up to 40 epochs for large datasets (NQ, TriviaQA, SQuAD) and 100 epochs" in text
