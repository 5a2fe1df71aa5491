"""XLSX and CSV parsing (ADR 0018 §4, §6) on the corpus and on generated files."""

from __future__ import annotations

import csv

import pytest

from duocthu_assets.formats import detect_format
from duocthu_assets.model import Format, SegmentKind
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Settings

from tests.support.office import xlsx_bytes
from tests.support.scripts import load_script

NFC = Settings()
PERSIAN = Settings(normalization="persian")


def parse_bytes(data: bytes, expected: Format, settings: Settings = NFC):
    fmt = detect_format(data)
    assert fmt is expected
    doc = parse_document(data, fmt, settings)
    assert [s.segment_id for s in doc.segments] == [f"s{n:05d}" for n in range(1, len(doc.segments) + 1)]
    for s in doc.segments:
        assert doc.canonical_text[s.offset : s.offset + s.length] == s.text
    return doc


def rows_of(doc) -> list[str]:
    return [s.text for s in doc.segments if s.kind is SegmentKind.TABLE_ROW]


def by_ref(doc) -> dict[str, str]:
    return {s.source_ref: s.text for s in doc.segments}


# --------------------------------------------------------------------- XLSX


def test_merged_cells_forward_filled_and_two_row_header(corpus):
    doc = parse_bytes(corpus("docling__xlsx_01_multisheet_merged.xlsx").read_bytes(), Format.XLSX)
    refs = by_ref(doc)
    assert doc.page_count == 4
    assert [(s.level, s.text) for s in doc.segments if s.kind is SegmentKind.HEADING] == [
        (1, "Sheet1"), (1, "Sheet2"), (1, "Sheet3"), (1, "Sheet4")
    ]
    # A4:A5 holds 3: row 5 carries it too; the header merged over rows 1-2 labels with both levels
    assert refs["Sheet3!A4"] == "first: 3\nheader / second: 4\nheader / third: 5"
    assert refs["Sheet3!A5"] == "first: 3\nheader / second: 6\nheader / third: 7"
    # B6:C7 holds 9 under the merged "header": reported once per row, in both rows
    assert refs["Sheet3!A6"] == "first: 8\nheader: 9"
    assert refs["Sheet3!A7"] == "first: 10\nheader: 9"
    # the second table on the sheet (E7:G13) has its own header
    assert refs["Sheet3!E12"] == "first (f): 8\nheader (f): 9"
    assert "Sheet3!A2" not in refs  # the header's duplicate row is not data
    # Sheet2's third table (C14:E18) is labeled by its own header, not by Sheet2's first
    assert refs["Sheet2!C15"] == "col-1: 1\ncol-2: 2\ncol-3: 3"
    section = next(s for s in doc.segments if s.source_ref == "Sheet3!A6")
    assert section.entry_title == "Sheet3"
    assert any("charts" in w for w in doc.warnings)


def test_banner_row_skipped_above_header(corpus):
    doc = parse_bytes(corpus("docling__xlsx_05_table_with_title.xlsx").read_bytes(), Format.XLSX)
    kinds = [(s.kind, s.text) for s in doc.segments]
    assert kinds[0] == (SegmentKind.HEADING, "Duck Observations")
    assert kinds[1] == (SegmentKind.PARAGRAPH, "Number of freshwater ducks per year")
    assert rows_of(doc) == [f"Year: {y}\nFreshwater Ducks: {n}" for y, n in
                            [(2019, 120), (2020, 135), (2021, 150), (2022, 170), (2023, 160), (2024, 180)]]
    assert doc.segments[2].source_ref == "'Duck Observations'!B5"


def test_empty_and_near_empty_sheets(corpus):
    doc = parse_bytes(corpus("csvkit__sheets.xlsx").read_bytes(), Format.XLSX)
    assert doc.page_count == 3
    assert [s.text for s in doc.segments if s.kind is SegmentKind.HEADING] == ["data", "ʤ"]
    assert any("'not this one' is empty" in w for w in doc.warnings)
    refs = by_ref(doc)
    assert refs["data!A2"] == (
        "text: Chicago Reader\ndate: 1971-01-01\ninteger: 40\nboolean: TRUE\nfloat: 1\ndatetime: 1971-01-01 04:14:00"
    )
    assert refs["data!A3"].endswith("Extra data beyond headers will be trimmed")  # kept, unlabeled
    assert refs["data!A4"].count("float: 41800000.01") == 1
    assert refs["ʤ!A2"] == "a: 1\nb: 2\nc: 3"


