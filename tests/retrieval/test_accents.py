"""Accents put back from the index's own words (retrieval/accents.py)."""

from __future__ import annotations

from duocthu_assets.retrieval.accents import AccentRestorer, has_no_accents

TEXTS = [
    "Điều 319. Hiệu lực của thế chấp tài sản. Hợp đồng thế chấp tài sản có hiệu lực từ thời điểm giao kết.",
    "Điều 5. Điều kiện tham gia họ. Thành viên của họ phải là người từ đủ 18 tuổi trở lên.",
    "Chủ hộ gia đình đại diện cho hộ gia đình. Hộ gia đình có tài sản chung.",
    "Thể thức văn bản. Cơ quan có thẩm quyền ban hành văn bản.",
]


def test_restores_a_query_typed_without_accents_from_the_index_words():
    restorer = AccentRestorer.build(TEXTS)
    assert restorer.restore("the chap tai san co hieu luc khi nao") == "thế chấp tài sản có hiệu lực khi nao"  # "nào" is not in the index: kept as typed
    # họ (a credit group) after "tham gia", hộ (household) before "gia đình": the pair decides
    assert restorer.restore("dieu kien tham gia ho") == "điều kiện tham gia họ"
    assert restorer.restore("chu ho gia dinh") == "chủ hộ gia đình"


def test_keeps_numbers_punctuation_case_and_unknown_words():
    restorer = AccentRestorer.build(TEXTS)
    assert restorer.restore("Dieu 319 (the chap) xyz") == "Điều 319 (thế chấp) xyz"


def test_a_query_with_any_accent_is_taken_as_written():
    restorer = AccentRestorer.build(TEXTS)
    assert restorer.restore("thế chap tai san") == "thế chap tai san"
    assert not has_no_accents("thế chap") and not has_no_accents("319") and has_no_accents("the chap 319")


def test_no_pair_is_counted_across_two_chunks():
    restorer = AccentRestorer.build(["a họ", "gia b"])
    keys = {(restorer.words[k // len(restorer.words)], restorer.words[k % len(restorer.words)]) for k in restorer.pair_keys.tolist()}
    assert keys == {("a", "họ"), ("gia", "b")}


def test_an_empty_index_restores_nothing():
    restorer = AccentRestorer.build([])
    assert restorer.restore("the chap") == "the chap"
