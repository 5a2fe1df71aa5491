"""The process-wide cache of decoded tables (duocthu_assets/warehouse.py) is
bounded in memory, tiny tables included."""

from __future__ import annotations

import pyarrow as pa

from duocthu_assets.warehouse import DecodedTables


def test_many_tiny_tables_are_bounded_by_their_count_too():
    """A tiny document's table holds ~1 KB of buffers but far more memory;
    counted by its buffers alone, 10,000 documents' tables were all kept
    (the main process of a 10,000-document ingest reached 2.46 GB)."""
    tiny = pa.table({"doc_id": ["a.csv"], "n": [1]})
    cache = DecodedTables(max_bytes=(DecodedTables.OVERHEAD + tiny.nbytes) * 10)
    for i in range(100):
        cache.put(("f", i), tiny)
    kept = [i for i in range(100) if cache.get(("f", i)) is not None]
    assert kept == list(range(90, 100)), "the 10 most recent are kept, the rest let go"
    assert cache.get(("f", 99)) is tiny
