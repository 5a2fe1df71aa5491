"""A chunk-invariant violation in one document blocks that document's
embeddings and keeps it out of search_index, and only that document."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from duocthu_assets.assets import chunks as chunks_asset
from duocthu_assets.cli import main

from tests.support.docgen import make_docx

pytestmark = pytest.mark.slow

BAD = "b_bad.docx"


def test_chunk_violation_blocks_embeddings_and_index_for_that_document_only(tmp_path: Path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    make_docx(inbox / "a_good.docx", [("Chỉ định", ["Nhiễm khuẩn đường hô hấp."])])
    make_docx(inbox / BAD, [("Chống chỉ định", ["Quá mẫn với penicilin."])])
    make_docx(inbox / "c_good.docx", [("Thận trọng", ["Suy thận: giảm liều."])])

    real_chunk_rows = chunks_asset.chunk_rows

    def corrupting_chunk_rows(doc_id, *args, **kwargs):
        rows = real_chunk_rows(doc_id, *args, **kwargs)
        if doc_id == BAD:
            # text silently changed after hashing: the kind of corruption the
            # contract checks exist for
            rows[0]["text"] = rows[0]["text"] + " 500 mg"
        return rows

    monkeypatch.setattr(chunks_asset, "chunk_rows", corrupting_chunk_rows)
    warehouse = tmp_path / "wh"
    report = tmp_path / "r.json"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--report", str(report), "--quiet"]) == 1
    docs = {d["doc_id"]: d for d in json.loads(report.read_text())["documents"]}

    bad = docs[BAD]
    assert bad["status"] == "blocked"
    assert "chunk_derived_field_mismatch" in bad["failed_checks"]
    assert "span_does_not_resolve" in bad["failed_checks"]
    assert (warehouse / "chunks" / f"{BAD}.parquet").exists()  # kept for review
    assert not (warehouse / "embeddings" / f"{BAD}.parquet").exists()

    for good in ("a_good.docx", "c_good.docx"):
        assert docs[good]["status"] == "ok"
        assert (warehouse / "embeddings" / f"{good}.parquet").exists()
    indexed = set(pq.read_table(warehouse / "search_index" / "index.parquet").column("doc_id").to_pylist())
    assert indexed == {"a_good.docx", "c_good.docx"}
