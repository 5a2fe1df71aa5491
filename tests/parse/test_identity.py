"""Issue 40 item 3: a document's identity read from its own first page or
properties, never guessed — on built headers and on the corpus's laws."""

from __future__ import annotations

import pytest

from duocthu_assets.formats import detect_format
from duocthu_assets.model import DocumentIdentity
from duocthu_assets.parse.identity import (
    aliases_for,
    identity_from_record,
    read_identity,
)
from duocthu_assets.parse.preview import read_preview
from duocthu_assets.settings import Settings
from tests.support.legal_docs import DECREE, PRECEDENT
from tests.support.paths import corpus_path


def test_a_decree_header_gives_number_kind_issuer_date_and_title():
    identity = read_identity(DECREE)
    assert identity.number == "21/2021/NĐ-CP"
    assert identity.kind == "nghị định"
    assert identity.issuer == "CHÍNH PHỦ"
    assert identity.issued == "2021-03-19"
    assert identity.title == "Nghị định quy định thi hành Bộ luật Dân sự về bảo đảm thực hiện nghĩa vụ"
    assert {"Nghị định 21/2021/NĐ-CP", "Nghị định số 21/2021/NĐ-CP", "NĐ 21/2021", "21/2021/NĐ-CP"} <= set(identity.aliases)
    assert "number: Số: 21/2021/NĐ-CP" in identity.evidence


def test_a_code_gets_its_name_year_and_initials():
    identity = read_identity(["QUỐC HỘI--------", "Luật số: 91/2015/QH13",
                              "CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM\nĐộc lập - Tự do - Hạnh phúc", "BỘ LUẬT", "DÂN SỰ",
                              "Căn cứ Hiến pháp nước Cộng hòa xã hội chủ nghĩa Việt Nam;"])
    assert (identity.kind, identity.number, identity.issuer, identity.title) == ("bộ luật", "91/2015/QH13", "QUỐC HỘI", "Bộ luật Dân sự")
    assert identity.issued == ""  # the code prints its date at its end, not on its first page
    assert {"Bộ luật Dân sự 2015", "BLDS", "BLDS 2015", "Bộ luật Dân sự"} <= set(identity.aliases)


def test_a_precedent_gives_its_number_adopting_body_and_date():
    identity = read_identity(PRECEDENT)
    assert (identity.kind, identity.number) == ("án lệ", "43/2021/AL")
    assert identity.issuer == "Hội đồng Thẩm phán Tòa án nhân dân tối cao"
    assert identity.issued == "2021-02-24"
    assert identity.title == "Án lệ số 43/2021/AL về hiệu lực của hợp đồng thế chấp"
    assert {"Án lệ số 43", "Án lệ 43/2021/AL", "AL 43/2021"} <= set(identity.aliases)


def test_a_footnote_mark_after_the_precedent_number_is_not_part_of_it():
    assert read_identity(["ÁN LỆ SỐ 43/2021/AL1"]).number == "43/2021/AL"


def test_nothing_is_guessed():
    """A draft's blank number stays blank; a date cited in the preamble is not
    the document's date; a text with no header has no identity."""
    draft = ["CHÍNH PHỦ", "Số:      /2026/NĐ-CP", "CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM", "Hà Nội, ngày      tháng      năm",
             "NGHỊ ĐỊNH", "Quy định chi tiết một số điều", "Căn cứ Luật Đất đai ngày 29 tháng 11 năm 2013;"]
    identity = read_identity(draft)
    assert (identity.number, identity.issued, identity.kind) == ("", "", "nghị định")
    assert not any("/" in a for a in identity.aliases)
    assert read_identity(["Staff handbook", "Welcome to the company."]) == DocumentIdentity()


def test_the_title_property_is_the_last_resort_and_junk_is_refused():
    assert read_identity(["Welcome."], {"title": "Quy chế nội bộ"}).title == "Quy chế nội bộ"
    for junk in ("2022-09-06 (1)", "Microsoft Word - x.doc", "Document1", "abc"):
        assert read_identity(["Welcome."], {"title": junk}).title == ""
    # a Word file titled by its issuer names no document
    assert read_identity(["QUỐC HỘI", "Luật số: 91/2015/QH13"], {"title": "QUỐC HỘI"}).title == ""


def test_formulary_and_contract_kinds():
    assert read_identity(["DƯỢC THƯ QUỐC GIA VIỆT NAM", "Bản mẫu"]).kind == "formulary"
    assert read_identity(["قرارداد ارائه خدمات", "ماده ۱"]).kind == "contract"
    contract = read_identity(["HỢP ĐỒNG MUA BÁN THUỐC", "Căn cứ Bộ luật Dân sự;"])
    assert (contract.kind, contract.title) == ("contract", "Hợp đồng mua bán thuốc")


def test_aliases_come_from_the_fields_only_and_the_record_round_trips():
    identity = DocumentIdentity(title="Luật Đất đai", number="31/2024/QH15", kind="luật")
    assert aliases_for(identity)[:3] == ("Luật Đất đai", "Luật Đất đai 2024", "Luật Đất đai năm 2024")
    assert "BLDS" not in aliases_for(identity)
    full = read_identity(DECREE)
    assert identity_from_record(full.as_record()) == full
    assert identity_from_record(None) == DocumentIdentity()


@pytest.mark.parametrize(
    ("name", "kind", "number", "issued", "title_start", "alias"),
    [
        ("vn__bo_luat_dan_su_91-2015-QH13.docx", "bộ luật", "91/2015/QH13", "", "Bộ luật Dân sự", "BLDS"),
        ("vn__nghi_dinh_99-2022-ND-CP.docx", "nghị định", "99/2022/NĐ-CP", "2022-11-30",
         "Nghị định về đăng ký biện pháp bảo đảm", "NĐ 99/2022"),
        ("vn__nghi_dinh_19-2019-ND-CP.docx", "nghị định", "19/2019/NĐ-CP", "2019-02-19", "Nghị định về họ, hụi", "NĐ 19/2019"),
        ("diepxuan__49-2026-ND-CP.pdf", "nghị định", "49/2026/NĐ-CP", "2026-01-31", "Nghị định quy định chi tiết",
         "Nghị định 49/2026/NĐ-CP"),
        ("diepxuan__50-2026-ND-CP.pdf", "nghị định", "", "", "Nghị định quy định chi tiết", "Nghị định quy định chi tiết"),
        ("vn__an_le_so_43-2021-AL.pdf", "án lệ", "43/2021/AL", "2021-02-24", "Án lệ số 43/2021/AL về hiệu lực", "Án lệ số 43"),
    ],
)
def test_corpus_laws_know_who_they_are(name, kind, number, issued, title_start, alias):
    data = corpus_path(name).read_bytes()
    preview = read_preview(data, detect_format(data), Settings())
    identity = read_identity(preview.lines, preview.properties)
    assert (identity.kind, identity.number, identity.issued) == (kind, number, issued)
    assert identity.title.startswith(title_start)
    assert any(a.startswith(alias) for a in identity.aliases)


def test_a_scan_whose_title_property_is_a_date_has_no_identity():
    data = corpus_path("vnlaw__59-nd.signed.pdf").read_bytes()
    preview = read_preview(data, detect_format(data), Settings())
    assert read_identity(preview.lines, preview.properties).title == ""
