"""Text that an opaque shape drawn after it covers (``read/hidden.painted_over``):
a white-out edit (a dose whited out and a new one typed over it), a redaction
box drawn over text that was left in. Every text extractor reads the covered
text; the page does not show it. Before this it reached the chunks beside the
text that replaced it; now it is kept out and recorded as furniture of kind
``hidden``, the parse warning naming it."""

from __future__ import annotations


import pytest

from duocthu_assets.model import Format, FurnitureKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.read.hidden import UNSHOWN_TEXT
from duocthu_assets.settings import Settings
from duocthu_assets.settings.pdf import PdfSettings

from tests.support.paths import corpus_path
from tests.support.ingest import ingest_inbox
from tests.support.pdf_pages import dejavu

PROSE = "Liều dùng ở người suy thận: giảm liều theo độ thanh thải creatinin của bệnh nhân."


def page_with(draw) -> bytes:
    font = dejavu(11)
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


def white_on_white(page, font):
    """A white line on the white page (shown by nothing), white text on a
    dark band (shown), and text in a pale grey a reader can still make out."""
    page.insert_text((72, 200), "Liều tối đa 4 g mỗi ngày", color=(1, 1, 1), **font)
    page.draw_rect(pymupdf.Rect(70, 236, 330, 254), color=None, fill=(0.1, 0.2, 0.5))
    page.insert_text((72, 250), "Chống chỉ định", color=(1, 1, 1), **font)
    page.insert_text((72, 280), "Bản nháp", color=(0.95, 0.95, 0.95), **font)


def _text(parsed) -> str:
    return " ".join(s.text for s in parsed.segments)


def test_a_whited_out_dose_is_kept_out_and_recorded():
    parsed = parse_document(page_with(whited_out), Format.PDF, Settings())
    assert "0,5 g mỗi lần" in _text(parsed) and "0,375" not in _text(parsed)
    assert [(f.kind, f.text) for f in parsed.furniture] == [(FurnitureKind.HIDDEN, "Clcr 30 – 50 ml/phút: 0,375 g mỗi lần")]
    assert any(UNSHOWN_TEXT in w and "'Clcr 30 – 50 ml/phút: 0,375 g mỗi lần'" in w for w in parsed.warnings), parsed.warnings
    assert all(a.accounted for a in parsed.page_accounts)


def test_a_redaction_box_over_text_left_in_hides_it():
    parsed = parse_document(page_with(redacted), Format.PDF, Settings())
    assert "Bệnh nhân:" in _text(parsed) and "Nguyễn" not in _text(parsed) and "001234567890" not in _text(parsed)
    assert [f.text for f in parsed.furniture if f.kind is FurnitureKind.HIDDEN] == ["Nguyễn Văn An, CCCD 001234567890"]


def test_a_shape_drawn_before_the_text_hides_nothing():
    parsed = parse_document(page_with(shaded), Format.PDF, Settings())
    assert "0,375 g mỗi lần" in _text(parsed)
    assert not parsed.furniture and not any(UNSHOWN_TEXT in w for w in parsed.warnings)


def test_a_box_over_the_letters_but_not_the_descent_band_hides_them():
    """The box need not hold the word's whole box (ascent to descent): what
    the page shows decides. ``Liều 500 ml`` shows nothing; of ``Liều 250
    mg`` the page shows the ``g``'s tail, so ``mg`` is read (and ``Liều
    250``, their boxes blank, are not)."""
    parsed = parse_document(page_with(whited_out_to_the_baseline), Format.PDF, Settings())
    assert [f.text for f in parsed.furniture if f.kind is FurnitureKind.HIDDEN] == ["Liều 500 ml", "Liều 250"]
    assert "500" not in _text(parsed) and "mg" in _text(parsed)


def test_white_text_on_the_white_page_is_kept_out_and_recorded():
    parsed = parse_document(page_with(white_on_white), Format.PDF, Settings())
    assert [f.text for f in parsed.furniture if f.kind is FurnitureKind.HIDDEN] == ["Liều tối đa 4 g mỗi ngày"]
    assert "4 g" not in _text(parsed) and "Chống chỉ định" in _text(parsed) and "Bản nháp" in _text(parsed)
    assert any(UNSHOWN_TEXT in w and "white on white" in w and "'Liều tối đa 4 g mỗi ngày'" in w for w in parsed.warnings)
    assert all(a.accounted for a in parsed.page_accounts)


