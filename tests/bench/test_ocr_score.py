"""The OCR bench's scoring (bench/ocr_score.py) and its uncertainty rules
(bench/ocr_policy.py): what counts as a word read, a number lost, read
wrong, invented, withheld, and wrong outside an uncertain span."""

from __future__ import annotations

import unicodedata

from tests.support.scripts import load_bench



S = load_bench("ocr_score")
P = load_bench("ocr_policy")


def _words(*items):
    """OCR words from (text, conf) pairs, all on one line, 10 px apart."""
    return [
        {"text": t, "conf": c, "line": "1.1.1", "bbox": [i * 100, 0, i * 100 + 60, 30]} for i, (t, c) in enumerate(items)
    ]


def _score(truth, words, floor=None, flags=None):
    toks, marks = S.ocr_tokens(words, floor, flags)
    return S.score(truth, toks, marks)


def test_tokens_are_nfc_and_lose_the_punctuation_around_them():
    decomposed = unicodedata.normalize("NFD", "chấp")
    assert S.tokens(f"“{decomposed}” (2015), ./. -") == ["chấp", "2015"]


def test_a_lost_tone_mark_is_a_wrong_word():
    s = _score("thế chấp tài sản", _words(("thế", 95), ("châp", 95), ("tài", 95), ("sản", 95)))
    assert (s.truth_words, s.matched, s.word_accuracy) == (4, 3, 0.75)


def test_a_block_read_in_another_order_counts_as_read():
    truth = "CHÍNH PHỦ Số 49 CỘNG HOÀ XÃ HỘI"
    s = _score(truth, _words(*[(w, 95) for w in ["CỘNG", "HOÀ", "XÃ", "HỘI", "CHÍNH", "PHỦ", "Số", "49"]]))
    assert s.matched == s.truth_words == 8
    assert (s.inserted, s.correct, s.lost, s.invented) == (0, 1, 0, 0)


def test_numbers_correct_wrong_lost_and_invented():
    truth = "ngày 12 tháng 6 năm 2017 thửa 26Đ Luật số 58/2024/QH15 Hồ"
    words = _words(
        ("ngày", 95), ("12", 96), ("tháng", 95), ("năm", 95), ("2011", 96),  # 6 lost, 2017 wrong
        ("thửa", 95), ("26D", 95), ("Luật", 95), ("số", 95), ("58/2024/QHI5", 60), ("H6", 91),
    )
    examples = []
    toks, marks = S.ocr_tokens(words, 80)
    s = S.score(truth, toks, marks, examples=examples)
    assert s.numbers == 5
    assert (s.correct, s.lost, s.wrong, s.wrong_withheld, s.invented) == (2, 1, 2, 1, 1)
    assert s.wrong_outside == 2  # 2017 read 2011 at 96, and H6 invented from Hồ at 91
    assert ("wrong", "2017", "2011", False) in examples
    assert ("wrong", "58/2024/QH15", "58/2024/QHI5", True) in examples
    assert ("invented", "Hồ", "H6", False) in examples


def test_a_number_read_right_but_uncertain_is_withheld_not_wrong():
    s = _score("Điều 11", _words(("Điều", 95), ("11", 40)), floor=50)
    assert (s.correct, s.correct_withheld, s.wrong_outside, s.uncertain_words) == (0, 1, 0, 1)


def test_separators_are_part_of_a_number():
    s = _score("k = 1.180", _words(("k", 95), ("=", 95), ("1,180", 95)))
    assert (s.wrong, s.wrong_outside) == (1, 1)


def test_a_range_is_one_number_however_it_is_spaced():
    s = _score("Clcr 35 - 69 ml", _words(("Clcr", 95), ("35", 95), ("-", 60), ("69", 95), ("ml", 95)), floor=80)
    assert (s.numbers, s.correct_withheld, s.wrong, s.lost) == (1, 1, 0, 0)  # the dash's doubt covers the range
    s = _score("Clcr 35 - 69 ml", _words(("Clcr", 95), ("35-69", 95), ("ml", 95)), floor=80)
    assert (s.numbers, s.correct, s.wrong) == (1, 1, 0)


def test_rules_mark_the_sure_looking_half_of_a_split_number():
    words = _words(("Luật", 95), ("số", 95), ("3", 97), ("1/2024QHI", 58))
    assert P.mark(words, 80) == [False, False, False, True]
    assert P.mark(words, 80, neighbours=True) == [False, False, True, True]


def test_rules_mark_a_number_broken_by_a_narrow_gap():
    words = [
        {"text": "Điều", "conf": 95, "line": "1", "bbox": [0, 0, 80, 30]},
        {"text": "1", "conf": 90, "line": "1", "bbox": [100, 0, 110, 30]},
        {"text": "1;", "conf": 96, "line": "1", "bbox": [115, 0, 130, 30]},
    ]
    assert P.mark(words, 80, split=True) == [False, True, True]


def test_rules_mark_digits_that_stand_for_letters():
    words = _words(("H6", 91), ("g6m", 89), ("A07AAO9", 89), ("QH15", 96), ("XT01", 96), ("2024", 96))
    assert P.mark(words, 80, confusable=True) == [True, True, True, False, False, False]


def test_a_number_floor_marks_numbers_only():
    words = _words(("Hà", 91), ("31", 91))
    assert P.mark(words, 80, number_floor=93) == [False, True]
