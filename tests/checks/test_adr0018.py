"""ADR 0018's rules (checks/adr0018.py), each proven able to fail.

The unit tests feed each rule one violation and read its message. The
end-to-end test ingests one document per rule through Dagster, each broken
in exactly one way the rule exists for, and reads which blocking checks
failed for which document; a clean document beside them passes them all.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import dagster as dg
import pytest

from checks.adr0018 import (
    ADR0018_RULES,
    arabic_forms_in_persian_chunks,
    chunk_over_document_max_tokens,
    descriptor_not_from_block_metadata,
    digits_not_as_authored,
    docx_table_data_or_layout,
    expected_descriptor,
)
from checks.rules import DocumentRows
from duocthu_assets.chunking.descriptors import describe_block
from duocthu_assets.settings import Settings

from tests.support.chunk_samples import DOC_ID, FORMULARY, formulary_document, rows_of
from tests.support.docgen import make_docx
from tests.support.paths import REPO

RULE_NAMES = {rule.name for rule in ADR0018_RULES}


@pytest.fixture(scope="module")
def formulary_rows():
    doc = formulary_document()
    chunks = rows_of(doc.chunks(FORMULARY), "chunks")
    parsed = {"doc_id": DOC_ID, "status": "ok", "canonical_text": doc.canonical}
    return chunks, rows_of(doc.blocks, "lifted_blocks"), rows_of(doc.segments, "segments"), parsed


def _rows(stored, **changes) -> DocumentRows:
    chunks, blocks, segments, parsed = copy.deepcopy(stored)
    values = dict(doc_id=DOC_ID, parsed=parsed, segments=segments, blocks=blocks, chunks=chunks)
    values.update(changes)
    return DocumentRows(**values)


def test_the_real_chunker_output_passes_every_rule(formulary_rows):
    rows = _rows(formulary_rows, settings=Settings(language="vi"), raw={"format": "pdf", "normalization": "nfc"})
    for rule in ADR0018_RULES:
        assert rule.evaluate(rows).passed, rule.name


def test_token_cap_is_the_documents_own(formulary_rows):
    rows = _rows(formulary_rows)
    longest = max(rows.chunks, key=lambda c: c["token_count"])
    cap = longest["token_count"] - 1
    result = chunk_over_document_max_tokens(_rows(formulary_rows, settings=Settings(chunk_size=cap, chunk_overlap=0, max_chunk_tokens=cap)))
    assert not result.passed and longest["chunk_id"] in result.offending_ids
    assert f"max_chunk_tokens ({cap} cl100k tokens)" in result.message
    assert chunk_over_document_max_tokens(rows).passed  # defaults: 512


def test_arabic_forms_left_in_a_persian_chunk_fail(formulary_rows):
    rows = _rows(formulary_rows, raw={"normalization": "persian"})
    rows.chunks[0]["text"] += " كتاب"
    result = arabic_forms_in_persian_chunks(rows)
    assert not result.passed and result.offending_ids == (rows.chunks[0]["chunk_id"],)
    assert "ARABIC LETTER KAF (ك)" in result.message
    assert arabic_forms_in_persian_chunks(_rows(formulary_rows, raw={"normalization": "nfc"})).passed  # Arabic text stays Arabic elsewhere


def _csv_rows(source: str, canonical: str) -> DocumentRows:
    return DocumentRows("fa.csv", raw={"format": "csv", "normalization": "persian"}, parsed={"status": "ok", "canonical_text": canonical},
                        source=source.encode("utf-8"))


def test_digits_rewritten_by_normalization_fail():
    assert digits_not_as_authored(_csv_rows("مبلغ,۱۲۰۰\n", "مبلغ: ۱۲۰۰")).passed
    lost = digits_not_as_authored(_csv_rows("مبلغ,۱۲۰۰\n", "مبلغ: 1200"))
    assert not lost.passed and "the file's persian digits are gone" in lost.message
    invented = digits_not_as_authored(_csv_rows("مبلغ,١٢٠٠\n", "مبلغ: ۱۲۰۰"))
    assert not invented.passed and "persian digits the file does not have" in invented.message
    assert "arabic-indic digits are gone" in invented.message


def test_descriptor_rederived_in_the_documents_language(formulary_rows):
    rows = _rows(formulary_rows, settings=Settings(language="vi"))
    descriptor = next(c for c in rows.chunks if c["chunk_kind"] == "block_descriptor")
    block = next(b for b in rows.blocks if b["block_id"] in descriptor["chunk_id"])
    # the independent reading agrees with the builder on every stored block, in both languages
    for b in rows.blocks:
        for lang in ("vi", "en"):
            assert expected_descriptor(b, lang) == describe_block(
                b["entry_title"], b["section_title"], b["kind"], b["printed_page"], b["page_no"], lang, b["headings"], b["printed_label"]
            )
    descriptor["text"] = expected_descriptor(block, "en")  # right facts, wrong language: ADR 0006 #8 allows it
    result = descriptor_not_from_block_metadata(rows)
    assert not result.passed and result.offending_ids == (descriptor["chunk_id"],)
    assert result.message.startswith("1 descriptor chunks whose text is not their block's metadata")


def _docx_with_long_cell(path: Path, cell_text: str) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Bảng", level=1)
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Tên", "Ghi chú"
    table.cell(1, 0).text, table.cell(1, 1).text = "Amoxicilin", cell_text
    document.save(str(path))
    return path


def test_docx_table_read_as_data_when_its_cell_makes_it_layout(tmp_path):
    data = _docx_with_long_cell(tmp_path / "t.docx", "rất dài " * 300).read_bytes()
    segments = [{"segment_id": "s00002", "kind": "table_row", "source_ref": "docx:body[1]/tbl[r1]"}]
    rows = DocumentRows("t.docx", raw={"format": "docx"}, parsed={"status": "ok"}, segments=segments, source=data, settings=Settings())
    result = docx_table_data_or_layout(rows)
    assert not result.passed and "s00002 (docx:body[1]/tbl[r1])" in result.message
    # with a chunk_size the cell fits in, the same table is data and its rows are right
    assert docx_table_data_or_layout(DocumentRows(**{**rows.__dict__, "settings": Settings(chunk_size=1900, max_chunk_tokens=2000)})).passed


# -- through Dagster ---------------------------------------------------------------------

CHECK = {
    "fa_letters.docx": "adr0018_05_arabic_forms_in_persian_chunks",
    "fa_digits.docx": "adr0018_05_digits_not_as_authored",
    "small_cap.docx": "adr0018_07_chunk_over_document_max_tokens",
    "layout_table.docx": "adr0018_03_docx_table_data_or_layout",
    "duoc_thu_mau.pdf": "adr0018_descriptor_not_from_block_metadata",
}


@pytest.mark.slow
def test_each_rule_blocks_its_document_through_dagster(tmp_path: Path, monkeypatch):
    from duocthu_assets import chunking, textnorm
    from duocthu_assets.assets import chunks as chunks_asset
    from duocthu_assets.cli import main
    from duocthu_assets.parse.office.word import walker

    inbox = tmp_path / "inbox"
    for folder, toml in {
        "fa": 'profile = "generic"\nnormalization = "persian"\n',
        "cap": "chunk_size = 20\nchunk_overlap = 5\nmax_chunk_tokens = 30\n",
        "vn": "",
        "formulary": 'profile = "formulary"\n',
    }.items():
        (inbox / folder).mkdir(parents=True)
        (inbox / folder / "collection.toml").write_text(toml)
    make_docx(inbox / "fa" / "fa_letters.docx", [("قرارداد", ["این متن فارسی است."])])
    make_docx(inbox / "fa" / "fa_digits.docx", [("ماده", ["مبلغ ۱۲۰۰ ریال است."])])
    make_docx(inbox / "cap" / "small_cap.docx", [("Chỉ định", ["Nhiễm khuẩn đường hô hấp."])])
    _docx_with_long_cell(inbox / "vn" / "layout_table.docx", "rất dài " * 300)
    make_docx(inbox / "vn" / "clean.docx", [("Thận trọng", ["Suy thận: giảm liều."])])
    shutil.copy(REPO / "data" / "inbox" / "formulary" / "duoc_thu_mau.pdf", inbox / "formulary" / "duoc_thu_mau.pdf")

    real_chunk_rows, real_persian, real_describe = chunks_asset.chunk_rows, textnorm.normalize_persian, chunking.describe_block

    def broken_chunk_rows(doc_id, *args, **kwargs):
        rows = real_chunk_rows(doc_id, *args, **kwargs)
        if doc_id.endswith("fa_letters.docx"):
            rows[0]["text"] += " كتاب"  # an Arabic kaf left in a Persian chunk
        if doc_id.endswith("small_cap.docx"):
            rows[0]["text"] += " giảm liều" * 20  # over the collection's 30, far under 512
        return rows

    monkeypatch.setattr(chunks_asset, "chunk_rows", broken_chunk_rows)
    monkeypatch.setattr(textnorm, "normalize_persian", lambda text: real_persian(text).translate(str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789")))
    monkeypatch.setattr(walker, "over_token_limit", lambda text, limit: False)  # every table read as data
    monkeypatch.setattr(chunking, "describe_block", lambda *a: real_describe(*a[:5], "en", *a[6:]))  # a vi document described in English

    report = tmp_path / "r.json"
    assert main(["ingest", str(inbox), "--warehouse", str(tmp_path / "wh"), "--report", str(report), "--quiet"]) == 1
    docs = {Path(d["source"]).name: d for d in json.loads(report.read_text())["documents"]}
    for name, check in CHECK.items():
        failed = set(docs[name].get("failed_checks") or [])
        assert docs[name]["status"] == "blocked", (name, docs[name])
        assert check in failed, (name, failed)
        assert failed & RULE_NAMES == {check}, (name, failed & RULE_NAMES)  # each document breaks only its own rule
    assert docs["clean.docx"]["status"] == "ok"

    # the settings each document was built with are on its raw_documents materialization (the UI shows them)
    from duocthu_assets.runtime.instance import open_instance

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))  # restored after the test; open_instance sets its own
    instance = open_instance(str(tmp_path / "wh"))
    for name, chunk_size in (("small_cap.docx", 20), ("clean.docx", 400)):
        doc_id = docs[name]["doc_id"]
        records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=dg.AssetKey("raw_documents"), asset_partitions=[doc_id]), limit=1).records
        settings = records[0].asset_materialization.metadata["settings"].value
        assert settings["chunk_size"] == chunk_size and settings["normalization"] == "nfc", (name, settings)