@pytest.mark.corpus
def test_corpus_text_under_white_boxes():
    """pymupdf's test_5049 draws a white box over a form's labels (the page
    shows neither ``Section`` nor ``Student number``); redp5110 hides
    ``Front cover``, a chapter's ``Chapter 1.`` label and ``Back cover``
    (24 pt, its box's descent band, 1.2 pt, below the white box) under white, and
    sets a title in white on its white p. 3. A
    figure's labels under a mask's black fill (stream_parameter p. 1) are
    seen on the rendered page, and stay."""
    sheet = parse_document(corpus_path("pymupdf__test_5049_formula_sheet.pdf").read_bytes(), Format.PDF, Settings())
    assert [f.text for f in sheet.furniture if f.kind is FurnitureKind.HIDDEN] == ["Section", "Student number"]
    redbook = parse_document(corpus_path("docling__redp5110_sampled.pdf").read_bytes(), Format.PDF, Settings())
    hidden = [(f.page_no, f.text) for f in redbook.furniture if f.kind is FurnitureKind.HIDDEN]
    assert hidden == [(1, "Front cover"), (3, "DB2 for i Center of Excellence"), (5, "Chapter 1."), (18, "Back cover")]
    figure = parse_document(corpus_path("doclingparse__stream_parameter_misinterpretation_01.pdf").read_bytes(), Format.PDF, Settings())
    assert not any(f.kind is FurnitureKind.HIDDEN for f in figure.furniture)
    assert "Tumor masks" in " ".join(s.text for s in figure.segments) + " ".join(b.text for b in figure.blocks)


@pytest.mark.corpus
def test_corpus_a_page_of_a_scanned_figure_under_a_white_slug_needs_ocr():
    """The Federal Register's p. 8 is one image: a page of an aircraft
    manual's procedure, scanned. Its only text is the running header and
    GPO's white job line (the slug, ~120 characters); counted as text, the
    slug made the page look read, and the procedure was in no chunk with
    nothing said. Kept out as unseen, the page needs OCR."""
    off = Settings(pdf=PdfSettings(ocr=False))  # the detection: OCR on reads the page (test_scanned_regions)
    parsed = parse_document(corpus_path("pdfplumber__federal-register-2020-17221.pdf").read_bytes(), Format.PDF, off)
    assert 8 in parsed.pages_needing_ocr  # and the pages of its other scanned figures (test_scanned_regions)
    assert parsed.page_labels[7] == "47705"
    assert not any(s.page_no == 8 for s in parsed.segments)


@pytest.mark.slow
def test_ingest_of_a_whited_out_page(tmp_path):
    """Through ``duocthu ingest``: ok, and no chunk holds the whited-out dose."""
    import duckdb

    docs = ingest_inbox(tmp_path, {"sua.pdf": page_with(whited_out)})["docs"]
    assert docs["sua.pdf"]["status"] == "ok", docs
    texts = [r[0] for r in duckdb.sql(f"SELECT text FROM '{tmp_path / 'wh' / 'chunks'}/*.parquet'").fetchall()]
    assert any("0,5 g mỗi lần" in t for t in texts) and not any("0,375" in t for t in texts)


def test_text_in_a_layer_switched_off_is_not_read():
    """Optional content switched off (a PDF layer: an old dose kept on a
    hidden layer) is neither shown nor read: MuPDF leaves it out of the
    text, and this test keeps it so."""
    font = dejavu(11)
    doc = pymupdf.open()
    page = doc.new_page()
    off = doc.add_ocg("Liều cũ", on=False)
    for k in range(3):
        page.insert_text((72, 100 + 16 * k), PROSE, **font)
    page.insert_text((72, 200), "Clcr 30 – 50 ml/phút: 0,5 g mỗi lần", **font)
    page.insert_text((72, 220), "Clcr 30 – 50 ml/phút: 0,375 g mỗi lần", oc=off, **font)
    parsed = parse_document(doc.tobytes(), Format.PDF, Settings())
    assert "0,5 g mỗi lần" in _text(parsed) and "0,375" not in _text(parsed)
    assert all(a.accounted for a in parsed.page_accounts)
