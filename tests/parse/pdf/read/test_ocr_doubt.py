"""Which OCR words are uncertain (read/ocr_doubt.py): the floor, and the
number rules the bench measured, each shown able to mark a word."""

from __future__ import annotations

from duocthu_assets.parse.pdf.read.ocr import OcrWord
from duocthu_assets.parse.pdf.read.ocr_doubt import uncertain_words


def _w(text: str, conf: float, x: float, line: int = 1) -> OcrWord:
    return OcrWord(text, (x, 0, x + 8 * len(text), 10), conf, 1, 1, line)


def test_the_floor_and_the_number_floor():
    words = [_w("thuốc", 85, 0), _w("uống", 70, 60), _w("500", 92, 120), _w("500", 96, 200, line=2)]
    assert uncertain_words(words, 80, 93) == [False, True, True, False]


def test_a_number_split_by_a_small_gap_is_uncertain_both_halves():
    words = [_w("Điều", 96, 0), _w("1", 96, 50), _w("1", 96, 60)]  # 2 px apart: "11" read "1 1"
    assert uncertain_words(words, 80, 93) == [False, True, True]


def test_a_digit_beside_a_confusable_letter_is_uncertain():
    words = [_w("A07AAO9", 97, 0), _w("H6", 97, 100, line=2), _w("2024", 97, 200, line=3)]
    assert uncertain_words(words, 80, 93) == [True, True, False]


def test_the_sure_half_of_a_split_number_is_uncertain_too():
    words = [_w("3", 97, 0), _w("1/2024QHI", 58, 40), _w("ngày", 97, 150)]
    assert uncertain_words(words, 80, 93) == [True, True, False]


def test_an_impossible_vietnamese_syllable_is_uncertain_when_the_page_is_read_as_vietnamese():
    words = [_w("chấp", 96, 0), _w("châp", 96, 40), _w("hành", 96, 80)]
    assert uncertain_words(words, 80, 93, syllables=True) == [False, True, False]
    assert uncertain_words(words, 80, 93) == [False, False, False]
