"""The PDF parser on documents made here by another producer (reportlab's
platypus tables and frames) and by PyMuPDF: table styles, continued tables,
two columns, fractions drawn or typed, scanned pages, encryption."""

from __future__ import annotations

import io
from functools import lru_cache

import pytest

from duocthu_assets.model import BlockKind, BlockShape, Format, SegmentKind
from duocthu_assets.parse.errors import DocumentRejected
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.settings import Profile, Settings
from duocthu_assets.settings.pdf import PdfSettings

from tests.support.docgen import FONT

reportlab = pytest.importorskip("reportlab")

FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
FORMULARY = Settings(profile=Profile.FORMULARY)
FORMULARY_NO_OCR = Settings(profile=Profile.FORMULARY, pdf=PdfSettings(ocr=False))  # today's loud block, OCR off
LOREM = (
    "Thuốc được hấp thu nhanh qua đường tiêu hóa, đạt nồng độ tối đa trong huyết tương sau 1 - 2 giờ. "
    "Thuốc phân bố rộng rãi vào các mô và dịch cơ thể, qua được hàng rào nhau thai và bài tiết vào sữa mẹ. "
)
DATA = [
    ["Độ thanh thải (ml/phút)", "Liều khởi đầu", "Liều duy trì"],
    ["> 50", "1 g", "1 g mỗi 12 giờ"],
    ["10 - 50", "1 g", "0,5 g mỗi 12 giờ"],
    ["< 10", "0,5 g", "0,5 g mỗi 24 giờ"],
]


def _fonts():
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont("DV", FONT))
    pdfmetrics.registerFont(TTFont("DVB", FONT_BOLD))
    addMapping("DV", 0, 0, "DV")
    addMapping("DV", 1, 0, "DVB")


def _styles():
    from reportlab.lib.styles import ParagraphStyle

    body = ParagraphStyle("b", fontName="DV", fontSize=10, leading=13, spaceAfter=4)
    title = ParagraphStyle("t", parent=body, fontName="DVB", fontSize=13, spaceBefore=10, spaceAfter=6)
    section = ParagraphStyle("s", parent=body, fontName="DVB", spaceBefore=4)
    return body, title, section