def test_datasheet_form_keeps_each_line_together(corpus):
    doc = parse_bytes(corpus("docling__xlsx_07_datasheet_form.xlsx").read_bytes(), Format.XLSX)
    refs = by_ref(doc)
    # blank spacer columns B and D do not split a row of the form
    assert refs["'Page 1'!A11"] == "1 |  | Rated system voltage |  | kV | : | 130 (131 Um, 132 AC, 133 BIL)"
    assert refs["'Page 1'!A6"] == "Package no.: 13156456\nDoc. no.: 144564\nRev.: A"


def test_workbook_with_only_empty_sheets_is_rejected():
    def build(wb):
        wb.active["C3"].number_format = "0.00"  # formatted, never filled
        wb.create_sheet("Empty too")

    with pytest.raises(DocumentRejected, match=r"^the workbook has no data: its 2 sheet"):
        parse_document(xlsx_bytes(build), Format.XLSX, NFC)


def test_compensation_sheet_never_reads_80_70():
    compensation = load_script("make_sample_office").compensation_xlsx()
    doc = parse_bytes(compensation, Format.XLSX)
    refs = by_ref(doc)
    steps = [s.text for s in doc.segments if s.entry_title == "Grade steps" and s.kind is SegmentKind.TABLE_ROW]
    assert len(steps) == 30 and steps[0] == "80 | 70"
    assert not any(": " in row for row in steps)
    # the department merged over three rows is in each of them; the banner is a paragraph
    assert refs["'Pay scale'!A1"] == "Monthly pay scale 2024 (USD)"
    assert refs["'Pay scale'!A5"] == "Department: Finance\nRole: Payroll clerk\nMinimum: 3100\nMaximum: 3900"
    assert any("'Notes' is empty" in w for w in doc.warnings)


def test_cached_values_not_formulas_and_missing_results_warned():
    def build(wb):
        ws = wb.active
        ws.append(["Item", "Amount"])
        ws.append(["a", 10])
        ws.append(["b", 20])
        ws.append(["Total", "=SUM(B2:B3)"])  # openpyxl saves no result for it

    doc = parse_bytes(xlsx_bytes(build), Format.XLSX)
    assert "SUM" not in doc.canonical_text
    assert by_ref(doc)["Sheet!A4"] == "Item: Total"
    assert any("formula cells have no saved result (B4)" in w for w in doc.warnings)


# ---------------------------------------------------------------------- CSV


def test_latin1_is_decoded_and_named(corpus):
    doc = parse_bytes(corpus("csvkit__test_latin1.csv").read_bytes(), Format.CSV)
    assert rows_of(doc) == ["a: 1\nb: 2\nc: 3", "a: 4\nb: 5\nc: ©"]
    assert any(w.startswith("not UTF-8: decoded as") for w in doc.warnings)


def test_utf8_bom_is_dropped(corpus):
    doc = parse_bytes(corpus("csvkit__test_utf8_bom.csv").read_bytes(), Format.CSV)
    assert rows_of(doc) == ["foo: 1\nbar: 2\nbaz: 3", "foo: 4\nbar: 5\nbaz: ʤ"]
    assert doc.warnings == []


def test_utf16_le_with_bom_is_read(corpus):
    doc = parse_bytes(corpus("csvreader__utf16bom.csv").read_bytes(), Format.CSV)
    rows = rows_of(doc)
    assert len(rows) == 20 and rows[0].startswith("ID: 1\nName: ")
    assert doc.warnings == []  # the BOM names the encoding: nothing was guessed


