"""The search index and ADR 0006's answer obligations, over a tiny warehouse
of hand-made chunks embedded with the real default model."""

from __future__ import annotations

import hashlib
import json

import pytest

from duocthu_assets.retrieval import (
    WITHHELD,
    Hit,
    Searcher,
    SearchError,
    format_hits,
    index_is_current,
    read_index_info,
    read_index_rows,
    refresh_search_index,
    render_answer,
    search,
    withhold_numbers,
)
from duocthu_assets.schemas import table_from_rows
from duocthu_assets.warehouse import Warehouse

from tests.support.search_samples import CROP, DESCRIPTOR_TEXT, DOSING, DRUG, FORMULARY, run_search_cli

# -- the index --------------------------------------------------------------------------


def test_index_covers_the_given_documents_in_order(warehouse, embedder):
    table = read_index_rows(warehouse)
    assert table.num_rows == 5
    assert table.column("chunk_id").to_pylist()[:2] == ["duocthu-mini:chi_dinh:0", "duocthu-mini:lieu_luong_va_cach_dung:1"]
    info = read_index_info(warehouse)
    assert info.model_id == embedder.model_id and info.dim == 384 and info.rows == 5
    assert info.documents == ("duocthu-mini", "persian-memo") and info.excluded == {}
    assert index_is_current(warehouse, ["duocthu-mini", "persian-memo"])
    assert not index_is_current(warehouse, ["duocthu-mini"])  # the set of documents changed


def test_only_the_documents_the_caller_names_are_indexed(warehouse, embedder):
    refresh_search_index(warehouse, ["persian-memo"], model_id=embedder.model_id)
    assert set(read_index_rows(warehouse).column("doc_id").to_pylist()) == {"persian-memo"}


def test_stale_embeddings_are_excluded_and_reported(warehouse, embedder):
    changed = [dict(r) for r in FORMULARY]
    changed[0]["text"] = changed[0]["text"] + " (sửa đổi)"
    changed[0]["content_hash"] = hashlib.sha256(changed[0]["text"].encode()).hexdigest()
    warehouse.write_table("chunks", table_from_rows("chunks", changed), "duocthu-mini")  # re-chunked, not re-embedded
    assert not index_is_current(warehouse, ["duocthu-mini", "persian-memo"])
    info = refresh_search_index(warehouse, ["duocthu-mini", "persian-memo", "never-embedded"], model_id=embedder.model_id).info
    assert "stale embeddings" in info.excluded["duocthu-mini"]
    assert info.excluded["never-embedded"] == "no chunks file"
    assert set(read_index_rows(warehouse).column("doc_id").to_pylist()) == {"persian-memo"}
    assert read_index_info(warehouse).excluded == info.excluded  # the manifest names them
    warehouse.remove("embeddings", "persian-memo")
    info = refresh_search_index(warehouse, ["persian-memo"]).info
    assert info.excluded == {"persian-memo": "no embeddings file"}


def test_a_document_embedded_with_another_model_is_excluded(warehouse, embedder):
    emb = warehouse.read_table("embeddings", "persian-memo")
    import pyarrow as pa

    emb = emb.set_column(emb.schema.get_field_index("model_id"), "model_id", pa.array(["other/model@1"] * emb.num_rows))
    warehouse.write_table("embeddings", emb, "persian-memo")
    info = refresh_search_index(warehouse, ["duocthu-mini", "persian-memo"], model_id=embedder.model_id).info
    assert "other/model@1" in info.excluded["persian-memo"]


# -- search -------------------------------------------------------------------------------


def test_search_ranks_with_entry_section_and_printed_page(warehouse, embedder):
    hits = search(warehouse, "liều ampicilin sulbactam cho người suy thận", k=3, embedder=embedder)
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].score >= hits[1].score >= hits[2].score
    top = hits[0]
    assert top.entry_title == DRUG and top.section_title == DOSING and top.printed_pages == (204,)
    assert top.chunk_id.startswith("duocthu-mini:lieu_luong_va_cach_dung")
    assert search(warehouse, "مدت قرارداد اجاره", k=1, embedder=embedder)[0].doc_id == "persian-memo"
    assert search(warehouse, "liều ampicilin sulbactam cho người suy thận", k=3, embedder=embedder) == hits  # reproducible


