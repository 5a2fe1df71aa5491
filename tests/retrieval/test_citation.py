"""Citations parsed (issue 40 item 2): the unit a query cites, with or
without accents, and the documents it names by title, number or alias."""

from __future__ import annotations

import pytest

from duocthu_assets.retrieval.citation import DocumentNames, cited_documents, named_documents, parse_citation, unindexed_documents

BLDS = DocumentNames.from_identity(
    "blds", {"title": "Bộ luật Dân sự", "number": "91/2015/QH13", "kind": "bộ luật", "aliases": ["Bộ luật Dân sự 2015", "BLDS"]}
)
ND99 = DocumentNames.from_identity(
    "nd99", {"title": "Nghị định về đăng ký biện pháp bảo đảm", "number": "99/2022/NĐ-CP", "kind": "nghị định", "aliases": ["NĐ 99/2022"]}
)


@pytest.mark.parametrize(
    ("query", "label", "clause"),
    [
        ("Điều 319 Bộ luật Dân sự 2015 quy định gì?", "Điều 319", 0),
        ("khoản 2 điều 117 BLDS", "Điều 117", 2),
        ("dieu 117 bo luat dan su 2015 quy dinh gi", "Điều 117", 0),
        ("What does Article 5 say?", "Article 5", 0),
        ("ماده ۱۷ قرارداد", "ماده 17", 0),
        ("nội dung án lệ số 43/2021/AL", "Nội dung án lệ", 0),
    ],
)
def test_a_cited_unit_is_parsed(query, label, clause):
    citation = parse_citation(query)
    assert citation is not None and citation.label == label and citation.clause == clause


@pytest.mark.parametrize("query", ["Nghị định 99/2022/NĐ-CP quy định gì", "liều dùng amoxicilin suy thận", "thế chấp có hiệu lực khi nào"])
def test_no_unit_is_read_into_a_query_that_cites_none(query):
    assert parse_citation(query) is None


def test_a_document_is_named_by_title_number_or_alias_accents_optional():
    assert BLDS.display == "Bộ luật Dân sự 2015" and ND99.display == "Nghị định 99/2022/NĐ-CP"
    docs = [BLDS, ND99]
    assert named_documents("khoản 2 điều 117 BLDS", docs) == ["blds"]
    assert named_documents("the chap theo bo luat dan su", docs) == ["blds"]
    assert named_documents("dieu 5 nghi dinh 99/2022", docs) == ["nd99"]
    assert named_documents("Điều 10 Nghị định 99/2022/NĐ-CP và Bộ luật Dân sự", docs) == ["blds", "nd99"]
    assert named_documents("nghị định quy định gì", docs) == []  # a kind alone names no document


def test_a_document_that_prints_no_number_is_named_by_its_file_names_number():
    from duocthu_assets.retrieval.names import file_number

    assert file_number("diepxuan__50-2026-ND-CP.pdf") == "50/2026"
    assert file_number("vnlaw__59-nd.signed.pdf") == "" and file_number("duoc_thu_mau.pdf") == ""


@pytest.mark.parametrize(("query", "label"), [("đoạn [3] án lệ 43/2021/AL", "Đoạn [3]"), ("doan 2 an le so 43", "Đoạn [2]"), ("Đoạn [12] của án lệ", "Đoạn [12]")])
def test_a_precedents_paragraph_is_a_unit(query, label):
    citation = parse_citation(query)
    assert citation is not None and citation.key == ("paragraph", int(label.split("[")[1][:-1])) and citation.label == label


def test_a_stretch_of_road_is_not_a_paragraph():
    assert parse_citation("đoạn 3 của con đường thuộc quyền ai") is None  # no brackets, no án lệ


ND19 = DocumentNames.from_identity("nd19", {"title": "Nghị định về họ, hụi", "number": "19/2019/NĐ-CP", "kind": "nghị định"})
ND50 = DocumentNames("nd50", "Nghị định 50", ("Nghị định về tiền sử dụng đất", "50/2026"), "", "nghị định")  # number from its file name


def test_a_document_is_named_by_its_kind_and_short_number_when_no_other_shares_it():
    docs = [BLDS, ND99, ND19, ND50]
    assert named_documents("dieu 20 nghi dinh 19", docs) == ["nd19"]
    assert named_documents("Điều 5 NĐ 99 quy định gì", docs) == ["nd99"]
    assert named_documents("nghị định số 50 miễn tiền thuê đất", docs) == ["nd50"]
    assert named_documents("điều 3 nghị định 19/2020", docs) == []  # another decree: its number goes on
    twin = DocumentNames.from_identity("nd19b", {"title": "Nghị định khác", "number": "19/2021/NĐ-CP", "kind": "nghị định"})
    assert named_documents("dieu 20 nghi dinh 19", [*docs, twin]) == []  # two decrees numbered 19: neither is named


@pytest.mark.parametrize(
    ("query", "cited"),
    [
        ("điều 3 nghị định 19/2020", [("19/2020", "Nghị định 19/2020")]),
        ("Điều 3 NĐ số 19/2020/NĐ-CP", [("19/2020", "Nghị định 19/2020")]),
        ("dieu 3 19/2020/nd-cp", [("19/2020", "the document numbered 19/2020")]),
        ("khoản 2 điều 3 nghị định 25", [("25", "Nghị định 25")]),
        ("án lệ 43 đoạn [3]", [("43", "Án lệ 43")]),
        ("điều 3 hết hạn tháng 12/2020", []),  # a month, not a document
        ("điều 5 luật 2015", []),  # a year
        ("quyết định 30 ngày theo điều 3", []),  # a phrase
    ],
)
def test_documents_cited_by_number_are_read(query, cited):
    assert [(c.number, c.display) for c in cited_documents(query)] == cited


def test_a_document_cited_by_a_number_no_indexed_document_has_is_not_in_the_index():
    assert [c.display for c in unindexed_documents("điều 3 nghị định 19/2020", [BLDS, ND99])] == ["Nghị định 19/2020"]
    assert unindexed_documents("điều 3 nghị định 99/2022", [BLDS, ND99]) == []
    assert unindexed_documents("điều 3 nghị định 99", [BLDS, ND99]) == []  # the short number of an indexed decree
    assert [c.number for c in unindexed_documents("điều 3 nghị định 25", [BLDS, ND99])] == ["25"]
