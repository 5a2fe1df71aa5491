"""Fault: a file deleted from a folder already ingested (issue 42, item 1).
The next `duocthu ingest` of the folder marks its document removed, as the
inbox sensor does; its chunks leave the search index and the consolidated
tables, and every derived file is what a clean ingest of the folder makes.
Its ``raw_documents`` row stays, saying ``removed``, and its source bytes
stay under ``sources/`` (docs/warehouse.md)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from duocthu_assets.retrieval import Searcher
from tests.support.faults import (
    clean_digest,
    differences,
    ingest_here,
    output_digest,
    small_inbox,
    statuses,
)

pytestmark = pytest.mark.slow

# kept, as docs/warehouse.md says: the removed row and the source bytes, and
# the vectors of the embedding cache (by content: the file may come back)
KEPT_AS_DOCUMENTED = ("raw_documents", "tables/raw_documents", "sources", "embedding_cache")


def test_a_deleted_file_leaves_the_index_at_the_next_ingest_and_the_rest_is_a_clean_ingest(tmp_path):
    inbox, warehouse = small_inbox(tmp_path / "inbox"), tmp_path / "wh"
    code, first = ingest_here([inbox], warehouse, tmp_path / "1.json")
    assert code == 0 and statuses(first)["sub-xoa.csv"] == "ok", first
    assert any(h.doc_id == "sub-xoa.csv" for h in Searcher(str(warehouse), mode="lexical").search("Vancomycin truyen cham", k=3))

    (inbox / "sub" / "xoa.csv").unlink()
    code, second = ingest_here([inbox], warehouse, tmp_path / "2.json")

    assert code == 0, second
    assert statuses(second)["sub-xoa.csv"] == "removed"
    registry = json.loads((warehouse / "registry.json").read_text())
    assert registry["sub-xoa.csv"]["status"] == "removed"
    hits = Searcher(str(warehouse), mode="lexical").search("Vancomycin truyen cham", k=3)
    assert all(h.doc_id != "sub-xoa.csv" for h in hits), hits
    raw = pq.read_table(warehouse / "raw_documents" / "sub-xoa.csv.parquet").to_pylist()
    assert raw[0]["status"] == "removed"
    assert not (warehouse / "chunks" / "sub-xoa.csv.parquet").exists()

    got = output_digest(warehouse, KEPT_AS_DOCUMENTED, empty_parts=False)  # a part emptied stays, with no row
    assert not differences(got, clean_digest(tmp_path, [inbox], KEPT_AS_DOCUMENTED, empty_parts=False))
    code, third = ingest_here([inbox], warehouse, tmp_path / "3.json")  # removed once, not again
    assert code == 0 and "sub-xoa.csv" not in statuses(third), third
