"""Issue 40 item 5: a court precedent read with the legal profile has a
heading trail (its fixed parts), whatever its styles; the same words in a
document that is not a precedent stay text."""

from __future__ import annotations

from duocthu_assets.formats import detect_format
from duocthu_assets.model import SegmentKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.profiles.legal import match_heading, precedent_part
from duocthu_assets.settings import Settings
from tests.support.legal_docs import DECREE, PRECEDENT, plain_docx
from tests.support.paths import corpus_path

LEGAL = Settings(profile="legal")


def _headings(doc) -> list[tuple[int, str]]:
    return [(s.level, s.text) for s in doc.segments if s.kind is SegmentKind.HEADING]


def test_a_plain_docx_precedent_gets_its_parts_as_headings():
    doc = parse_document(plain_docx(PRECEDENT), detect_format(plain_docx(PRECEDENT)), LEGAL)
    assert _headings(doc) == [
        (1, "ÁN LỆ SỐ 43/2021/AL"),
        (2, "Nguồn án lệ:"),
        (2, "Khái quát nội dung án lệ:"),
        (3, "- Tình huống án lệ:"),
        (3, "- Giải pháp pháp lý:"),
        (2, "NỘI DUNG VỤ ÁN:"),
        (2, "NHẬN ĐỊNH CỦA TÒA ÁN:"),
        (2, "QUYẾT ĐỊNH:"),
    ]
    reasoning = next(s for s in doc.segments if s.text.startswith("[2] Xét thấy"))
    assert reasoning.headings == ("ÁN LỆ SỐ 43/2021/AL", "NHẬN ĐỊNH CỦA TÒA ÁN:")


def test_part_labels_are_headings_only_in_a_precedent():
    assert precedent_part("Nguồn án lệ:") == "precedent_part" and precedent_part("- Giải pháp pháp lý:") == "precedent_sub"
    assert precedent_part("Nguồn án lệ: Quyết định giám đốc thẩm số 01/2019") is None  # a label with its text is a paragraph
    assert match_heading("QUYẾT ĐỊNH:") is None
    decree = DECREE + ["QUYẾT ĐỊNH:", "Xét thấy:"]
    doc = parse_document(plain_docx(decree), detect_format(plain_docx(decree)), LEGAL)
    assert not [t for _, t in _headings(doc) if t.startswith(("QUYẾT ĐỊNH", "Xét thấy"))]


def test_corpus_precedent_43_has_a_trail_under_the_legal_profile():
    data = corpus_path("vn__an_le_so_43-2021-AL.pdf").read_bytes()
    doc = parse_document(data, detect_format(data), LEGAL)
    titles = [t for _, t in _headings(doc)]
    assert {"Nguồn án lệ:", "NHẬN ĐỊNH CỦA TÒA ÁN:", "QUYẾT ĐỊNH:"} <= set(titles)
    body = [s for s in doc.segments if s.kind is SegmentKind.PARAGRAPH]
    assert sum(1 for s in body if len(s.headings) >= 2) >= 0.8 * len(body)
