"""Text Word hides (the Hidden font effect, ``w:vanish``): not shown on
screen, not printed, read by every extractor. An old dose set Hidden
instead of deleted, with the new one typed after it, read as both; now left
out and named in a warning, as a PDF's text painted over is
(``word/walker.Walker.run_hidden``, ``word/styles.styles_setting``)."""

from __future__ import annotations

from docx.enum.style import WD_STYLE_TYPE

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Settings

from tests.support.office import build_docx, texts

HIDDEN = "character(s) of text hidden in Word"


def _parse(build):
    return parse_document(build_docx(build), Format.DOCX, Settings())


def test_a_hidden_run_is_left_out_and_named():
    def build(doc):
        p = doc.add_paragraph("Liều khởi đầu ")
        p.add_run("0,375 g").font.hidden = True
        p.add_run("0,5 g mỗi 12 giờ.")
        shown = doc.add_paragraph("Không ẩn: ")
        run = shown.add_run("250 mg")
        run.font.hidden = False  # <w:vanish w:val="0"/>: shown

    doc = _parse(build)
    assert texts(doc) == ["Liều khởi đầu 0,5 g mỗi 12 giờ.", "Không ẩn: 250 mg"]
    [warning] = [w for w in doc.warnings if HIDDEN in w]
    assert warning.startswith("7 character(s) of text hidden in Word") and "the first: '0,375 g'" in warning, warning


def test_hidden_character_and_paragraph_styles():
    def build(doc):
        doc.styles.add_style("Ẩn", WD_STYLE_TYPE.CHARACTER).font.hidden = True
        hidden_para = doc.styles.add_style("Ghi chú ẩn", WD_STYLE_TYPE.PARAGRAPH)
        hidden_para.font.hidden = True
        doc.styles.add_style("Ghi chú ẩn con", WD_STYLE_TYPE.PARAGRAPH).base_style = hidden_para
        p = doc.add_paragraph("Chống chỉ định: ")
        p.add_run("dị ứng penicilin (bản cũ)", style="Ẩn")
        p.add_run("dị ứng với penicilin.")
        doc.add_paragraph("Ghi chú nội bộ: chưa duyệt.", style="Ghi chú ẩn")
        doc.add_paragraph("Ghi chú kế thừa.", style="Ghi chú ẩn con")
        doc.add_paragraph("Hết.")

    doc = _parse(build)
    assert texts(doc) == ["Chống chỉ định: dị ứng với penicilin.", "Hết."]
    assert any(w.startswith(f"{len('dị ứng penicilin (bản cũ)') + len('Ghi chú nội bộ: chưa duyệt.') + len('Ghi chú kế thừa.')} {HIDDEN}") for w in doc.warnings), doc.warnings


def test_no_hidden_text_says_nothing(corpus):
    doc = _parse(lambda d: d.add_paragraph("Liều 500 mg."))
    assert texts(doc) == ["Liều 500 mg."] and not any(HIDDEN in w for w in doc.warnings)
    for name in ("poi__stress023_municipal_code.docx",):
        parsed = parse_document(corpus(name).read_bytes(), Format.DOCX, Settings())
        assert not any(HIDDEN in w for w in parsed.warnings)
