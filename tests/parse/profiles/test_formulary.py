"""The formulary profile on headings read by OCR (issue 39): marks lost or
a letter misread are tolerated, no section is ever invented; text-layer
headings are matched exactly, as before. And a scanned monograph page
is found in sections through the whole reader."""

from __future__ import annotations

import pytest

from duocthu_assets.model import Format, SegmentKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.profiles.formulary import (
    is_monograph_title,
    match_section_heading,
)
from duocthu_assets.settings import Profile, Settings
from tests.support.scans import needs_tesseract, scanned_pdf


@pytest.mark.parametrize("read, section", [
    ("Chi đinh", "Chỉ định"), ("Chống chi đinh", "Chống chỉ định"), ("Liéu lương và cách dùng", "Liều lượng và cách dùng"),
    ("Tác dung không mong muôn (ADR)", "Tác dụng không mong muốn (ADR)"), ("Thời ky mang thai", "Thời kỳ mang thai"),
])
def test_ocr_damage_to_a_section_heading_is_tolerated(read, section):
    assert match_section_heading(read) is None  # a text layer's heading is matched exactly
    assert match_section_heading(read, tolerant=True) == section


@pytest.mark.parametrize("read", ["Chỉ dẫn", "Quá liều", "Thuốc", "Liều dùng", "Dược lực"])
def test_no_section_is_invented(read):
    assert match_section_heading(read, tolerant=True) is None


def test_a_misread_capital_in_a_title_is_tolerated_only_from_ocr():
    assert is_monograph_title("AMPICILlN VÀ SULBACTAM", tolerant=True)
    assert not is_monograph_title("AMPICILlN VÀ SULBACTAM")
    assert not is_monograph_title("Ampicilin và sulbactam", tolerant=True)


@pytest.mark.slow
def test_a_scanned_monograph_is_found_in_sections():
    needs_tesseract()
    lines = ["AMOXICILIN", "Chỉ định", "Nhiễm khuẩn đường hô hấp trên.", "Liều lượng và cách dùng",
             "Người lớn: uống 500 mg mỗi 8 giờ.", "Chú ý khi dùng thuốc", "Uống sau bữa ăn."]
    parsed = parse_document(scanned_pdf(lines, size=14), Format.PDF, Settings(profile=Profile.FORMULARY))
    heads = [s.text for s in parsed.segments if s.kind is SegmentKind.HEADING]
    assert heads == ["AMOXICILIN", "Chỉ định", "Liều lượng và cách dùng"], heads
    assert {s.section_key for s in parsed.segments} >= {"chi_dinh", "lieu_luong_va_cach_dung"}