def test_search_refuses_an_index_built_with_another_model(warehouse, embedder):
    class Other:
        model_id = "openai-http/bge-m3@127.0.0.1:11434"
        dim = 1024

    with pytest.raises(SearchError, match="built with"):
        search(warehouse, "liều", k=1, embedder=Other())
    with pytest.raises(SearchError, match="no search index"):
        search(Warehouse(warehouse.root / "elsewhere"), "liều", k=1, embedder=embedder)


def test_empty_index_answers_nothing(tmp_path, embedder):
    wh = Warehouse(tmp_path)
    refresh_search_index(wh, [])
    assert search(wh, "liều", k=3, embedder=embedder) == []


def _hit(warehouse, embedder, chunk_id):
    hits = search(warehouse, "liều lượng ampicilin sulbactam bảng suy thận", k=5, embedder=embedder)
    return next(h for h in hits if h.chunk_id == chunk_id)


# -- ADR 0006, the answer layer's obligations -------------------------------------------


def test_obligation_1_quarantined_content_names_the_page_and_crop_and_is_incomplete(warehouse, embedder):
    hit = _hit(warehouse, embedder, "duocthu-mini:lieu_luong_va_cach_dung:1")
    assert hit.has_quarantined_content
    answer = render_answer(hit)
    assert answer.mode == "text_incomplete" and answer.complete is False
    crop_file = str(warehouse.path(CROP))
    assert [(c.path, c.printed_page, c.exists) for c in answer.crops] == [(crop_file, 204, True)]
    notice = " ".join(answer.notices)
    assert "table exists at printed page 204" in notice and crop_file in notice
    human = format_hits([answer])
    assert "[incomplete]" in human and "trang in 204" in human and crop_file in human


def test_obligation_1_holds_when_the_crop_is_missing_or_the_flag_alone_is_set(warehouse, embedder):
    hit = _hit(warehouse, embedder, "duocthu-mini:lieu_luong_va_cach_dung:1")
    warehouse.path(CROP).unlink()
    answer = render_answer(_hit(warehouse, embedder, hit.chunk_id))
    assert answer.complete is False and "file is missing" in " ".join(answer.notices)
    flagged_only = Hit(**{**hit.__dict__, "attachments": ()})
    answer = render_answer(flagged_only)
    assert answer.complete is False and "names none" in " ".join(answer.notices)
    assert WITHHELD in answer.text
    # an attachment that says quarantined counts even if the flag was lost
    lost_flag = Hit(**{**hit.__dict__, "has_quarantined_content": False})
    assert render_answer(lost_flag).complete is False


def test_obligation_2_a_block_descriptor_is_answered_with_the_crop_only(warehouse, embedder):
    hit = _hit(warehouse, embedder, "duocthu-mini:lieu_luong_va_cach_dung:block:b0001")
    answer = render_answer(hit)
    assert answer.mode == "crop_only" and answer.text is None and answer.complete is False
    assert [(c.path, c.printed_page) for c in answer.crops] == [(str(warehouse.path(CROP)), 204)]
    assert not hasattr(hit.attachments[0], "header_row")  # never carried, so never shown
    for output in (format_hits([answer]), format_hits([answer], as_json=True), json.dumps(answer.as_dict(), ensure_ascii=False)):
        assert "Clcr (ml/phút)" not in output and "72 x creatinin" not in output  # the embargoed header row
        assert DESCRIPTOR_TEXT not in output  # not restated as text
        assert str(warehouse.path(CROP)) in output


