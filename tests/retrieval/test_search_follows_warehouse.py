"""The warm index follows the warehouse, through Dagster: a document whose
blocking checks fail never appears in any search mode, and a removed document
leaves a server that is already running (it reloads the re-materialized
index), on the API and the HTTP path alike."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import dagster as dg
import pytest

from duocthu_assets.assets import chunks as chunks_asset
from duocthu_assets.automation import inbox_sensor
from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.embed.factory import make_embedder
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.jobs import INGEST_JOB
from duocthu_assets.resources import WarehouseResource
from duocthu_assets.retrieval import Searcher
from duocthu_assets.retrieval.server import search_request

from tests.support.docgen import make_docx

pytestmark = pytest.mark.slow

BAD = "b_bad.docx"
MODES = ("hybrid", "dense", "lexical")


def _doc_ids(searcher: Searcher, query: str, mode: str) -> set[str]:
    api = {h.doc_id for h in searcher.search(query, 50, mode=mode)}
    status, body = search_request(searcher, f"/search?q={urllib.parse.quote(query)}&k=50&mode={mode}")
    assert int(status) == 200, body
    assert {h["doc_id"] for h in body["hits"]} == api  # the server answers what the API answers
    return api


def test_blocked_documents_never_appear_and_removed_ones_leave_a_running_server(tmp_path: Path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    make_docx(inbox / "a_good.docx", [("Chỉ định", ["Vancomycin điều trị nhiễm khuẩn do tụ cầu kháng methicilin."])])
    make_docx(inbox / BAD, [("Chống chỉ định", ["Quá mẫn với penicilin và cephalosporin."])])
    make_docx(inbox / "c_good.docx", [("Thận trọng", ["Suy thận: giảm liều gentamicin theo độ thanh thải."])])
    real_chunk_rows = chunks_asset.chunk_rows

    def corrupting_chunk_rows(doc_id, *args, **kwargs):
        rows = real_chunk_rows(doc_id, *args, **kwargs)
        if doc_id == BAD:
            rows[0]["text"] = rows[0]["text"] + " 500 mg"  # changed after hashing: a blocking check fails
        return rows

    monkeypatch.setattr(chunks_asset, "chunk_rows", corrupting_chunk_rows)
    monkeypatch.setenv("DUOCTHU_INBOX", str(inbox))
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 1  # BAD is blocked

    searcher = Searcher(warehouse, make_embedder())
    assert (warehouse / "chunks" / f"{BAD}.parquet").exists()  # kept for review, not for search
    for mode in MODES:
        for query in ("quá mẫn với penicilin cephalosporin", "vancomycin", "gentamicin suy thận"):
            found = _doc_ids(searcher, query, mode)
            assert BAD not in found, (mode, query)
    assert _doc_ids(searcher, "penicilin cephalosporin", "lexical") == set()  # its words are nowhere else
    assert "a_good.docx" in _doc_ids(searcher, "vancomycin methicilin", "hybrid")
    assert searcher.loads == 1

    # a_good.docx leaves the inbox: the sensor marks it removed, its run, then the index refresh
    (inbox / "a_good.docx").unlink()
    instance = open_instance(str(warehouse))
    context = dg.build_sensor_context(instance=instance, resources={"warehouse": WarehouseResource(root=str(warehouse))})
    assert [r.partition_key for r in inbox_sensor(context).run_requests] == ["a_good.docx"]
    defs = build_definitions(str(warehouse))
    defs.resolve_job_def(INGEST_JOB).execute_in_process(instance=instance, partition_key="a_good.docx", raise_on_error=False)
    defs.resolve_job_def("refresh_search_index").execute_in_process(instance=instance)

    for mode in MODES:
        found = _doc_ids(searcher, "vancomycin methicilin tụ cầu", mode)
        assert "a_good.docx" not in found and BAD not in found, mode
    assert _doc_ids(searcher, "gentamicin", "lexical") == {"c_good.docx"}
    assert searcher.loads == 2  # the same warm searcher read the re-materialized index once
