"""Citations looked up in the index's structure (issue 40 item 2): the
cited article ranked first when it exists, in the document the query names;
a unit that does not exist said so, with nothing near it in its place; a
monograph and a section found by their words."""

from __future__ import annotations

from duocthu_assets.retrieval.answer import format_hits
from duocthu_assets.retrieval.citation import DocumentNames
from duocthu_assets.retrieval.structure import Structure, resolve, unit_label

DOCS = ["blds", "blds", "blds", "nd99", "nd99", "thuoc", "thuoc", "thuoc"]
HEADINGS = [
    ["BỘ LUẬT DÂN SỰ", "Chương XV", "Điều 117. Điều kiện có hiệu lực của giao dịch dân sự"],
    ["BỘ LUẬT DÂN SỰ", "Chương XV", "Điều 319. Hiệu lực của thế chấp tài sản"],
    ["BỘ LUẬT DÂN SỰ", "Chương XV", "Điều 319. Hiệu lực của thế chấp tài sản"],
    ["NGHỊ ĐỊNH", "Điều 5. Đăng ký"],
    ["NGHỊ ĐỊNH", "Điều 58. Tổ chức thực hiện"],
    ["AMOXICILIN"],
    ["AMOXICILIN", "Liều lượng và cách dùng"],
    ["GENTAMICIN", "Chống chỉ định"],
]
ENTRIES = ["BỘ LUẬT DÂN SỰ"] * 3 + ["NGHỊ ĐỊNH"] * 2 + ["AMOXICILIN"] * 2 + ["GENTAMICIN"]
SECTIONS = ["Điều 117", "Điều 319", "Điều 319", "Điều 5", "Điều 58", "Chỉ định", "Liều lượng và cách dùng", "Chống chỉ định"]
NAMES = {
    "blds": DocumentNames.from_identity("blds", {"title": "Bộ luật Dân sự", "number": "91/2015/QH13", "kind": "bộ luật", "aliases": ["Bộ luật Dân sự 2015", "BLDS"]}),
    "nd99": DocumentNames.from_identity("nd99", {"title": "Nghị định về đăng ký biện pháp bảo đảm", "number": "99/2022/NĐ-CP", "kind": "nghị định"}),
    "thuoc": DocumentNames.from_identity("thuoc", None, fallback="duoc_thu.pdf"),
}
TEXTS = ["1. Chủ thể có năng lực", "1. Thế chấp có hiệu lực từ khi giao kết.", "2. Thế chấp phát sinh hiệu lực đối kháng", "", "", "", "", ""]
STRUCTURE = Structure.build(DOCS, HEADINGS, ENTRIES, SECTIONS)
BASE = [3, 0, 4, 2, 1, 5, 6, 7]  # what the base ranking says, best first


def _resolve(query):
    return resolve(STRUCTURE, NAMES, query, BASE, TEXTS.__getitem__)


def test_the_cited_article_of_the_named_document_comes_first():
    found = _resolve("Điều 319 Bộ luật Dân sự 2015 quy định gì")
    assert found.status == "found" and found.positions == (2, 1) and found.label == "Bộ luật Dân sự 2015, Điều 319"
    assert _resolve("dieu 5 nghi dinh 99/2022").positions == (3,)
    assert _resolve("khoản 1 điều 319 BLDS").positions == (1, 2)  # the clause asked for first


def test_a_unit_that_does_not_exist_is_said_not_to():
    missing = _resolve("Điều 900 Bộ luật Dân sự quy định gì")
    assert missing.status == "missing" and not missing.positions
    assert "Bộ luật Dân sự 2015 has no Điều 900 (its articles run from 117 to 319)" in missing.message
    assert _resolve("Điều 117 Nghị định 99/2022").status == "missing"  # Điều 117 exists, but not in the decree named
    assert _resolve("dieu 4000").status == "missing"


