"""Per-document isolation after parsing (issue 22): a document whose crop,
chunking or embedding raises fails ALONE, with its own reason, in the
summary, in its parsed_documents row and in the failing blocking check the
UI shows; the other documents of the same run are built and indexed.

One `duocthu ingest` covers the three steps: a generated PDF whose table
spans a 14,400-pt page (MuPDF refuses its 30,000 px crop, for real), and two
good CSVs whose chunking / embedding is made to raise, among four good
documents (PDF, DOCX, XLSX, CSV)."""

from __future__ import annotations

import json

import dagster as dg
import pyarrow.parquet as pq
import pytest

from duocthu_assets.cli import main
from duocthu_assets.embed import reuse
from duocthu_assets.assets import chunks as chunks_asset
from duocthu_assets.runtime.instance import open_instance

from tests.support import hostile_makers as makers

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("steps")
    inbox, warehouse, report = tmp / "inbox", tmp / "wh", tmp / "report.json"
    phrases = makers.write_good_documents(inbox / "good")
    (inbox / "steps").mkdir(parents=True)
    makers.make_oversized_table_pdf(inbox / "steps" / "oversized_table.pdf")
    (inbox / "steps" / "chunk_boom.csv").write_text("Mã,Tên\nX1,chunking explodes here\n", encoding="utf-8")
    (inbox / "steps" / "embed_boom.csv").write_text("Mã,Tên\nX2,embedding explodes here\n", encoding="utf-8")

    real_chunk_rows, real_embed = chunks_asset.chunk_rows, reuse.embed_document_table

    def chunk_rows(doc_id, *args):
        if doc_id == "steps-chunk_boom.csv":
            raise RecursionError("maximum recursion depth exceeded (simulated)")
        return real_chunk_rows(doc_id, *args)

    def embed_document_table(doc_id, *args, **kwargs):
        if doc_id == "steps-embed_boom.csv":
            raise RuntimeError("the embedding engine ran out of patience (simulated)")
        return real_embed(doc_id, *args, **kwargs)

    patch = pytest.MonkeyPatch()
    patch.setattr(chunks_asset, "chunk_rows", chunk_rows)
    patch.setattr(reuse, "embed_document_table", embed_document_table)
    try:
        code = main(["ingest", str(inbox), "--warehouse", str(warehouse), "--report", str(report), "--quiet"])
    finally:
        patch.undo()
    summary = {d["doc_id"]: d for d in json.loads(report.read_text())["documents"]}
    index = pq.read_table(warehouse / "search_index" / "parts", columns=["doc_id", "text"]).to_pylist()
    return code, summary, warehouse, index, phrases


FAILURES = {
    "steps-oversized_table.pdf": ("crop_step_completed", r"^crop failed: MuPDF refused an image of \d+×\d+ px .*Overly large image"),
    "steps-chunk_boom.csv": ("chunk_step_completed", r"^chunking failed: RecursionError: maximum recursion depth"),
    "steps-embed_boom.csv": ("embedding_step_completed", r"^embedding failed: RuntimeError: the embedding engine ran out"),
}


@pytest.mark.parametrize("doc_id", sorted(FAILURES))
def test_a_failing_step_fails_its_document_alone_with_its_reason(ingested, doc_id):
    import re

    code, summary, warehouse, index, _ = ingested
    check, reason = FAILURES[doc_id]
    assert code == 1
    # the summary
    assert summary[doc_id]["status"] == "failed", summary[doc_id]
    assert re.search(reason, summary[doc_id]["reason"]), summary[doc_id]["reason"]
    # parsed_documents, the per-document status record
    parsed = pq.read_table(warehouse / "parsed_documents" / f"{doc_id}.parquet").to_pylist()[0]
    assert parsed["status"] == "failed" and re.search(reason, parsed["reason"]), parsed["reason"]
    # the blocking check the UI shows, failed for this document with the reason
    instance = open_instance(str(warehouse))
    asset = {"crop_step_completed": "crops", "chunk_step_completed": "chunks", "embedding_step_completed": "embeddings"}[check]
    key = dg.AssetCheckKey(dg.AssetKey(asset), check)
    infos = instance.event_log_storage.get_asset_check_partition_info([key], partition_keys=[doc_id])
    assert [i.latest_execution_status.value for i in infos] == ["FAILED"]
    # not indexed
    assert doc_id not in {row["doc_id"] for row in index}


def test_the_other_documents_of_the_run_are_built_and_indexed(ingested):
    code, summary, warehouse, index, phrases = ingested
    good = {f"good-{name}": phrase for name, phrase in phrases.items()}
    for doc_id, phrase in good.items():
        assert summary[doc_id]["status"] == "ok", summary[doc_id]
        assert any(phrase in row["text"] for row in index if row["doc_id"] == doc_id), doc_id
    assert {row["doc_id"] for row in index} == set(good)
    # the refused crop left no PNG behind, and no vectors were kept for the failures
    assert not list((warehouse / "crops" / "steps-oversized_table.pdf").glob("*.png"))
