"""Text that an opaque shape drawn after it covers (``pdf_hidden.painted_over``):
a white-out edit (a dose whited out and a new one typed over it), a redaction
box drawn over text that was left in. Every text extractor reads the covered
text; the page does not show it. Before this it reached the chunks beside the
text that replaced it; now it is kept out and recorded as furniture of kind
``hidden``, the parse warning naming it."""

from __future__ import annotations

import os

import pytest

from duocthu_assets.model import Format, FurnitureKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf_engine import pymupdf
from duocthu_assets.parse.pdf_hidden import PAINTED_TEXT
from duocthu_assets.settings import Settings

from .conftest import corpus_path, ingest_inbox

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
PROSE = "Liều dùng ở người suy thận: giảm liều theo độ thanh thải creatinin của bệnh nhân."


def page_with(draw) -> bytes:
    if not os.path.isfile(DEJAVU):
        pytest.skip("DejaVu Sans not installed")
    font = {"fontname": "dejavu", "fontfile": DEJAVU, "fontsize": 11}
    doc = pymupdf.open()
    page = doc.new_page()
    for k in range(4):
        page.insert_text((72, 100 + 16 * k), PROSE, **font)
    draw(page, font)
    return doc.tobytes()


def whited_out(page, font):
    page.insert_text((72, 200), "Clcr 30 – 50 ml/phút: 0,375 g mỗi lần", **font)
    page.draw_rect(pymupdf.Rect(70, 188, 330, 204), color=None, fill=(1, 1, 1))  # the white-out, drawn over it
    page.insert_text((72, 220), "Clcr 30 – 50 ml/phút: 0,5 g mỗi lần", **font)


def redacted(page, font):
    page.insert_text((72, 200), "Bệnh nhân: Nguyễn Văn An, CCCD 001234567890", **font)
    page.draw_rect(pymupdf.Rect(130, 188, 400, 204), color=None, fill=(0, 0, 0))  # a black box over the name, the text left in


def shaded(page, font):
    page.draw_rect(pymupdf.Rect(70, 188, 330, 204), color=None, fill=(0.85, 0.85, 0.85))  # drawn first: a shaded cell
    page.insert_text((72, 200), "Clcr 30 – 50 ml/phút: 0,375 g mỗi lần", **font)


def whited_out_to_the_baseline(page, font):
    """A white box down to 1 pt under the baseline: the letters are under it,
    the box's descent band (2 pt at 11 pt) is not, and has no ink in it; the
    next line's ``g`` shows below its box."""
    page.insert_text((72, 200), "Liều 500 ml", **font)
    page.draw_rect(pymupdf.Rect(70, 186, 200, 201), color=None, fill=(1, 1, 1))
    page.insert_text((72, 230), "Liều 250 mg", **font)
    page.draw_rect(pymupdf.Rect(70, 216, 200, 231), color=None, fill=(1, 1, 1))


def _text(parsed) -> str:
    return " ".join(s.text for s in parsed.segments)


def test_a_whited_out_dose_is_kept_out_and_recorded():
    parsed = parse_document(page_with(whited_out), Format.PDF, Settings())
    assert "0,5 g mỗi lần" in _text(parsed) and "0,375" not in _text(parsed)
    assert [(f.kind, f.text) for f in parsed.furniture] == [(FurnitureKind.HIDDEN, "Clcr 30 – 50 ml/phút: 0,375 g mỗi lần")]
    assert any(PAINTED_TEXT in w and "'Clcr 30 – 50 ml/phút: 0,375 g mỗi lần'" in w for w in parsed.warnings), parsed.warnings
    assert all(a.accounted for a in parsed.page_accounts)


def test_a_redaction_box_over_text_left_in_hides_it():
    parsed = parse_document(page_with(redacted), Format.PDF, Settings())
    assert "Bệnh nhân:" in _text(parsed) and "Nguyễn" not in _text(parsed) and "001234567890" not in _text(parsed)
    assert [f.text for f in parsed.furniture if f.kind is FurnitureKind.HIDDEN] == ["Nguyễn Văn An, CCCD 001234567890"]


def test_a_shape_drawn_before_the_text_hides_nothing():
    parsed = parse_document(page_with(shaded), Format.PDF, Settings())
    assert "0,375 g mỗi lần" in _text(parsed)
    assert not parsed.furniture and not any(PAINTED_TEXT in w for w in parsed.warnings)


def test_a_box_over_the_letters_but_not_the_descent_band_hides_them():
    """The box need not hold the word's whole box (ascent to descent): what
    the page shows decides. ``Liều 500 ml`` shows nothing; of ``Liều 250
    mg`` the page shows the ``g``'s tail, so ``mg`` is read (and ``Liều
    250``, their boxes blank, are not)."""
    parsed = parse_document(page_with(whited_out_to_the_baseline), Format.PDF, Settings())
    assert [f.text for f in parsed.furniture if f.kind is FurnitureKind.HIDDEN] == ["Liều 500 ml", "Liều 250"]
    assert "500" not in _text(parsed) and "mg" in _text(parsed)


@pytest.mark.corpus
def test_corpus_text_under_white_boxes():
    """pymupdf's test_5049 draws a white box over a form's labels (the page
    shows neither ``Section`` nor ``Student number``); redp5110 hides
    ``Front cover``, a chapter's ``Chapter 1.`` label and ``Back cover``
    (24 pt, its box's descent band below the white box) under white. A
    figure's labels under a mask's black fill (stream_parameter p. 1) are
    seen on the rendered page, and stay."""
    sheet = parse_document(corpus_path("pymupdf__test_5049_formula_sheet.pdf").read_bytes(), Format.PDF, Settings())
    assert [f.text for f in sheet.furniture if f.kind is FurnitureKind.HIDDEN] == ["Section", "Student number"]
    redbook = parse_document(corpus_path("docling__redp5110_sampled.pdf").read_bytes(), Format.PDF, Settings())
    hidden = [(f.page_no, f.text) for f in redbook.furniture if f.kind is FurnitureKind.HIDDEN]
    assert hidden == [(1, "Front cover"), (5, "Chapter 1."), (18, "Back cover")]
    figure = parse_document(corpus_path("doclingparse__stream_parameter_misinterpretation_01.pdf").read_bytes(), Format.PDF, Settings())
    assert not any(f.kind is FurnitureKind.HIDDEN for f in figure.furniture)
    assert "Tumor masks" in " ".join(s.text for s in figure.segments) + " ".join(b.text for b in figure.blocks)


@pytest.mark.slow
def test_ingest_of_a_whited_out_page(tmp_path):
    """Through ``duocthu ingest``: ok, and no chunk holds the whited-out dose."""
    import duckdb

    docs = ingest_inbox(tmp_path, {"sua.pdf": page_with(whited_out)})["docs"]
    assert docs["sua.pdf"]["status"] == "ok", docs
    texts = [r[0] for r in duckdb.sql(f"SELECT text FROM '{tmp_path / 'wh' / 'chunks'}/*.parquet'").fetchall()]
    assert any("0,5 g mỗi lần" in t for t in texts) and not any("0,375" in t for t in texts)