def test_obligation_3_no_number_from_a_chunk_with_a_quarantined_attachment(warehouse, embedder):
    hit = _hit(warehouse, embedder, "duocthu-mini:lieu_luong_va_cach_dung:1")
    answer = render_answer(hit)
    for dose in ("1,5 g", "3 g", "30 ml/phút", "150 mg/kg", "6 giờ", "4 lần"):
        assert dose not in answer.text
    assert not any(ch.isdigit() for ch in answer.text)
    assert answer.withheld_numbers == 6
    assert "Người lớn: tiêm tĩnh mạch […] g đến […] g" in answer.text
    assert any("withheld" in n and "crop" in n for n in answer.notices)
    out = json.loads(format_hits([answer], as_json=True, query="liều"))
    assert out["hits"][0]["withheld_numbers"] == 6 and not any(ch.isdigit() for ch in out["hits"][0]["text"])


def test_an_ordinary_chunk_is_answered_in_full(warehouse, embedder):
    hits = search(warehouse, "paracetamol liều tối đa mỗi ngày", k=1, embedder=embedder)
    answer = render_answer(hits[0])
    assert answer.mode == "text" and answer.complete and "500 mg" in answer.text and "4 g" in answer.text


def test_withhold_numbers_catches_dose_forms_and_keeps_identifiers():
    text, n = withhold_numbers("Mã ATC J01CR01; vitamin B12; 0,5 mg/kg x2 lần/ngày; 10⁶ UI; ½ viên; ۲۰ میلی‌گرم; 1.5-3 g")
    assert "J01CR01" in text and "B12" in text
    for gone in ("0,5", "x2", "10⁶", "½", "۲۰", "1.5", "-3"):
        assert gone not in text
    assert n == 7


# -- the CLI -------------------------------------------------------------------------------


def test_cli_json_and_text(warehouse, embedder, capsys):
    code, out, _ = run_search_cli(["search", "liều ampicilin sulbactam suy thận", "-k", "2", "--warehouse", str(warehouse.root), "--json"], embedder, capsys)
    assert code == 0
    payload = json.loads(out)
    assert payload["schema"] == "duocthu.search/2" and len(payload["hits"]) == 2
    assert set(payload) == {"schema", "query", "hits", "notes", "citation"}
    assert set(payload["hits"][0]) == {
        "rank", "score", "doc_id", "chunk_id", "chunk_kind", "entry_title", "section_title", "headings",
        "printed_pages", "physical_pages", "mode", "complete", "text", "withheld_numbers", "crops", "notices",
        "document", "document_number", "unit", "cite", "text_source",
    }  # duocthu.search/1's keys, and /2's four (issue 40: a hit names its document and unit)
    assert payload["hits"][0]["cite"].endswith(DOSING) and payload["hits"][0]["unit"] == f"{DRUG}, {DOSING}"
    code, out, _ = run_search_cli(["search", "liều ampicilin sulbactam suy thận", "--warehouse", str(warehouse.root)], embedder, capsys)
    assert code == 0 and "1. " in out and f", {DOSING} — trang in 204" in out


def test_cli_reports_a_missing_index_and_unsearchable_documents(tmp_path, warehouse, embedder, capsys, monkeypatch):
    code, out, err = run_search_cli(["search", "liều", "--warehouse", str(tmp_path / "none")], embedder, capsys)
    assert code == 1 and "no search index" in err
    refresh_search_index(warehouse, ["duocthu-mini", "persian-memo", "ghost"], model_id=embedder.model_id)
    monkeypatch.setenv("DUOCTHU_WAREHOUSE", str(warehouse.root))
    code, out, _ = run_search_cli(["search", "liều", "-k", "1"], embedder, capsys)
    assert code == 0 and "1 document(s) are not searchable: ghost: no chunks file" in out


# -- citations (issue 40) --------------------------------------------------------------------


