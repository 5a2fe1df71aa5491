"""Words a line is drawn through (:mod:`duocthu_assets.parse.pdf.read.strikes`):
struck-through text printed by Word, LibreOffice or a browser is ordinary
text with a line across it, and was read as text like the rest — a dose
struck out with the new one after it read as two doses. Now the run is kept
and written ``~~0,5 g~~`` and the parse warns; an underline, a rule under a
line, a grid line through a label are not strikes."""

from __future__ import annotations

import duckdb
import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path
from tests.support.ingest import ingest_inbox
from tests.support.pdf_pages import dejavu

STRUCK = "passage(s) with a line drawn through them"
DOSE = "Liều khởi đầu 0,5 g 0,375 g mỗi 12 giờ."


def page_with(draw) -> bytes:
    """A page with the dose line at (72, 100) and ``draw(page, x_of)``
    drawing over it (``x_of(word)``: the word's left and right edge)."""
    font = dejavu(11)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), DOSE, **font)
    page.insert_text((72, 130), "Theo dõi chức năng thận.", **font)
    words: dict[str, tuple[float, float]] = {}
    for w in page.get_text("words"):
        if w[1] < 105:
            words.setdefault(w[4], (w[0], w[2]))  # the first "g": 0,5 g

    def x_of(word: str) -> tuple[float, float]:
        return words[word]

    draw(page, x_of)
    return doc.tobytes()


def _parse(data: bytes):
    return parse_document(data, Format.PDF, Settings())


def _strike_line(page, x_of):
    page.draw_line((x_of("0,5")[0], 96.3), (x_of("g")[1], 96.3), width=0.6)  # across the letters' middle


def test_a_line_through_a_dose_marks_it_struck():
    doc = _parse(page_with(_strike_line))
    assert doc.segments[0].text.startswith("Liều khởi đầu ~~0,5 g~~ 0,375 g mỗi 12 giờ."), doc.segments[0].text
    [warning] = [w for w in doc.warnings if STRUCK in w]
    assert warning.startswith(f"1 {STRUCK}") and "page 1: 1" in warning and "the first: '0,5 g'" in warning, warning


def test_a_thin_filled_bar_and_a_browser_strike_are_strikes():
    """Word prints a strike as a thin filled rectangle; a browser (``<s>``)
    as one stroke per word, the pieces touching."""

    def bar(page, x_of):
        page.draw_rect(pymupdf.Rect(x_of("0,5")[0], 95.9, x_of("g")[1], 96.6), color=None, fill=(0, 0, 0))

    assert "~~0,5 g~~ 0,375 g" in _parse(page_with(bar)).segments[0].text
    doc = pymupdf.open()
    doc.new_page().insert_htmlbox(pymupdf.Rect(72, 72, 500, 300), "<p>Liều khởi đầu <s>0,5 g</s> 0,375 g mỗi 12 giờ.</p>")
    parsed = _parse(doc.tobytes())
    assert parsed.segments[0].text == "Liều khởi đầu ~~0,5 g~~ 0,375 g mỗi 12 giờ.", parsed.segments[0].text


@pytest.mark.parametrize(
    "name, y, across",
    [
        ("underline", 101.5, False),  # at the words' foot
        ("rule above", 88.0, False),  # over the line, outside its letters
        ("grid line through the line", 96.3, True),  # a chart's or a form's line running on past the text
    ],
)
def test_lines_that_are_no_strike(name, y, across):
    def draw(page, x_of):
        x0, x1 = (40, 560) if across else (x_of("0,5")[0], x_of("g")[1])
        page.draw_line((x0, y), (x1, y), width=0.6)

    doc = _parse(page_with(draw))
    assert "~~" not in doc.segments[0].text and not any(STRUCK in w for w in doc.warnings), (name, doc.segments[0].text)


def test_struck_lines_mark_each_line_of_a_passage():
    """A passage struck over a line break is one run a line: each written
    ``~~…~~``."""
    font = dejavu(11)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Chống chỉ định: suy gan nặng,", **font)
    page.insert_text((72, 114), "suy thận nặng. Dị ứng penicilin.", **font)
    words = [w for w in page.get_text("words")]
    first = [w for w in words if w[1] < 103 and w[4] in ("suy", "gan", "nặng,")]
    second = [w for w in words if w[1] > 103 and w[4] in ("suy", "thận", "nặng.")]
    page.draw_line((first[0][0], 96.3), (first[-1][2], 96.3), width=0.6)
    page.draw_line((second[0][0], 110.3), (second[-1][2], 110.3), width=0.6)
    parsed = _parse(doc.tobytes())
    assert parsed.segments[0].text == "Chống chỉ định: ~~suy gan nặng,~~ ~~suy thận nặng.~~ Dị ứng penicilin.", parsed.segments[0].text
    assert any(w.startswith(f"2 {STRUCK}") for w in parsed.warnings), parsed.warnings


def test_ingest_keeps_the_struck_dose_marked_and_every_character_accounted(tmp_path):
    docs = ingest_inbox(tmp_path, {"lieu.pdf": page_with(_strike_line)})["docs"]
    assert docs["lieu.pdf"]["status"] == "ok", docs  # the accounting counts the text layer's characters, not the marks
    chunks = [r[0] for r in duckdb.sql(f"SELECT text FROM '{tmp_path / 'wh' / 'chunks'}/*.parquet'").fetchall()]
    assert any("Liều khởi đầu ~~0,5 g~~ 0,375 g mỗi 12 giờ." in t for t in chunks), chunks


@pytest.mark.parametrize(
    "name",
    [
        "doclingparse__stream_parameter_misinterpretation_01.pdf",  # radicals' bars: MuPDF's flag calls them struck
        "papermage__2020.acl-main.447.pdf",
        "pymupdf__test_5049_formula_sheet.pdf",
        "pdfplumber__WARN-Report-for-7-1-2015-to-03-25-2016.pdf",  # ruled rows: thousands of underlines
        "docling__redp5110_sampled.pdf",  # p. 11: a drop shadow's bottom edge through Figure 3-5's caption
        "grobid__0807.3577_jcap_math.pdf",  # p. 5: a fraction's bar through its denominator's tall box
    ],
)
def test_corpus_has_no_struck_text(name):
    parsed = _parse(corpus_path(name).read_bytes())
    assert not any(STRUCK in w for w in parsed.warnings), [w for w in parsed.warnings if STRUCK in w]
