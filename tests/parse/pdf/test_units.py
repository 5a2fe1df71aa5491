"""The PDF parser's small pure functions, and its settings."""

from __future__ import annotations

import sys

import pytest

from duocthu_assets.parse.profiles import formulary
from duocthu_assets.parse.pdf.furniture.detect import furniture_key
from duocthu_assets.parse.pdf.furniture.page_numbers import embedded_page_number, parse_page_number
from duocthu_assets.parse.pdf.geometry import free_intervals, iou
from duocthu_assets.parse.pdf.layout.headings import numbering_depth
from duocthu_assets.parse.pdf.layout.paragraphs import LIST_MARKER, join_lines
from duocthu_assets.settings.pdf import PdfSettings, resolve_pdf_settings


@pytest.mark.parametrize(
    "text, value, label",
    [("12", 12, "12"), ("- 12 -", 12, "12"), ("– 7 –", 7, "7"), ("Trang 5", 5, "5"), ("Page 3 of 40", 3, "3"), ("12/40", 12, "12"), ("(xx)", None, "xx"), ("iii", None, "iii")],
)
def test_page_numbers_as_printed(text, value, label):
    number = parse_page_number(text)
    assert number is not None and number.value == value and number.label == label


@pytest.mark.parametrize("text", ["12.", "Table 3", "1,5 - 3 g", "mix", "Điều 5", ""])
def test_not_page_numbers(text):
    assert parse_page_number(text) is None


def test_embedded_page_number_and_furniture_key():
    assert embedded_page_number("Optimized Table Tokenization 9").value == 9
    assert embedded_page_number("205 DƯỢC THƯ QUỐC GIA").value == 205
    assert embedded_page_number("no number here") is None
    assert furniture_key("Trang  12") == furniture_key("trang 13") == "trang #"


@pytest.mark.parametrize(
    "printed, canonical",
    [
        ("Liều lượng và cách dùng", "Liều lượng và cách dùng"),
        ("LIỀU LƯỢNG VÀ CÁCH DÙNG", "Liều lượng và cách dùng"),
        ("3. Chỉ định:", "Chỉ định"),
        ("Tác dụng không mong muốn", "Tác dụng không mong muốn (ADR)"),
        ("Độ ổn định và bảo quản", "Độ ổn định và bảo quản"),
    ],
)
def test_standard_section_headings(printed, canonical):
    assert formulary.match_section_heading(printed) == canonical


def test_section_keys_are_ascii_with_d_for_dj():
    assert formulary.SECTION_KEYS["Liều lượng và cách dùng"] == "lieu_luong_va_cach_dung"
    assert formulary.SECTION_KEYS["Độ ổn định và bảo quản"] == "do_on_dinh_va_bao_quan"
    assert formulary.SECTION_KEYS["Tác dụng không mong muốn (ADR)"] == "tac_dung_khong_mong_muon_adr"
    assert len(formulary.STANDARD_SECTIONS) == 16


def test_inline_section_label():
    assert formulary.split_inline_section("Mã ATC: J01CR01.") == ("Mã ATC", "J01CR01.")
    assert formulary.split_inline_section("Người lớn: 1 g mỗi 6 giờ.") is None
    assert formulary.split_inline_section("Chỉ định:") is None  # nothing after the label


@pytest.mark.parametrize("text, expected", [("AMPICILIN VÀ SULBACTAM", True), ("GENTAMICIN", True), ("Gentamicin", False), ("LIỀU LƯỢNG VÀ CÁCH DÙNG", False), ("ADR", True), ("12 34", False), ("CHÚ Ý:", False)])
def test_monograph_titles(text, expected):
    assert formulary.is_monograph_title(text) is expected


@pytest.mark.parametrize(
    "text, expected",
    [("7.6.1 Liều dùng", ("decimal", 3)), ("3. Kết quả", ("decimal", 1)), ("Điều 5. Nguyên tắc", ("legal", 5)), ("Chương II", ("legal", 2)), ("a. Trẻ em", ("letter", 1)), ("IV. Discussion", ("roman", 1)), ("Plain text", None)],
)
def test_numbering(text, expected):
    assert numbering_depth(text) == expected


def test_join_lines_keeps_hard_hyphens_and_drops_soft_ones():
    assert join_lines(["beta-", "lactam là"]) == "beta-lactam là"
    assert join_lines(["inter\u00ad", "national"]) == "international"
    assert join_lines(["Liều 1,5 -", "3 g"]) == "Liều 1,5 - 3 g"
    assert join_lines(["a", "", "b"]) == "a b"


def test_list_markers():
    for text in ["• Một", "- Hai", "1. Ba", "a) Bốn", "(iv) Năm"]:
        assert LIST_MARKER.match(text), text
    assert not LIST_MARKER.match("Liều 1,5 g")


def test_geometry_helpers():
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert iou((0, 0, 10, 10), (20, 20, 30, 30)) == 0.0
    assert free_intervals([(0, 10), (30, 40), (12, 20)], 0, 40, 5) == [(20, 30)]


def test_pdf_settings_validated_once():
    assert resolve_pdf_settings(None) == PdfSettings()
    assert resolve_pdf_settings({"min_gutter": 9.0}).min_gutter == 9.0
    with pytest.raises(ValueError, match="unknown PDF settings"):
        resolve_pdf_settings({"gutter": 9})
    with pytest.raises(ValueError, match="furniture_band_frac"):
        PdfSettings(furniture_band_frac=1.5)
    with pytest.raises(ValueError, match="table_min_rows"):
        PdfSettings(table_min_rows=1)


def test_importing_the_parser_does_not_load_the_layout_model():
    import subprocess

    code = (
        "import sys; import duocthu_assets.parse.pdf.reader; "
        "import pymupdf; "
        "print('pymupdf.layout' in sys.modules, 'onnxruntime' in sys.modules, pymupdf._get_layout is None)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True"]
