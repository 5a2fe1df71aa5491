"""The formulary's section schema (issue 40 items 1 and 2): the everyday
words that ask for a monograph's section, read with or without accents."""

from __future__ import annotations

from duocthu_assets.retrieval.sections import (
    SCHEMA,
    cued_sections,
    is_section,
    titles_of,
)


def _asked(query):
    return [(c.section.title, c.strong) for c in cued_sections(query)]


def test_everyday_words_name_the_section_with_or_without_accents():
    for query in ("Phụ nữ có thai dùng vancomycin được không?", "phu nu co thai dung vancomycin duoc khong", "mang bầu uống thuốc này được không"):
        assert _asked(query)[0] == ("Thời kỳ mang thai", True), query
    assert _asked("đang cho con bú có dùng được không") == [("Thời kỳ cho con bú", True)]
    assert _asked("tac dung phu cua amikacin") == [("Tác dụng không mong muốn (ADR)", True)]
    assert _asked("lieu ciprofloxacin cho nguoi suy than") == [("Liều lượng và cách dùng", False), ("Liều lượng và cách dùng", False)]
    assert _asked("bao quan vancomycin o nhiet do nao") == [("Độ ổn định và bảo quản", True)]


def test_the_longest_phrase_wins_where_two_overlap():
    assert _asked("xử trí quá liều amikacin") == [("Quá liều và xử trí", True)]  # not "liều": the dose
    assert _asked("chong chi dinh cua gentamicin") == [("Chống chỉ định", True)]  # not "chỉ định"
    assert _asked("Chỉ định của gentamicin") == [("Chỉ định", True)]


def test_a_word_typed_with_other_accents_is_another_word():
    assert _asked("vancomycin có thải trừ qua thận không") == [("Dược động học", True)]  # thải, not thai: not pregnancy
    assert _asked("vancomycin co thai tru qua than khong")[0][0] == "Dược động học"  # folded: elimination read first
    assert _asked("liệu pháp kháng sinh") == []  # liệu, not liều
    assert _asked("tài liệu hướng dẫn") == []
    assert _asked("thế chấp có hiệu lực khi nào") == []


def test_a_printed_title_is_known_by_its_opening_words():
    adr = next(s for s in SCHEMA if s.title.startswith("Tác dụng"))
    assert is_section(adr, "Tác dụng không mong muốn (ADR)") and is_section(adr, "TÁC DỤNG KHÔNG MONG MUỐN")
    indication = next(s for s in SCHEMA if s.title == "Chỉ định")
    assert titles_of(indication, ["Chống chỉ định", "Chỉ định", "Liều lượng và cách dùng"]) == ["Chỉ định"]