def test_a_unit_of_a_document_not_in_the_index_is_not_another_documents_unit():
    # Điều 5 exists in Nghị định 99/2022; Nghị định 19/2020 is not indexed: its Điều 5 is not that one
    for query in ("điều 5 nghị định 19/2020", "Điều 5 NĐ 19/2020/NĐ-CP", "dieu 5 19/2020/nd-cp", "khoản 1 điều 5 nghị định số 19"):
        missing = _resolve(query)
        assert missing.status == "missing" and not missing.positions, query
        assert missing.message.startswith("No indexed document has the number 19"), query
        assert "is not in the index; nothing from another document is shown in its place." in missing.message
    assert _resolve("điều 5 nghị định 19/2020").label == "Nghị định 19/2020, Điều 5"
    assert _resolve("điều 5 nghị định 19/2020").unindexed == ("Nghị định 19/2020",)
    # the indexed decree still resolves, by its full or its short number, and a month is no document
    assert _resolve("điều 5 nghị định 99/2022").positions == (3,)
    assert _resolve("điều 5 nghị định 99").positions == (3,)
    assert _resolve("Điều 5 hết hạn tháng 12/2020").status == "found"
    # a query that cites no unit keeps its ranking, and says which document it cannot search
    plain = _resolve("nghị định 19/2020 quy định gì về đăng ký")
    assert plain.status == "" and plain.unindexed == ("Nghị định 19/2020",)


def test_a_cited_number_the_index_does_not_know_may_be_a_document_that_prints_none():
    # a scan whose number was not read (identity blank, file name "06-bct.signed.pdf") holds Điều 5: it may be the
    # circular cited, so its Điều 5 is found; a decree known by another number is never it
    names = {**NAMES, "scan": DocumentNames.from_identity("scan", None, fallback="06-bct.signed.pdf")}
    structure = Structure.build([*DOCS, "scan"], [*HEADINGS, ["Điều 5. Hiệu lực thi hành"]], [*ENTRIES, ""], [*SECTIONS, "Điều 5"])
    found = resolve(structure, names, "dieu 5 thong tu 06/2024/tt-bct hieu luc den khi nao", BASE + [8])
    assert found.status == "found" and found.positions == (8,) and found.label == "06-bct.signed.pdf, Điều 5"
    assert resolve(structure, names, "điều 58 thông tư 06/2024", BASE + [8]).message.startswith("No indexed document has the number 6/2024")


def test_a_drug_the_formulary_has_no_monograph_for_is_said_to_be_missing():
    names = {**NAMES, "thuoc": DocumentNames.from_identity("thuoc", {"title": "Dược thư", "kind": "formulary"})}
    vocabulary = {"amoxicilin", "gentamicin", "chong", "chi", "dinh", "cua", "lieu", "dung"}

    def ask(query, names=names):
        return resolve(STRUCTURE, names, query, BASE, TEXTS.__getitem__, known=vocabulary.__contains__)

    missing = ask("chống chỉ định của ceftriaxon")
    assert missing.status == "missing" and not missing.positions and missing.label == "CEFTRIAXON, Chống chỉ định"
    assert missing.message == "No indexed document has a monograph named 'ceftriaxon', so its 'Chống chỉ định' cannot be shown; nothing else is shown in its place."
    assert missing.unindexed == ("ceftriaxon",)
    said = format_hits([], citation=missing.cited())
    assert said.startswith("CEFTRIAXON, Chống chỉ định: not in the index. No indexed document has a monograph named 'ceftriaxon'")
    assert ask("liều dùng ceftriaxon cho người suy thận").status == "missing"  # the section named by its words
    assert ask("chống chỉ định của gentamycin").status == ""  # one letter from GENTAMICIN: mistyped, not missing
    assert ask("chống chỉ định của thuốc ho").status == ""  # no word longer than a syllable
    assert ask("ceftriaxon dùng thế nào").status == ""  # no section named
    assert ask("chống chỉ định của ceftriaxon", NAMES).status == ""  # not a formulary's section (the violation: no kind)
    assert resolve(STRUCTURE, names, "chống chỉ định của ceftriaxon", BASE).status == ""  # nothing says which words the index holds


