"""Issue 40: a footnote is never a heading — Decree 99's forms set their
hand-typed footnotes (``^8 Ghi rõ căn cứ hủy đăng ký…``) in a style Word
counts as a heading, which made them heading trails."""

from __future__ import annotations

import pytest

from duocthu_assets.formats import detect_format
from duocthu_assets.model import SegmentKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.inline_marks import opens_with_note_mark
from duocthu_assets.settings import Settings
from tests.support.office import build_docx
from tests.support.paths import corpus_path


@pytest.mark.parametrize(("text", "note"), [
    ("^8 Ghi rõ căn cứ hủy đăng ký", True), ("^{10} Kê khai theo thông tin", True), ("^1Ban hành kèm theo", True),
    ("Mẫu số 08a^1", False), ("x^2 + 1", False), ("8 Ghi rõ", False), ("^ caret", False),
])
def test_note_marks(text, note):
    assert opens_with_note_mark(text) is note


def _footnote_in_a_heading_style(doc):
    doc.add_heading("Mẫu số 08a", level=1)
    p = doc.add_heading("", level=2)
    mark = p.add_run("8")
    mark.font.superscript = True
    p.add_run(" Ghi rõ căn cứ hủy đăng ký.")
    doc.add_paragraph("Phần kê khai.")


@pytest.mark.parametrize("profile", ["generic", "legal"])
def test_a_footnote_in_a_heading_style_is_a_paragraph(profile):
    data = build_docx(_footnote_in_a_heading_style)
    doc = parse_document(data, detect_format(data), Settings(profile=profile))
    note = next(s for s in doc.segments if "Ghi rõ" in s.text)
    assert note.text == "^8 Ghi rõ căn cứ hủy đăng ký." and note.kind is SegmentKind.PARAGRAPH
    assert all("Ghi rõ" not in h for s in doc.segments for h in s.headings)


def test_decree_99_has_no_footnote_in_any_heading_trail():
    data = corpus_path("vn__nghi_dinh_99-2022-ND-CP.docx").read_bytes()
    doc = parse_document(data, detect_format(data), Settings(profile="legal"))
    trails = {h for s in doc.segments for h in s.headings}
    assert not [h for h in trails if opens_with_note_mark(h)]