def test_utf16_be_with_bom_is_read(corpus):
    doc = parse_bytes(corpus("csvparser__utf16-big.csv").read_bytes(), Format.CSV)
    assert rows_of(doc) == ["a: 1\nb: 2\nc: 3", "a: 4\nb: 5\nc: ʤ"]
    assert doc.warnings == []


def test_quoted_newlines_stay_in_their_field(corpus):
    doc = parse_bytes(corpus("csvkit__test_header_newline.csv").read_bytes(), Format.CSV)
    assert rows_of(doc) == ["start end | b | c", "d | e | f"]
    assert [s.source_ref for s in doc.segments] == ["csv:row1", "csv:row2"]


@pytest.mark.parametrize("name", ["docling__csv-semicolon.csv", "docling__csv-tab.csv"])
def test_dialect_is_sniffed(corpus, name):
    doc = parse_bytes(corpus(name).read_bytes(), Format.CSV)
    rows = rows_of(doc)
    assert len(rows) == 5
    assert rows[0].startswith("Index: 1\nCustomer Id: DD37Cf93aecA6Dc\nFirst Name: Sheryl\nLast Name: Baxter")
    company = "Dominguez;Mcmillan and Donovan" if "semicolon" in name else "Dominguez Mcmillan and Donovan"
    assert f"Company: {company}\n" in rows[3]  # the quoted delimiter stays inside its field


def test_ragged_row_keeps_its_extra_field(corpus):
    doc = parse_bytes(corpus("docling__csv-too-many-columns.csv").read_bytes(), Format.CSV)
    assert rows_of(doc) == ["1 | 2 | 3 | 4", "a | b | c | d", "a | b | c | d | e", "a | b | c | d", "a | b | c | d"]


def test_numbers_only_csv_has_no_header(corpus):
    doc = parse_bytes(corpus("csvkit__no_header_row3.csv").read_bytes(), Format.CSV)
    assert rows_of(doc) == ["1 | 2 | 3", "4 | 5 | 6"]


def test_compensation_csv_never_reads_80_70():
    data = "".join(f"{80 + k},{70 + k}\r\n" for k in range(30)).encode()
    rows = rows_of(parse_bytes(data, Format.CSV))
    assert len(rows) == 30 and not any(": " in row for row in rows)
    rows = rows_of(parse_bytes(b"Grade,Salary\r\n" + data, Format.CSV))
    assert rows[0] == "Grade: 80\nSalary: 70" and len(rows) == 30


def test_windows_1256_payroll_detected_and_normalized():
    payroll = load_script("make_sample_persian").persian_payroll_csv()
    with pytest.raises(UnicodeDecodeError):
        payroll.decode("utf-8")
    doc = parse_bytes(payroll, Format.CSV, PERSIAN)
    assert any("decoded as cp1256" in w for w in doc.warnings)
    assert doc.segments[0].kind is SegmentKind.PARAGRAPH  # the banner row above the header
    assert doc.segments[0].text == "فهرست حقوق کارکنان واحد مالی - سال 1402"
    rows = rows_of(doc)
    assert rows[0] == "نام و نام خانوادگی: علی رضایی\nسمت: کارشناس مالی\nحقوق ماهانه (ریال): 120000000\nتوضیحات: استخدام رسمی"
    assert "توضیحات: قرارداد یکساله، قابل تمدید" in rows[1]  # quoted comma
    assert "توضیحات: دارای دو سمت: مدیر و بازرس" in rows[2]  # quoted newline
    assert not any(ch in "\n".join(rows) for ch in "كيى")


def test_explicit_encoding_is_used_and_a_wrong_one_fails_loudly():
    payroll = load_script("make_sample_persian").persian_payroll_csv()
    doc = parse_bytes(payroll, Format.CSV, Settings(normalization="persian", csv_encoding="cp1256"))
    assert any("csv_encoding of the collection" in w for w in doc.warnings)
    with pytest.raises(ParseFailed, match="not valid ascii .* byte 0xe9 at offset 7"):
        parse_bytes(b"a,b\r\n1,\xe9\r\n", Format.CSV, Settings(csv_encoding="ascii"))
    with pytest.raises(DocumentRejected, match="unknown csv_encoding"):
        parse_bytes(b"a,b\r\n1,\xe9\r\n", Format.CSV, Settings(csv_encoding="no-such-codec"))


