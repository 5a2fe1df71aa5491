"""DOCX parsing (ADR 0018 §2–§5) on the corpus and on small generated files."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest

from duocthu_assets.formats import detect_format
from duocthu_assets.model import Format, SegmentKind
from duocthu_assets.parse.errors import DocumentRejected
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Settings

from tests.support.office import build_docx, texts
from tests.support.scripts import load_script

NFC = Settings()
PERSIAN = Settings(normalization="persian")


def parse_bytes(data: bytes, settings: Settings = NFC):
    fmt = detect_format(data)
    assert fmt is Format.DOCX
    return parse_document(data, fmt, settings)


def parse_file(path: Path, settings: Settings = NFC):
    return parse_bytes(path.read_bytes(), settings)


def assert_well_formed(doc) -> None:
    ids = [s.segment_id for s in doc.segments]
    assert ids == [f"s{n:05d}" for n in range(1, len(ids) + 1)]
    for s in doc.segments:
        assert s.text and s.text == s.text.strip()
        assert doc.canonical_text[s.offset : s.offset + s.length] == s.text
        assert s.source_ref.startswith("docx:")


def headings(doc) -> list[tuple[int, str]]:
    return [(s.level, s.text) for s in doc.segments if s.kind is SegmentKind.HEADING]


# ------------------------------------------------------------------- corpus


def test_word_tables_merged_cells(corpus):
    doc = parse_file(corpus("docling__word_tables_merged.docx"))
    assert_well_formed(doc)
    rows = texts(doc, SegmentKind.TABLE_ROW)
    assert len(rows) == 18
    assert rows[0] == "Header 0.0: Cell 1.0\nHeader 0.1: Cell 1.1\nHeader 0.2: Cell 1.2"
    # a horizontal merge is reported once, under both headers it spans
    assert "Header 0.1, Header 0.2: Merged Cell 1.1 1.2" in rows[2]
    assert rows[2].count("Merged Cell 1.1 1.2") == 1
    # a vertical merge is forward-filled into each row it covers
    vertical = [r for r in rows if "Merged Cell 1.1 2.1" in r]
    assert len(vertical) >= 2 and any("Cell 2.0" in r for r in vertical)
    # tables stay where they are among the paragraphs
    order = texts(doc)
    assert order.index("A uniform table") < order.index(rows[0]) < order.index("A non-uniform table with horizontal spans")


def test_nested_tables_make_a_layout_table_whose_prose_is_folded(corpus):
    doc = parse_file(corpus("docling__docx_rich_cells_nested.docx"))
    assert_well_formed(doc)
    by_text = {s.text: s for s in doc.segments}
    upper_left = by_text["Simple cell upper left"]
    assert upper_left.kind is SegmentKind.PARAGRAPH
    assert upper_left.source_ref == "docx:body[5]/tbl[r1c0]"
    nested = [s for s in doc.segments if "/body[" in s.source_ref and s.kind is SegmentKind.TABLE_ROW]
    assert {s.text for s in nested} >= {"A | B | C", "Cell 1 | Cell 2 | Cell 3"}
    order = texts(doc)
    assert order.index("Before table") < order.index("Simple cell upper left") < order.index(nested[0].text)
    assert order.index(nested[-1].text) < next(i for i, t in enumerate(order) if t.startswith("After table"))
    # a table without nested tables or oversized cells stays a data table, labeled
    assert any(t.startswith("Column A: This is a list:") for t in texts(doc, SegmentKind.TABLE_ROW))
    assert any("image" in w for w in doc.warnings)


def test_heading_levels_from_styles(corpus):
    doc = parse_file(corpus("docling__unit_test_headers.docx"))
    assert headings(doc) == [
        (1, "Test Document"), (1, "Section 1"), (2, "Section 1.1"), (2, "Section 1.2"), (3, "Section 1.2.3"),
        (1, "Section 2"), (3, "Section 2.1.1"), (2, "Section 2.1"),
    ]
    para = next(s for s in doc.segments if s.text == "Paragraph 1.2.3.1")
    assert para.headings == ("Section 1", "Section 1.2", "Section 1.2.3")
    assert para.entry_title == "Section 1" and para.section_title == "Section 1.2.3"


def test_no_heading_is_invented(corpus):
    doc = parse_file(corpus("docling__lorem_ipsum_no_headings.docx"))
    assert headings(doc) == []
    assert {s.kind for s in doc.segments} == {SegmentKind.PARAGRAPH}
    assert len(doc.segments) == 5 and doc.segments[0].text.startswith("Lorem ipsum dolor sit amet")
    assert {s.entry_id for s in doc.segments} == {"document"}


def test_civil_code_heading_1_2_3_and_speed(corpus):
    data = corpus("vn__bo_luat_dan_su_91-2015-QH13.docx").read_bytes()
    start = time.perf_counter()
    doc = parse_bytes(data)
    elapsed = time.perf_counter() - start
    assert elapsed < 10
    assert_well_formed(doc)
    levels = [level for level, _ in headings(doc)]
    assert (levels.count(1), levels.count(2), levels.count(3)) == (56, 60, 723)
    assert (3, "Điều 1. Phạm vi điều chỉnh") in headings(doc)
    assert (1, "Chương II") in headings(doc)
    article = next(s for s in doc.segments if s.text.startswith("Bộ luật này quy định địa vị pháp lý"))
    assert article.section_title == "Điều 1. Phạm vi điều chỉnh"
    # the 1x2 letterhead table is the first unit, both cells in one row
    assert doc.segments[0].kind is SegmentKind.TABLE_ROW
    assert doc.segments[0].text.startswith("QUỐC HỘI") and " | CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM" in doc.segments[0].text


def test_decree_19_letterhead_and_signature_tables_keep_their_text_in_order(corpus):
    doc = parse_file(corpus("vn__nghi_dinh_19-2019-ND-CP.docx"))
    assert_well_formed(doc)
    assert headings(doc) == []
    rows = [s for s in doc.segments if s.kind is SegmentKind.TABLE_ROW]
    assert [s.source_ref for s in rows] == ["docx:body[0]/tbl[r0]", "docx:body[219]/tbl[r0]"]
    assert "Số: 19/2019/NĐ-CP" in rows[0].text and "Hà Nội, ngày 19 tháng 02 năm 2019" in rows[0].text
    assert rows[1].text.startswith("Nơi nhận:") and "Nguyễn Xuân Phúc" in rows[1].text
    assert doc.segments[0] is rows[0] and doc.segments[-1] is rows[1]


def test_decree_99_custom_outline_styles_are_headings(corpus):
    doc = parse_file(corpus("vn__nghi_dinh_99-2022-ND-CP.docx"))
    assert_well_formed(doc)
    found = headings(doc)
    # "Tiêu đề #3" declares outline level 2 (heading level 3): the form's sections
    assert (3, "Mẫu số 08a^1") in found  # its note mark set superscript: never "08a1" and (3, "1. Hướng dẫn chung/General instructions") in found
    assert not any(not any(ch.isalnum() for ch in text) for _, text in found)  # dotted rules stay body text
    assert not any("outline level" in w for w in doc.warnings)
    # a header merged over two rows (vMerge) labels each column with both levels
    row = next(s for s in doc.segments if s.source_ref == "docx:body[981]/tbl[r2]")
    assert "Tài sản thế chấp / Loại tài sản^7: 6" in row.text
    assert "Số TT^3: 1" in row.text  # header cells keep their note marks apart
    # layout cells over chunk_size tokens are folded into prose
    assert any(s.source_ref.startswith("docx:body[1010]/tbl[r1c0]") and s.kind is SegmentKind.PARAGRAPH for s in doc.segments)


def test_equations_are_kept_as_linear_text(corpus):
    doc = parse_file(corpus("docling__equations_omml.docx"))
    body = "\n".join(texts(doc))
    assert "A=πr^2" in body
    assert "a^2 +b^2 =c^2 × 23" in body
    assert "∑_(n=1)^∞" in body and "cos((nπx)/L)" in body
    assert "(n¦k)" in body  # a binomial coefficient is not a division
    assert any("equations kept as linear text" in w for w in doc.warnings)


# ---------------------------------------------------------------- generated


def test_style_rules_heading_list_and_outline_level():
    from docx.enum.style import WD_STYLE_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    def outline_level(ppr_owner, value: str) -> None:
        outline = OxmlElement("w:outlineLvl")
        outline.set(qn("w:val"), value)
        ppr_owner.get_or_add_pPr().append(outline)

    def build(doc):
        derived = doc.styles.add_style("Article Heading", WD_STYLE_TYPE.PARAGRAPH)
        derived.base_style = doc.styles["Heading 2"]
        custom = doc.styles.add_style("Heading #3", WD_STYLE_TYPE.PARAGRAPH)
        outline_level(custom.element, "2")
        doc.add_paragraph("Chapter one", style="Heading 1")
        doc.add_paragraph("Article 1", style="Article Heading")
        doc.add_paragraph("Điều 7. Declared by a custom style's outline level", style="Heading #3")
        doc.add_paragraph("……………………", style="Heading #3")  # no letter or digit: no heading
        outline_level(doc.add_paragraph("Declared on the paragraph itself")._p, "1")
        outline_level(doc.add_paragraph("Outline level 9 is body text", style="Heading #3")._p, "9")
        doc.add_paragraph("", style="Heading 1")  # empty: no segment
        doc.add_paragraph("First point", style="List Number")
        doc.add_paragraph("Plain text.")

    doc = parse_bytes(build_docx(build))
    assert [(s.kind.value, s.level, s.text) for s in doc.segments] == [
        ("heading", 1, "Chapter one"),
        ("heading", 2, "Article 1"),
        ("heading", 3, "Điều 7. Declared by a custom style's outline level"),
        ("paragraph", 0, "……………………"),
        ("heading", 2, "Declared on the paragraph itself"),
        ("paragraph", 0, "Outline level 9 is body text"),
        ("list_item", 0, "First point"),
        ("paragraph", 0, "Plain text."),
    ]
    assert not any("outline" in w for w in doc.warnings)


def test_footnotes_follow_their_paragraph():
    from docx import Document

    base = Document()
    out = io.BytesIO()
    base.add_paragraph("See the note.")
    base.add_paragraph("Next paragraph.")
    base.save(out)
    # python-docx has no footnote API: add the part and the reference by hand
    src = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    files = {n: src.read(n) for n in src.namelist()}
    W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    files["word/footnotes.xml"] = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes ' + W + b'>'
        b'<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
        b'<w:footnote w:id="1"><w:p><w:r><w:t>The note text.</w:t></w:r></w:p></w:footnote></w:footnotes>'
    )
    files["word/document.xml"] = files["word/document.xml"].replace(
        b"<w:t>See the note.</w:t></w:r>",
        b'<w:t>See the note.</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r>',
    )
    rels = files["word/_rels/document.xml.rels"]
    files["word/_rels/document.xml.rels"] = rels.replace(
        b"</Relationships>",
        b'<Relationship Id="rIdFn" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" '
        b'Target="footnotes.xml"/></Relationships>',
    )
    rebuilt = io.BytesIO()
    with zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in files.items():
            dst.writestr(name, data)
    doc = parse_bytes(rebuilt.getvalue())
    assert texts(doc) == ["See the note.[1]", "[1] The note text.", "Next paragraph."]
    assert doc.segments[1].source_ref == "docx:footnote[1]"


def test_oversized_cell_makes_a_layout_table():
    long_prose = " ".join(["This paragraph lives inside a table cell, as prose exported from old Word files does."] * 40)

    def build(doc):
        doc.add_paragraph("Before.")
        table = doc.add_table(rows=1, cols=2)
        table.cell(0, 0).text = "Label"
        table.cell(0, 1).text = long_prose
        doc.add_paragraph("After.")

    doc = parse_bytes(build_docx(build))
    assert [(s.kind, s.source_ref) for s in doc.segments] == [
        (SegmentKind.PARAGRAPH, "docx:body[0]"),
        (SegmentKind.PARAGRAPH, "docx:body[1]/tbl[r0c0]"),
        (SegmentKind.PARAGRAPH, "docx:body[1]/tbl[r0c1]"),
        (SegmentKind.PARAGRAPH, "docx:body[2]"),
    ]
    # the same table under a larger chunk_size is data (the coupling ADR 0018 names)
    doc = parse_bytes(build_docx(build), Settings(chunk_size=2000, max_chunk_tokens=2000))
    assert [s.kind for s in doc.segments].count(SegmentKind.TABLE_ROW) == 1


def test_compensation_table_in_word_never_reads_80_70():
    def build(doc):
        table = doc.add_table(rows=30, cols=2)
        for r in range(30):
            table.cell(r, 0).text, table.cell(r, 1).text = str(80 + r), str(70 + r)

    doc = parse_bytes(build_docx(build))
    rows = texts(doc, SegmentKind.TABLE_ROW)
    assert len(rows) == 30 and rows[0] == "80 | 70"
    assert not any(": " in row for row in rows)


# ------------------------------------------------------------- Persian sample


@pytest.fixture(scope="module")
def persian_contract() -> bytes:
    return load_script("make_sample_persian").persian_contract_docx()


def test_persian_contract_normalized_per_block(persian_contract):
    doc = parse_bytes(persian_contract, PERSIAN)
    assert_well_formed(doc)
    body = "\n".join(texts(doc))
    for arabic_form in ("ك", "ي", "ى", "أ", "إ", "\u0640", "\u064e", "\u0651", "¬"):
        assert arabic_form not in body
    assert "موضوع این قرارداد ارائه خدمات پشتیبانی و نگهداری سامانه مالی کارفرما است." in body
    assert "فسخ قرارداد" in body and "مدت باقیمانده ی قرارداد" in body
    assert "۱۲۰٬۰۰۰٬۰۰۰" in body and "شماره: ۱۴۰۲/۱۲۳" in body  # digits and ٬ as written
    assert "نرم\u200cافزار" in body  # ZWNJ is not whitespace
    assert [level for level, _ in headings(doc)] == [1, 2, 2, 2, 2, 2]


def test_persian_contract_tables(persian_contract):
    doc = parse_bytes(persian_contract, PERSIAN)
    by_ref = {}
    for s in doc.segments:
        by_ref.setdefault(s.source_ref, []).append(s)
    # letterhead: the preamble cell is over chunk_size tokens → folded prose
    preamble = by_ref["docx:body[1]/tbl[r0c1]"]
    assert len(preamble) == 4 and all(s.kind is SegmentKind.PARAGRAPH for s in preamble)
    # fee table: a provable header (labels over Persian numerals)
    fee = by_ref["docx:body[7]/tbl[r1]"][0]
    assert fee.kind is SegmentKind.TABLE_ROW
    assert fee.text == "ردیف: ۱\nشرح خدمات: پشتیبانی ماهانه سامانه\nمبلغ (ریال): ۱۲۰٬۰۰۰٬۰۰۰"
    # obligations: a nested table makes the outer table layout; the schedule is data
    schedule = [s for s in doc.segments if s.source_ref.startswith("docx:body[9]/tbl[r0c1]/body[")]
    assert [s.text for s in schedule][0] == "مرحله: نصب و راه\u200cاندازی\nمهلت (روز): ۱۰"
    assert by_ref["docx:body[9]/tbl[r0c0]"][0].kind is SegmentKind.PARAGRAPH
    # penalties: numbers only, no provable header
    penalties = [s.text for s in doc.segments if s.source_ref.startswith("docx:body[13]/")]
    assert penalties == ["۸۰ | ۷۰", "۸۵ | ۷۵", "۹۰ | ۸۰", "۹۵ | ۸۵"]


def test_nfc_collection_keeps_arabic_letter_forms(persian_contract):
    doc = parse_bytes(persian_contract, NFC)
    body = "\n".join(texts(doc))
    assert "ك" in body and "ي" in body and "\u0640" in body  # only a persian collection folds


# ------------------------------------------------------------------ safety


def repack(data: bytes, change) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, change(name, src.read(name)))
        extra = change("__extra__", b"")
        if extra:
            dst.writestr("word/media/filler.xml", extra)
    return out.getvalue()


def test_entity_declarations_are_refused():
    data = build_docx(lambda doc: doc.add_paragraph("hello"))

    def add_dtd(name, content):
        if name == "word/document.xml":
            return content.replace(b"?>", b'?><!DOCTYPE w:document [<!ENTITY lol "lol">]>', 1)
        return content

    with pytest.raises(DocumentRejected, match="DTD or XML entities"):
        parse_bytes(repack(data, add_dtd))


def test_zip_bomb_is_refused_before_parsing():
    data = build_docx(lambda doc: doc.add_paragraph("hello"))
    bomb = repack(data, lambda name, content: b"<a/>" + b" " * 50_000_000 if name == "__extra__" else content)
    with pytest.raises(DocumentRejected, match="compression ratio"):
        parse_bytes(bomb)
    with pytest.raises(DocumentRejected, match="max_uncompressed_bytes"):
        parse_bytes(data, Settings(max_uncompressed_bytes=1000))


def test_text_box_content_is_read_once_after_its_paragraph():
    data = build_docx(lambda doc: doc.add_paragraph("Anchor"))
    box = (
        b'<w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
        b'<mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>Boxed text</w:t></w:r></w:p>'
        b"</w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Boxed text</w:t>"
        b"</w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r>"
    )

    def add_box(name, content):
        if name == "word/document.xml":
            return content.replace(b"<w:t>Anchor</w:t></w:r>", b"<w:t>Anchor</w:t></w:r>" + box, 1)
        return content

    doc = parse_bytes(repack(data, add_box))
    assert [(s.text, s.source_ref) for s in doc.segments] == [
        ("Anchor", "docx:body[0]"),
        ("Boxed text", "docx:body[0]/txbx[0]"),
    ]
