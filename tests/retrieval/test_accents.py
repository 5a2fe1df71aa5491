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


def test_the_general_language_puts_back_an_everyday_word_the_index_writes_otherwise():
    # a legal index holds "tối đa", "tội phạm" and "cho mượn" but never "tôi" or "muốn": without the general
    # language "toi muon" becomes "tối mượn"
    texts = ["Mức phạt tối đa. Tội phạm và hình phạt. Cho mượn tài sản."] + ["Điều khoản chung của hợp đồng dân sự."] * 400
    assert AccentRestorer.build(texts).restore("toi muon biet") == "tối mượn biet"
    general = {"tôi": 3e-3, "tối": 5e-4, "tội": 2e-4, "muốn": 1e-3, "mượn": 4e-5}
    restorer = AccentRestorer.build(texts, general=general)
    assert restorer.restore("toi muon biet") == "tôi muốn biet"  # "biet": no accented form in the index, kept as typed
    assert restorer.restore("muc phat toi da") == "mức phạt tối đa"  # the index's own pairs still decide
    assert restorer.restore("cho muon tai san") == "cho mượn tài sản"


def test_a_general_word_joins_only_a_syllable_the_index_writes_with_accents():
    # an English index: "can" is never written with accents there, so Vietnamese "cần" is not a candidate
    restorer = AccentRestorer.build(["The dose can be reduced.", "Renal failure: reduce the dose."], general={"cần": 1e-2, "thế": 1e-2})
    assert restorer.restore("the dose can be reduced") == "the dose can be reduced"


def test_a_pair_the_index_never_holds_still_weighs_its_words_frequency():
    # "nhà" is frequent, "nha" absent from the index; followed by a word the index never pairs with it,
    # the frequent word must still win (a Dirichlet estimate made every unseen chain a tie)
    texts = ["nhà ở, nhà đất, nhà nước, tội phạm"] * 20 + ["điều khoản chung"] * 2000
    restorer = AccentRestorer.build(texts, general={"nhà": 3e-3, "nha": 2e-4, "tôi": 1e-2})
    assert restorer.restore("nha toi") == "nhà tôi"


def test_general_frequencies_are_vietnamese_words_shipped_with_the_package():
    from duocthu_assets.retrieval.accents import general_frequencies

    found = general_frequencies()
    assert found["tôi"] > found["tối"] > 0 and all(w.isalpha() for w in list(found)[:100])