def test_chunks_of_a_document_with_articles_outside_them_are_known():
    built = Structure.build(["nd", "nd", "nd", "thuoc"], [["NGHỊ ĐỊNH"], ["NGHỊ ĐỊNH", "Điều 1. Phạm vi"], ["PHỤ LỤC", "Mẫu số 01a"], ["AMOXICILIN"]],
                            ["NGHỊ ĐỊNH", "NGHỊ ĐỊNH", "PHỤ LỤC", "AMOXICILIN"], ["", "Điều 1", "Mẫu số 01a", "Chỉ định"])
    assert [built.outside_articles(p) for p in range(4)] == [True, False, True, False]  # a monograph has no articles to be outside of


def test_a_monograph_and_a_section_are_found_by_their_words():
    found = _resolve("liều dùng amoxicilin suy thận")
    assert found.status == "found" and found.positions == (6,) and found.label == "AMOXICILIN, Liều lượng và cách dùng"
    assert _resolve("thế chấp có hiệu lực khi nào").status == ""
    assert _resolve("amoxicilin chi dinh").positions == (5,)
    missing = _resolve("Chống chỉ định của amoxicilin")  # GENTAMICIN has that section; AMOXICILIN has not
    assert missing.status == "missing" and "AMOXICILIN has no section 'Chống chỉ định'" in missing.message


def test_a_section_asked_in_everyday_words_is_found_or_said_missing():
    headings = [["AMIKACIN", "Thời kỳ mang thai"], ["AMIKACIN", "Liều lượng và cách dùng"], ["VANCOMYCIN", "Dược động học"], ["VANCOMYCIN", "Liều lượng và cách dùng"]]
    built = Structure.build(["thuoc"] * 4, headings, [h[0] for h in headings], [h[1] for h in headings])
    names = {"thuoc": DocumentNames.from_identity("thuoc", {"title": "Dược thư", "kind": "formulary"})}
    base = [3, 2, 1, 0]

    def ask(query):
        return resolve(built, names, query, base, known={"amikacin", "vancomycin"}.__contains__)

    for query in ("Phụ nữ có thai dùng vancomycin được không?", "phu nu co thai dung vancomycin duoc khong", "vancomycin cho ba bau"):
        missing = ask(query)  # the violation: the monograph lacks the section the words ask for
        assert missing.status == "missing" and not missing.positions, query
        assert missing.label == "VANCOMYCIN, Thời kỳ mang thai"
        assert missing.message == ("VANCOMYCIN has no section 'Thời kỳ mang thai'; nothing else is shown in its place."
                                   " Its sections: Dược động học; Liều lượng và cách dùng.")  # where else to look
        assert missing.cited()["status"] == "missing"  # the JSON's citation
        assert format_hits([], citation=missing.cited()).startswith("VANCOMYCIN, Thời kỳ mang thai: no such unit. VANCOMYCIN has no section")
    for query in ("Phụ nữ có thai dùng amikacin được không?", "phu nu mang bau dung amikacin duoc khong"):
        found = ask(query)  # the monograph has it: that section first, whatever the base ranking says
        assert found.status == "found" and found.positions == (0,), query
    assert ask("vancomycin có thải trừ qua thận không").status == "found"  # thải trừ: its Dược động học, not pregnancy
    assert ask("vancomycin tồn tại trong người bao lâu").status == "entry"  # no section asked for: never refused
    assert ask("chỉnh liều vancomycin cho người suy thận").positions == (3,)
    unknown = ask("lieu ciprofloxacin cho nguoi suy than")  # a drug not in the formulary, typed without accents
    assert unknown.status == "missing" and unknown.label == "CIPROFLOXACIN, Liều lượng và cách dùng"
    assert ask("liều ciprofloxacin cho người suy thận").status == "missing"
    assert ask("ciprofloxacin có tốt không").status == ""  # no section asked for: not refused


