"""Question gold scored (issue 40 item 7): a hit answers a unit by its
document and article, a precedent's unit by its label or passage, a
formulary section by monograph and section; multi needs every unit; a
missing unit is answered only by saying so; the other split is not read."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from duocthu_assets.evaluation.questions import Question, first_rank, load_questions, summarize

BLDS = "vn__bo_luat_dan_su_91-2015-QH13.docx"
ND19 = "vn__nghi_dinh_19-2019-ND-CP.docx"


def _hit(doc, unit="", text="", entry="", section="", headings=()):
    return SimpleNamespace(doc_id=doc.lower() + "-0a1b2c3d", unit=unit, text=text, entry_title=entry, section_title=section, headings=headings)


def _q(kind, answers, passage=""):
    return Question("q", "?", kind, tuple(answers), passage, "dev")


def test_an_article_is_found_by_document_and_unit():
    q = _q("accented", [(BLDS, "Điều 319")])
    hits = [_hit(ND19, "Điều 319"), _hit(BLDS, "Điều 31"), _hit(BLDS, "Điều 319")]
    assert first_rank(q, hits, False) == 3
    assert first_rank(q, hits[:2], False) is None


def test_a_doc_id_that_is_its_file_name_is_that_document():
    # a file whose name is already a key keeps it as its doc_id, with no digest
    scan = "vnlaw__06-bct.signed.pdf"
    q = _q("accented", [(scan, "Điều 4")])
    hit = SimpleNamespace(doc_id=scan, unit="Điều 4", text="", entry_title="", section_title="", headings=())
    assert first_rank(q, [hit], False) == 1
    assert first_rank(_q("accented", [("vnlaw__06-other.pdf", "Điều 4")]), [hit], False) is None


def test_multi_needs_every_unit_and_a_missing_unit_only_being_said_missing():
    multi = _q("multi", [(BLDS, "Điều 468"), (ND19, "Điều 21")])
    assert first_rank(multi, [_hit(ND19, "Điều 21"), _hit(BLDS, "Điều 1"), _hit(BLDS, "Điều 468")], False) == 3
    assert first_rank(multi, [_hit(ND19, "Điều 21")], False) is None
    missing = _q("missing_unit", [])
    assert first_rank(missing, [], True) == 1
    assert first_rank(missing, [_hit(BLDS, "Điều 689")], False) is None
    assert first_rank(_q("citation", [(BLDS, "Điều 5")]), [], True) is None  # said missing when it exists: wrong


def test_a_precedent_unit_and_a_formulary_section():
    precedent = "vn__an_le_so_43-2021-AL.pdf"
    assert first_rank(_q("citation", [(precedent, "Đoạn [2]")]), [_hit(precedent, text="[2] Xét thấy…")], False) == 1
    assert first_rank(_q("citation", [(precedent, "Nội dung án lệ")]), [_hit(precedent, text="Nội dung án lệ: …")], False) == 1
    section = _q("accented", [("duoc_thu_mau.pdf", "GENTAMICIN / Liều lượng và cách dùng")])
    right = _hit("duoc_thu_mau.pdf", entry="GENTAMICIN", section="Liều lượng và cách dùng")
    wrong = _hit("duoc_thu_mau.pdf", entry="AMIKACIN", section="Liều lượng và cách dùng")
    assert first_rank(section, [wrong, right], False) == 2


def test_summary_and_split(tmp_path):
    assert summarize([1, 3, None, 12]) == {"n": 4, "hit@1": 0.25, "hit@5": 0.5, "hit@10": 0.5, "mrr": round((1 + 1 / 3 + 1 / 12) / 4, 3)}
    rows = [
        {"id": "a", "query": "x", "kind": "accented", "answers": [{"document": BLDS, "unit": "Điều 1"}], "passage": "p", "split": "dev"},
        {"id": "b", "query": "y", "kind": "accented", "answers": "not read", "split": "held_out"},
    ]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    assert [q.id for q in load_questions(tmp_path, "dev")] == ["a"]  # the held-out record is not even parsed
    with pytest.raises(ValueError, match="not a question record"):
        load_questions(tmp_path, "held_out")
    with pytest.raises(ValueError, match="unknown split"):
        load_questions(tmp_path, "test")