@lru_cache(maxsize=1)
def single_column() -> bytes:
    """One column; a grid table, a table with rules above and below only, a
    table without any rule, a merged two-level header table that runs onto
    the next page, and a 59-row table over the next two pages; footer
    "Trang N" numbered from 11."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    _fonts()
    body, title, section = _styles()

    def furniture(canvas, doc):
        canvas.saveState()
        canvas.setFont("DV", 8)
        canvas.drawString(56, A4[1] - 40, "DƯỢC THƯ QUỐC GIA – THỬ NGHIỆM")
        canvas.line(56, A4[1] - 45, A4[0] - 56, A4[1] - 45)
        canvas.drawCentredString(A4[0] / 2, 30, "Trang %d" % (doc.page + 10))
        canvas.restoreState()

    def table(data, style, widths=(160, 120, 160), repeat=0):
        t = Table(data, colWidths=list(widths), repeatRows=repeat)
        t.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), "DV", 9)] + style))
        return t

    grid = [("GRID", (0, 0), (-1, -1), 0.5, colors.black)]
    story = [
        Paragraph("CEFTRIAXON", title),
        Paragraph("<b>Tên chung quốc tế:</b> Ceftriaxone.", body),
        Paragraph("<b>Mã ATC:</b> J01DD04.", body),
        Paragraph("Dược động học", section),
        *[Paragraph(LOREM * 2, body) for _ in range(4)],
        Paragraph("Liều lượng và cách dùng", section),
        Paragraph("Câu ngay trước bảng lưới, về liều cho người suy thận.", body),
        table(DATA, grid),
        Paragraph("Câu ngay sau bảng lưới phải còn nguyên trong văn bản.", body),
        table(DATA, [("LINEABOVE", (0, 0), (-1, 0), 1, colors.black), ("LINEBELOW", (0, -1), (-1, -1), 1, colors.black)]),
        Paragraph("Câu ngay sau bảng chỉ kẻ trên và dưới.", body),
        table(DATA, []),
        Paragraph("Câu ngay sau bảng không kẻ.", body),
    ]
    header = [["Clcr", "Liều", "", ""], ["", "Người lớn", "Trẻ em", "Sơ sinh"]]
    rows = [[f"{x}", f"{x / 10:.1f} g", f"{x} mg/kg", f"{x // 2} mg/kg"] for x in range(10, 100, 10)]
    story.append(table(header + rows, grid + [("SPAN", (0, 0), (0, 1)), ("SPAN", (1, 0), (3, 0))], (100, 110, 110, 110), repeat=2))
    story.append(Paragraph("Câu sau bảng tiêu đề gộp.", body))
    story += [Paragraph(LOREM * 2, body) for _ in range(3)]
    story.append(Paragraph("Bảng dài tiếp tục sang trang sau.", body))
    long_rows = [["Ngày", "Liều", "Ghi chú"]] + [[f"Ngày {i}", f"{i * 50} mg", "theo dõi creatinin"] for i in range(1, 60)]
    story.append(table(long_rows, grid, (120, 120, 200), repeat=1))
    story.append(Paragraph("Câu sau bảng dài.", body))
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=A4, leftMargin=56, rightMargin=56, topMargin=60, bottomMargin=50, invariant=1).build(
        story, onFirstPage=furniture, onLaterPages=furniture
    )
    return out.getvalue()


@lru_cache(maxsize=1)
def two_columns() -> bytes:
    """Two frames per page; a Cockcroft-Gault fraction drawn as a reportlab
    Drawing; a grid table in the right column; footer "- N -" from 101."""
    from reportlab.graphics.shapes import Drawing, Line, String
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph, Table, TableStyle

    _fonts()
    body, title, section = _styles()
    w, h = A4

    def furniture(canvas, doc):
        canvas.saveState()
        canvas.setFont("DV", 8)
        canvas.drawRightString(w - 50, h - 35, "DƯỢC THƯ QUỐC GIA VIỆT NAM")
        canvas.drawCentredString(w / 2, 28, "- %d -" % (doc.page + 100))
        canvas.restoreState()

    col = (w - 100 - 14) / 2
    frames = [Frame(50, 50, col, h - 110, id="c1"), Frame(50 + col + 14, 50, col, h - 110, id="c2")]
    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=A4, invariant=1)
    doc.addPageTemplates([PageTemplate(id="two", frames=frames, onPage=furniture)])
    text = LOREM.replace("Thuốc", "Streptomycin", 1)
    story = [Paragraph("STREPTOMYCIN", title), Paragraph("Mã ATC: A07AA04, J01GA01.", body), Paragraph("Dược lý và cơ chế tác dụng", section)]
    story += [Paragraph(text * 2, body) for _ in range(5)]
    story += [Paragraph("Liều lượng và cách dùng", section), Paragraph("Độ thanh thải creatinin tính theo công thức:", body)]
    d = Drawing(220, 40)
    d.add(String(0, 16, "Clcr =", fontName="DV", fontSize=9))
    d.add(String(105, 24, "(140 - tuổi) x cân nặng", fontName="DV", fontSize=9, textAnchor="middle"))
    d.add(Line(40, 20, 170, 20, strokeWidth=0.6))
    d.add(String(105, 8, "72 x creatinin huyết thanh", fontName="DV", fontSize=9, textAnchor="middle"))
    story.append(d)
    story.append(Paragraph("Câu ngay sau công thức, ở cuối cột trái.", body))
    story += [Paragraph(LOREM, body) for _ in range(3)]
    rows = [["Clcr (ml/phút)", "Liều (mg/kg)", "Khoảng cách"]] + [[f"{x} - {x + 9}", f"{x / 10:.1f}", f"{24 + x // 5} giờ"] for x in range(10, 160, 10)]
    t = Table(rows, colWidths=[90, 60, 85], repeatRows=1)
    t.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), "DV", 8), ("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    story += [t, Paragraph("Câu ngay sau bảng ở cột phải.", body)]
    story += [Paragraph(LOREM * 2, body) for _ in range(4)]
    doc.build(story)
    return out.getvalue()


@lru_cache(maxsize=None)
def parsed(which: str):
    data = {"single": single_column, "two": two_columns}[which]()
    return parse_document(data, Format.PDF, FORMULARY)


def _texts(doc) -> list[str]:
    return [s.text for s in doc.segments]


def test_reportlab_tables_of_every_style_are_lifted():
    doc = parsed("single")
    page1 = sorted((b for b in doc.blocks if b.page_no == 1), key=lambda b: b.bbox[1])
    assert len(page1) == 4  # grid, rules above/below, no rules, the merged header table starting
    for block in page1[:3]:
        assert block.kind is BlockKind.TABLE
        assert "0,5 g mỗi 24 giờ" in block.text
    texts = _texts(doc)
    assert not any("0,5 g mỗi 24 giờ" in t or "Liều khởi đầu" in t for t in texts)
    for sentence in ("Câu ngay trước bảng lưới", "Câu ngay sau bảng lưới", "Câu ngay sau bảng chỉ kẻ trên và dưới.", "Câu ngay sau bảng không kẻ.", "Câu sau bảng tiêu đề gộp.", "Câu sau bảng dài."):
        assert any(sentence in t for t in texts), sentence


def test_reportlab_continued_tables_are_linked_page_to_page():
    doc = parsed("single")
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    continued = [b for b in tables if b.continues]
    by_id = {b.block_id: b for b in tables}
    pages = sorted({b.page_no for b in continued})
    assert pages == [2, 3]  # the merged-header table onto page 2, the long table onto page 3
    assert len(continued) == 2
    for b in continued:
        assert by_id[b.continues].page_no == b.page_no - 1
        assert b.shape is BlockShape.CROSS_PAGE_CONTINUATION
    assert not any(t.startswith("Ngày ") or "theo dõi creatinin" in t for t in _texts(doc))


def test_reportlab_footer_numbers_and_header_rule():
    doc = parsed("single")
    assert {s.page_no: s.printed_page for s in doc.segments} == {1: 11, 2: 12, 3: 13}
    assert not any("THỬ NGHIỆM" in t or t.startswith("Trang") for t in _texts(doc))


def test_reportlab_sections_and_inline_labels():
    doc = parsed("single")
    heads = [(s.level, s.text) for s in doc.segments if s.kind is SegmentKind.HEADING]
    assert heads[:5] == [(1, "CEFTRIAXON"), (2, "Tên chung quốc tế"), (2, "Mã ATC"), (2, "Dược động học"), (2, "Liều lượng và cách dùng")]
    assert all(b.section_key == "lieu_luong_va_cach_dung" and b.entry_id == "ceftriaxon" for b in doc.blocks)


def test_two_columns_drawn_fraction_and_table_in_the_right_column():
    doc = parsed("two")
    formulas = [b for b in doc.blocks if b.kind is BlockKind.FORMULA]
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert len(formulas) == 1 and formulas[0].shape is BlockShape.FORMULA_2D
    assert "(140 - tuổi) x cân nặng" in formulas[0].text and "Clcr =" in formulas[0].text
    assert len(tables) == 1 and tables[0].bbox[0] > 297  # the right column
    texts = _texts(doc)
    assert not any("72 x creatinin" in t or "(140 - tuổi)" in t for t in texts)
    i_formula = next(i for i, t in enumerate(texts) if t.startswith("Câu ngay sau công thức"))
    i_table = next(i for i, t in enumerate(texts) if t.startswith("Câu ngay sau bảng ở cột phải"))
    assert i_formula < i_table  # the left column is read before the right one
    assert formulas[0].anchor_segment_id == doc.segments[i_formula - 1].segment_id
    assert {s.printed_page for s in doc.segments} == {101, 102}


def _page_with_lines(lines: list[tuple[float, float, str, float]]) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="dv", fontfile=FONT)
    for x, y, text, size in lines:
        page.insert_text((x, y), text, fontname="dv", fontsize=size)
    return doc.tobytes()


def test_typed_fraction_bar_is_a_formula():
    prose = "Độ thanh thải creatinin được ước tính theo công thức sau, với tuổi tính bằng năm:"
    data = _page_with_lines(
        [
            (60, 100, prose, 10),
            (120, 130, "(140 - tuổi) x cân nặng", 10),
            (60, 142, "Clcr =", 10),
            (110, 142, "──────────────────────────", 10),
            (112, 154, "72 x creatinin huyết thanh", 10),
            (60, 184, "Với nữ nhân kết quả với 0,85, như đã nói ở phần trên của chuyên luận.", 10),
        ]
    )
    doc = parse_document(data, Format.PDF, Settings())
    (formula,) = doc.blocks
    assert formula.kind is BlockKind.FORMULA and "72 x creatinin" in formula.text
    assert not any("creatinin huyết thanh" in s.text or "140" in s.text for s in doc.segments)
    assert [s.text for s in doc.segments] == [prose, "Với nữ nhân kết quả với 0,85, như đã nói ở phần trên của chuyên luận."]


def test_tight_numeric_columns_without_rules_are_a_table():
    lines = [(60, 80, "Câu văn xuôi trước bảng, đủ dài để là một dòng văn bản bình thường.", 10)]
    lines += [(60, 104, "Clcr", 10), (150, 104, "Liều", 10), (200, 104, "Giờ", 10), (240, 104, "Ghi", 10)]
    for i in range(6):
        y = 117 + 12 * i
        lines += [(60, y, f"{10 * i + 10}-{10 * i + 19}", 9), (150, y, f"{1.5 + i / 2:.1f}", 9), (176, y, f"{i * 4 + 8}", 9), (198, y, f"{i * 12 + 12}", 9), (222, y, f"{i * 3}", 9)]
    lines.append((60, 200, "Câu văn xuôi sau bảng, cũng đủ dài để là một dòng văn bản bình thường.", 10))
    doc = parse_document(_page_with_lines(lines), Format.PDF, Settings())
    (table,) = doc.blocks
    assert table.kind is BlockKind.TABLE and "2.0" in table.text
    assert [s.text[:12] for s in doc.segments] == ["Câu văn xuôi", "Câu văn xuôi"]


def test_scanned_page_inside_a_text_document_is_reported():
    data = single_column()
    src = pymupdf.open(stream=data, filetype="pdf")
    doc = pymupdf.open()
    doc.insert_pdf(src, from_page=0, to_page=0)
    scan = doc.new_page(width=src[0].rect.width, height=src[0].rect.height)
    scan.insert_image(scan.rect, pixmap=src[1].get_pixmap(dpi=80))
    scan.insert_text((280, 820), "12", fontsize=9)  # a number stamped on the scan
    doc.insert_pdf(src, from_page=2, to_page=2)
    parsed_doc = parse_document(doc.tobytes(), Format.PDF, FORMULARY_NO_OCR)
    assert parsed_doc.pages_needing_ocr == [2]
    assert {s.page_no for s in parsed_doc.segments} <= {1, 3}


def test_encryption_owner_only_parses_user_password_is_refused():
    src = pymupdf.open(stream=single_column(), filetype="pdf")
    doc = pymupdf.open()
    doc.insert_pdf(src, from_page=0, to_page=0)
    owner_only = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="")
    assert parse_document(owner_only, Format.PDF, FORMULARY).segments
    locked = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="secret")
    with pytest.raises(DocumentRejected, match="remove the protection"):
        parse_document(locked, Format.PDF, FORMULARY)


def test_page_of_text_turned_sideways_reads_normally():
    """A landscape table page set sideways on a portrait page (no /Rotate):
    the text is turned back to reading orientation."""
    src = pymupdf.open(stream=single_column(), filetype="pdf")
    doc = pymupdf.open()
    page = doc.new_page(width=src[0].rect.height, height=src[0].rect.width)
    page.show_pdf_page(page.rect, src, 0, rotate=90)
    turned = parse_document(doc.tobytes(), Format.PDF, FORMULARY)
    upright = parsed("single")
    assert [s.text for s in turned.segments][:6] == [s.text for s in upright.segments if s.page_no == 1][:6]
    assert len([b for b in turned.blocks]) == len([b for b in upright.blocks if b.page_no == 1])


@lru_cache(maxsize=1)
def borderless_exhibit() -> bytes:
    """A US-report style exhibit: no vertical rules, a two-level header whose
    spanning cells are underlined, indented row labels under section rows,
    right-aligned numbers; then a table with no rule at all."""
    import random

    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    rng = random.Random(1)
    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=11, leading=14, spaceAfter=6)
    cell = ParagraphStyle("c", fontName="Helvetica", fontSize=8, leading=9.5, alignment=1)
    prose = "In fiscal year 2004, the program served approximately 1.2 million participants across all states, an increase of 3 percent. "
    header = [
        [Paragraph("Region", cell), Paragraph("Participants<br/>(thousands)", cell), "", "", Paragraph("Average benefit<br/>(dollars)", cell), "", ""],
        ["", "2002", "2003", "2004", "2002", "2003", "2004"],
    ]
    rows = []
    for region in ["Northeast", "South", "Midwest", "West"]:
        rows.append([region, "", "", "", "", "", ""])
        for area in ["  Urban areas", "  Rural areas"]:
            rows.append([area] + [f"{rng.randint(50, 900):,}" for _ in range(3)] + [f"{rng.uniform(80, 300):.2f}" for _ in range(3)])
    t1 = Table(header + rows, colWidths=[110] + [55] * 6)
    t1.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), "Helvetica", 8),
                ("ALIGN", (1, 2), (-1, -1), "RIGHT"),
                ("SPAN", (1, 0), (3, 0)),
                ("SPAN", (4, 0), (6, 0)),
                ("LINEBELOW", (1, 0), (3, 0), 0.5, colors.black),
                ("LINEBELOW", (4, 0), (6, 0), 0.5, colors.black),
            ]
        )
    )
    t2 = Table([["Measure", "Value", "Change"]] + [[f"Indicator {i}", f"{rng.uniform(1, 99):.1f}%", f"{rng.uniform(-5, 5):+.1f}"] for i in range(1, 9)], colWidths=[150, 70, 70])
    t2.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), "Helvetica", 9), ("ALIGN", (1, 0), (-1, -1), "RIGHT")]))
    story = [
        Paragraph(prose * 4, body),
        t1,
        Paragraph("Note: Totals may not add due to rounding.", body),
        Paragraph(prose * 2, body),
        t2,
        Paragraph("The indicators above are reported every year.", body),
    ]
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=letter, invariant=1).build(story)
    return out.getvalue()


def test_borderless_tables_with_and_without_header_rules():
    doc = parse_document(borderless_exhibit(), Format.PDF, Settings())
    tables = sorted(doc.blocks, key=lambda b: b.bbox[1])
    assert [b.kind for b in tables] == [BlockKind.TABLE, BlockKind.TABLE]  # no "fraction" in the spanning header
    assert tables[0].shape is BlockShape.MULTI_LEVEL_OR_MERGED_HEADER
    assert "Participants" in tables[0].text and "Urban areas" in tables[0].text
    assert tables[1].shape is BlockShape.SIMPLE_TABLE and "Indicator 8" in tables[1].text
    texts = [s.text for s in doc.segments]
    assert "Note: Totals may not add due to rounding." in texts
    assert "The indicators above are reported every year." in texts
    assert not any("Urban areas" in t or "Indicator 1" in t for t in texts)


def test_truncated_pdf_fails_as_damaged_not_as_empty_or_scanned():
    from duocthu_assets.parse.errors import ParseFailed

    doc = pymupdf.open()
    for p in range(4):
        page = doc.new_page()
        page.insert_font(fontname="dv", fontfile=FONT)
        for i in range(30):
            page.insert_text((60, 60 + 22 * i), f"Trang {p + 1}, dòng {i}: liều dùng cho người lớn", fontname="dv", fontsize=10)
    data = doc.tobytes(garbage=4, deflate=True)
    for frac in (0.05, 0.3, 0.6, 0.95):
        with pytest.raises(ParseFailed, match=r"^damaged PDF: the file ends after [\d,]+ bytes without the PDF end marker"):
            parse_document(data[: int(len(data) * frac)], Format.PDF, Settings())
    # NUL padding after the end marker is not damage
    assert parse_document(data + b"\x00" * 5000, Format.PDF, Settings()).segments


def test_corrupt_pdf_says_damaged_and_names_what_is_wrong():
    from duocthu_assets.parse.errors import ParseFailed

    with pytest.raises(ParseFailed, match=r"^damaged PDF: MuPDF cannot open it"):
        parse_document(b"%PDF-1.7\n" + bytes(range(256)) * 40, Format.PDF, Settings())


def test_text_only_borderless_table_is_not_read_as_columns():
    """A three-column table of words (no numbers, no rules) and a table of
    wrapped text cells between rules: both lifted, neither split into page
    columns that would scatter its cells through the prose."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    _fonts()
    body = ParagraphStyle("b", fontName="DV", fontSize=10, leading=13, spaceAfter=5)
    cell = ParagraphStyle("c", fontName="DV", fontSize=9, leading=11)
    words = [["Thuốc", "Nhóm", "Đường dùng"], ["Amoxicilin", "Penicilin", "Uống"], ["Ceftriaxon", "Cephalosporin thế hệ 3", "Tiêm bắp, tiêm tĩnh mạch"], ["Gentamicin", "Aminoglycosid", "Tiêm"], ["Vancomycin", "Glycopeptid", "Truyền tĩnh mạch"]]
    wrapped = [["Chỉ định", "Liều người lớn"], ["Viêm phổi mắc phải cộng đồng ở người lớn chưa có biến chứng", "1 g mỗi 8 giờ"], ["Nhiễm khuẩn tiết niệu có biến chứng, viêm thận bể thận cấp", "1 - 2 g mỗi 12 giờ"], ["Dự phòng phẫu thuật", "1 g trước mổ"]]
    t1 = Table([[Paragraph(c, cell) for c in r] for r in words], colWidths=[110, 150, 160])
    t2 = Table([[Paragraph(c, cell) for c in r] for r in wrapped], colWidths=[200, 120])
    t2.setStyle(TableStyle([("LINEABOVE", (0, 0), (-1, 0), 0.8, colors.black), ("LINEBELOW", (0, -1), (-1, -1), 0.8, colors.black)]))
    story = [
        Paragraph("Các thuốc kháng sinh thường dùng được liệt kê dưới đây cùng với nhóm và đường dùng chính của từng thuốc.", body),
        t1,
        Paragraph("Câu sau bảng chữ không có số.", body),
        t2,
        Paragraph("Câu sau bảng chỉ định.", body),
    ]
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=A4, invariant=1).build(story)
    doc = parse_document(out.getvalue(), Format.PDF, Settings())
    assert [b.kind for b in doc.blocks] == [BlockKind.TABLE, BlockKind.TABLE]
    assert "Tiêm bắp, tiêm tĩnh mạch" in doc.blocks[0].text and "1 - 2 g mỗi 12 giờ" in doc.blocks[1].text
    assert [s.text for s in doc.segments][1:] == ["Câu sau bảng chữ không có số.", "Câu sau bảng chỉ định."]


def test_plain_upper_case_title_followed_by_standard_sections_opens_a_monograph():
    data = _page_with_lines(
        [
            (60, 80, "Câu cuối của chuyên luận trước, thuộc về chuyên luận trước.", 10),
            (60, 110, "CEFAZOLIN", 10),
            (60, 128, "Mã ATC: J01DB04.", 10),
            (60, 146, "Loại thuốc: Kháng sinh nhóm cephalosporin thế hệ 1.", 10),
            (60, 170, "MỤC LỤC ....................... 12", 10),
            (60, 188, "Một câu văn thường đứng sau dòng chữ in hoa trên.", 10),
        ]
    )
    doc = parse_document(data, Format.PDF, FORMULARY)
    heads = [(s.level, s.text) for s in doc.segments if s.kind is SegmentKind.HEADING]
    assert heads == [(1, "CEFAZOLIN"), (2, "Mã ATC"), (2, "Loại thuốc")]
