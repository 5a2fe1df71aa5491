"""Vietnamese syllables OCR cannot have read right (read/ocr_syllable.py):
each rule shown marking a misread word, and real words left alone."""

from __future__ import annotations

import pytest

from duocthu_assets.parse.pdf.read.ocr_syllable import impossible


@pytest.mark.parametrize("word", ["châp", "tât", "thuôc", "viêc", "bìch", "Đỗc", "Hảp", "quyêt"])
def test_a_syllable_closed_by_a_stop_without_sac_or_nang_is_impossible(word):
    assert "without the sắc or nặng tone" in impossible(word)


def test_two_tone_marks_and_a_word_that_is_no_syllable_are_impossible():
    assert impossible("tiềế") == "two tone marks"
    assert impossible("Đăl") == "not one Vietnamese syllable"
    assert impossible("bràng") == "not one Vietnamese syllable"


@pytest.mark.parametrize("word", ["chấp", "tố", "Nghị", "định", "quyết", "Điều", "được", "khoản", "người", "thuốc", "Việt",
                                  "nghiêng", "TỔNG", "CỘNG", "HÒA", "(Điều", "ml/phút", "Hà-Nội", "đ", "ĐT", "chap", "test",
                                  "26Đ", "kẽm", "giữa"])
def test_real_words_abbreviations_english_and_numbers_are_left_alone(word):
    assert impossible(word) == ""