def test_unclosed_quote_fails_instead_of_swallowing_rows():
    with pytest.raises(ParseFailed, match="never closed"):
        parse_bytes(b'name,note\r\nAli,"open quote\r\nReza,fine\r\n', Format.CSV)


def test_oversized_field_is_refused():
    data = b"name,note\r\nAli," + b"x" * 5000 + b"\r\n"
    with pytest.raises(DocumentRejected, match="max_csv_field_bytes"):
        parse_bytes(data, Format.CSV, Settings(max_csv_field_bytes=1000))
    assert csv.field_size_limit() != 1000  # the process-wide limit is restored


def test_a_csv_wider_than_max_sheet_cells_is_refused_while_read():
    """One line of many cells (the red team's 50 MB one-line CSV, small):
    refused with the numbers as soon as rows x columns pass the limit."""
    one_line = ",".join(f"thuoc{i:05d}" for i in range(3000)).encode() + b"\r\n"
    with pytest.raises(DocumentRejected, match=r"1 rows × 3,000 columns = 3,000 cells, over the 2,000 a table may have \(max_sheet_cells\)"):
        parse_bytes(one_line, Format.CSV, Settings(max_sheet_cells=2000))
    tall = b"a,b\r\n" * 600 + b"a,b,c,d\r\n"  # one wide row pads every row
    with pytest.raises(DocumentRejected, match="601 rows × 4 columns = 2,404 cells"):
        parse_bytes(tall, Format.CSV, Settings(max_sheet_cells=2000))
    assert len(parse_bytes(b"a,b\r\n" * 600, Format.CSV, Settings(max_sheet_cells=2000)).segments) >= 600


def test_banner_row_above_header_in_csv():
    data = "Payroll March,,\r\nName,Role,Salary\r\nAli,Clerk,3100\r\nReza,Lead,7100\r\n".encode()
    doc = parse_bytes(data, Format.CSV)
    assert [(s.kind, s.text) for s in doc.segments] == [
        (SegmentKind.PARAGRAPH, "Payroll March"),
        (SegmentKind.TABLE_ROW, "Name: Ali\nRole: Clerk\nSalary: 3100"),
        (SegmentKind.TABLE_ROW, "Name: Reza\nRole: Lead\nSalary: 7100"),
    ]


def test_hidden_rows_and_columns_are_read_and_named():
    """A row or column Excel does not show (hidden, or filtered out) is read
    like the rest; the warning says which, as for a hidden sheet — a
    discontinued drug's hidden row would otherwise read as listed."""

    def build(wb):
        ws = wb.active
        ws.title = "Danh mục"
        for row in (["Thuốc", "Liều", "Ghi chú nội bộ", "Giá"], ["Amoxicillin", "500 mg", "x", 1200],
                    ["Cefuroxim", "250 mg", "ngừng lưu hành", 5400], ["Paracetamol", "500 mg", "", 300]):
            ws.append(row)
        ws.row_dimensions[3].hidden = True
        ws.column_dimensions["C"].hidden = True

    doc = parse_bytes(xlsx_bytes(build), Format.XLSX)
    assert any("Cefuroxim" in r for r in rows_of(doc))  # read, as before
    assert "sheet 'Danh mục': 1 row(s) (3) and 1 column(s) (C) hidden in Excel (hidden or filtered out); their content is included" in doc.warnings
    plain = parse_bytes(xlsx_bytes(lambda wb: wb.active.append(["Thuốc", "Liều"])), Format.XLSX)
    assert not any("hidden in Excel" in w for w in plain.warnings)