def test_common_words_typed_without_accents_do_not_name_a_section():
    headings = [["AMPICILIN", "Dược lý và cơ chế tác dụng"], ["AMPICILIN", "Chống chỉ định"], ["AMPICILIN", "Thời kỳ cho con bú"]]
    built = Structure.build(["thuoc"] * 3, headings, [h[0] for h in headings], [h[1] for h in headings])
    # the violation: có, dùng, được folded are cơ, dụng, dược of "Dược lý và cơ chế tác dụng", one by one
    assert resolve(built, NAMES, "ampicilin co dung duoc cho nguoi di ung khong", [1, 0, 2]).status == "entry"
    assert resolve(built, NAMES, "ampicilin co dung duoc cho phu nu dang cho con bu khong", [0, 1, 2]).positions == (2,)
    assert resolve(built, NAMES, "ampicilin co che tac dung", [1, 2, 0]).positions == (0,)  # its own words side by side


def test_a_hit_names_its_unit():
    assert unit_label(HEADINGS[1], "Điều 319. Hiệu lực", "BỘ LUẬT DÂN SỰ") == "Điều 319"
    assert unit_label(["AMOXICILIN", "Liều lượng và cách dùng"], "Liều lượng và cách dùng", "AMOXICILIN") == "AMOXICILIN, Liều lượng và cách dùng"
    assert unit_label(["BỘ LUẬT DÂN SỰ"], "BỘ LUẬT DÂN SỰ", "BỘ LUẬT DÂN SỰ") == ""


PRECEDENT_DOCS = ["al43"] * 5
PRECEDENT_SECTIONS = ["NỘI DUNG VỤ ÁN:", "NHẬN ĐỊNH CỦA TÒA ÁN:", "NHẬN ĐỊNH CỦA TÒA ÁN:", "NHẬN ĐỊNH CỦA TÒA ÁN:", "QUYẾT ĐỊNH:"]
PRECEDENT_TEXTS = ["Ngân hàng cho vay [1] tiền", "NHẬN ĐỊNH:\n[1] Về số tiền nợ gốc", "còn nợ.\n“[2] Về xử lý tài sản", "nên bà L có quyền", "Căn cứ Điều 337"]
PRECEDENT = Structure.build(PRECEDENT_DOCS, [["ÁN LỆ", s] for s in PRECEDENT_SECTIONS], ["ÁN LỆ"] * 5, PRECEDENT_SECTIONS, PRECEDENT_TEXTS)
PRECEDENT_NAMES = {"al43": DocumentNames.from_identity("al43", {"title": "Án lệ số 43/2021/AL", "number": "43/2021/AL", "kind": "án lệ"})}


def test_a_precedents_numbered_paragraphs_are_units():
    assert PRECEDENT.paragraphs["al43"] == {1: [1, 2], 2: [2, 3]}  # "[1]" inside a line is not a mark; a paragraph ends with its section
    assert PRECEDENT.unit_of(3) == PRECEDENT.unit_of(2) != PRECEDENT.unit_of(1)
    found = resolve(PRECEDENT, PRECEDENT_NAMES, "đoạn [2] án lệ 43/2021/AL", [3, 0, 1, 2, 4])
    assert found.status == "found" and found.positions == (3, 2) and found.label == "Án lệ 43/2021/AL, Đoạn [2]"
    missing = resolve(PRECEDENT, PRECEDENT_NAMES, "đoạn [7] án lệ 43/2021/AL", [0, 1, 2, 3, 4])
    assert missing.status == "missing" and not missing.positions and "No Đoạn [7] was found in" in missing.message


def test_chunks_of_one_article_are_one_unit():
    assert STRUCTURE.unit_of(1) == STRUCTURE.unit_of(2) == ("blds", 319, "", 0) != STRUCTURE.unit_of(0)


def test_an_article_amending_another_document_is_known():
    built = Structure.build(
        ["nd50"] * 3,
        [["NGHỊ ĐỊNH", "Điều 11. Miễn tiền thuê đất"], ["NGHỊ ĐỊNH", "Điều 13. Sửa đổi, bổ sung một số điều của Nghị định số 103/2024/NĐ-CP"], ["NGHỊ ĐỊNH", "Dieu 14 sua doi bo sung Nghi dinh 102"]],
        ["", "", ""],
        ["", "", ""],
    )
    assert built.amending == {1, 2}
    assert built.article_of == [11, 13, 14]