def test_a_cited_unit_that_does_not_exist_is_said_not_to_with_nothing_in_its_place(warehouse, embedder, capsys):
    searcher = Searcher(warehouse, embedder)
    answers, notes, resolution = searcher.resolved("Điều 900 quy định gì", 5)
    assert answers == [] and resolution.status == "missing"
    assert any("Điều 900, which does not exist" in n for n in notes)
    payload = searcher.payload("dieu 900 quy dinh gi", 5)
    assert payload["hits"] == [] and payload["citation"]["status"] == "missing"
    code, out, _ = run_search_cli(["search", "dieu 900", "--warehouse", str(warehouse.root)], embedder, capsys)
    assert code == 0 and out.startswith("Điều 900: no such unit.")


def test_a_unit_of_a_document_not_in_the_index_is_said_to_be_so_in_json_and_text(warehouse, embedder, capsys):
    searcher = Searcher(warehouse, embedder)
    answers, notes, resolution = searcher.resolved("Điều 3 Nghị định 19/2020 quy định gì", 5)
    assert answers == [] and resolution.status == "missing" and resolution.unindexed == ("Nghị định 19/2020",)
    assert any(n.startswith("cited: Nghị định 19/2020, Điều 3, not in the index: No indexed document has the number 19/2020") for n in notes)
    payload = searcher.payload("dieu 3 nghi dinh 19/2020", 5)
    assert payload["hits"] == [] and payload["citation"]["status"] == "missing"
    assert payload["citation"]["message"].startswith("No indexed document has the number 19/2020: Nghị định 19/2020 is not in the index")
    code, out, _ = run_search_cli(["search", "điều 3 nghị định 19/2020", "--warehouse", str(warehouse.root)], embedder, capsys)
    assert code == 0 and out.startswith("Nghị định 19/2020, Điều 3: not in the index. No indexed document has the number 19/2020")
    _, notes, resolution = searcher.resolved("nghị định 19/2020 về liều ampicilin", 3)  # no unit cited: the ranking stands, with a note
    assert resolution.status == "" and any(n.startswith("Nghị định 19/2020: not in the index") for n in notes)


def test_a_monograph_and_its_section_come_first_in_every_mode(warehouse, embedder):
    searcher = Searcher(warehouse, embedder)
    for mode in ("hybrid", "dense", "lexical"):
        first = searcher.search("lieu dung ampicilin sulbactam", 3, mode=mode)[0]
        assert (first.entry_title, first.section_title) == (DRUG, DOSING), mode
        assert first.unit == f"{DRUG}, {DOSING}"


def test_duocthu_eval_scores_question_gold_on_one_split(warehouse, embedder, tmp_path, capsys):
    import argparse
    from pathlib import Path

    from duocthu_assets.cli_eval import add_eval_parser, run_eval

    folder = tmp_path / "qa"
    folder.mkdir()
    rows = [
        {"id": "a", "query": "chỉ định ampicilin sulbactam", "kind": "accented", "twin_of": None,
         "answers": [{"document": "duocthu", "monograph": DRUG, "section": "Chỉ định"}], "passage": None, "split": "dev"},
        {"id": "b", "query": "Điều 900 quy định gì", "kind": "missing_unit", "twin_of": None, "answers": [], "passage": None, "split": "dev"},
        {"id": "c", "query": "never read", "kind": "accented", "answers": "not a list", "split": "held_out"},
    ]
    (folder / "questions.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    parser = argparse.ArgumentParser(prog="duocthu")
    add_eval_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["eval", str(folder), "--warehouse", str(warehouse.root), "--fusion", "rrf:0.5"])
    assert run_eval(args, embedder=embedder) == 0
    assert "2 questions (dev)" in capsys.readouterr().out
    report = json.loads((Path(str(warehouse.root)) / "eval" / "qa" / "questions-dev.json").read_text())
    assert set(report["configs"]) == {"dense", "lexical", "hybrid/rrf:0.5"}
    for config in report["configs"].values():
        assert config["all"]["hit@1"] == 1.0 and config["ranks"] == {"a": 1, "b": 1}