def test_cell_comments_are_named():
    """A note on a cell (a reviewer's ``giảm liều khi Clcr < 30`` on a dose)
    is not the cell's value and is not read; the warning counts them and
    quotes the first, as the PDF parse does for annotations' comments."""
    from openpyxl.comments import Comment

    def build(wb):
        ws = wb.active
        ws.title = "Liều"
        for row in (["Thuốc", "Liều"], ["Amoxicillin", "500 mg"], ["Cefuroxim", "250 mg"]):
            ws.append(row)
        ws["B3"].comment = Comment("Dược sĩ An: giảm liều khi Clcr < 30", "Dược sĩ An")
        ws["A2"].comment = Comment("kiểm tra lại", "B")

    doc = parse_bytes(xlsx_bytes(build), Format.XLSX)
    assert any("250 mg" in r for r in rows_of(doc))
    assert "sheet 'Liều': 2 cell comment(s) not read (a note on a cell is not its value; a reader sees it on hovering), the first on A2: 'kiểm tra lại'" in doc.warnings, doc.warnings
    plain = parse_bytes(xlsx_bytes(lambda wb: wb.active.append(["Thuốc", "Liều"])), Format.XLSX)
    assert not any("cell comment" in w for w in plain.warnings)


def test_struck_cells_are_marked_and_named(corpus):
    """A cell whose font is struck through (an old price or dose crossed out,
    the new one beside it) is kept and written ``~~like this~~``; the
    warning counts them and names the first. None of the corpus's workbooks
    strikes a cell."""
    from openpyxl.styles import Font

    def build(wb):
        ws = wb.active
        ws.title = "Giá"
        for row in (["Thuốc", "Giá cũ", "Giá"], ["Amoxicillin", 1200, 1100], ["Cefuroxim", "5.400 đ", "5.000 đ"]):
            ws.append(row)
        ws["B2"].font = Font(strike=True)
        ws["B3"].font = Font(strike=True, bold=True)
        ws["C3"].font = Font(strike=False, bold=True)

    doc = parse_bytes(xlsx_bytes(build), Format.XLSX)
    rows = rows_of(doc)
    assert any("~~1200~~" in r and "1100" in r and "~~1100~~" not in r for r in rows), rows
    assert any("~~5.400 đ~~" in r and "~~5.000 đ~~" not in r for r in rows), rows
    assert ("sheet 'Giá': 2 cell(s) struck through, 0 of them in part (shown crossed out: deleted, not in force) kept and "
            "marked ~~like this~~, the first on B2: '1200'") in doc.warnings, doc.warnings
    for name in ("docling__xlsx_01_multisheet_merged.xlsx", "poi__52348_two_row_header.xlsx"):
        parsed = parse_bytes(corpus(name).read_bytes(), Format.XLSX)
        assert not any("struck through" in w for w in parsed.warnings) and not any("~~" in r for r in rows_of(parsed))


def test_a_cell_struck_in_part_keeps_its_runs_apart():
    """A rich-text cell (runs with fonts of their own) whose first run is
    struck: ``~~1.200~~ 1.100`` in one cell, where it read ``1.200 1.100``."""
    from openpyxl.cell.rich_text import CellRichText, TextBlock
    from openpyxl.cell.text import InlineFont
    from openpyxl.styles import Font

    def build(wb):
        ws = wb.active
        ws.title = "Giá"
        ws.append(["Thuốc", "Giá"])
        ws.append(["Amoxicillin", "x"])
        ws["B2"] = CellRichText(TextBlock(InlineFont(strike=True), "1.200"), " 1.100 đ")
        ws.append(["Cefuroxim", "5.000 đ"])
        ws["B3"].font = Font(bold=True)
        ws.append(["Paracetamol", "300 đ"])
        ws["A4"] = CellRichText(TextBlock(InlineFont(b=True), "Paracetamol"), " 500")  # rich, nothing struck

    doc = parse_bytes(xlsx_bytes(build), Format.XLSX)
    rows = rows_of(doc)
    assert any("~~1.200~~ 1.100 đ" in r for r in rows), rows
    assert any("Paracetamol 500" in r and "~~" not in r for r in rows), rows
    assert ("sheet 'Giá': 1 cell(s) struck through, 1 of them in part (shown crossed out: deleted, not in force) kept "
            "and marked ~~like this~~, the first on B2: '~~1.200~~ 1.100 đ'") in doc.warnings, doc.warnings
