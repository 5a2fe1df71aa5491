"""Issue 20 item 1: what an ingest costs follows what changed, through the
real `duocthu ingest` path (Dagster runs, the index asset, the summary):

- the summary lists the documents this ingest built and totals for the rest,
  summarized from what the registry remembers, the blocking checks' latest
  word asked of the instance again;
- check statuses are remembered per run (StatusCache) and always agree with
  what Dagster answers, also after a document's checks change;
- the index is partitioned: an ingest replaces only the part holding the
  changed document (and the manifest), only that document's chunks analyzed,
  the files byte-identical to a full rebuild, and a searcher loads BM25 from
  the parts' terms with the scores of one built from the texts;
- the registry is not rewritten by an ingest that changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from duocthu_assets.embed.factory import make_embedder
from duocthu_assets.runtime.gates import StatusCache, _query_statuses, check_statuses
from duocthu_assets.inbox.registry import Registry
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.retrieval import Searcher
from duocthu_assets.retrieval import lexical as lexical_module
from duocthu_assets.compaction import part_name, part_of
from duocthu_assets.retrieval.document_rows import lexical_documents
from duocthu_assets.retrieval.index import load_index
from duocthu_assets.retrieval.refresh import refresh_search_index
from duocthu_assets.retrieval.layout import PARTS, read_manifest
from duocthu_assets.retrieval.lexical import CollectionBM25, LexicalIndex, PartTerms, lexical_table
from duocthu_assets.warehouse import Warehouse

from tests.support.ingest import ingest_quietly, nightly_tick, write_price_csv

pytestmark = pytest.mark.slow

LEGACY_DOC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "WordDocument".encode("utf-16-le") + b"\0" * 512


@pytest.fixture
def grown(tmp_path: Path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i, drug in enumerate(["Amoxicilin", "Vancomycin", "Cefuroxim"]):
        write_price_csv(inbox / f"d{i}.csv", drug, 1000 + i)
    warehouse = tmp_path / "wh"
    first, _ = ingest_quietly(inbox, warehouse)
    assert [d.status for d in first.documents] == ["ok"] * 3
    return inbox, warehouse


def test_summary_lists_what_was_built_and_totals_the_rest(grown, monkeypatch):
    inbox, warehouse = grown
    write_price_csv(inbox / "d3.csv", "Meropenem", 9900)
    (inbox / "d4.doc").write_bytes(LEGACY_DOC)  # rejected: a blocking check fails
    result, printed = ingest_quietly(inbox, warehouse)
    by_id = {d.doc_id: d for d in result.documents}
    assert {d for d, s in by_id.items() if s.rebuilt} == {"d3.csv", "d4.doc"}
    assert by_id["d3.csv"].status == "ok" and by_id["d4.doc"].status == "rejected"
    rows = [line.split()[0] for line in printed.splitlines() if line.startswith(("d3", "d4", "d0", "d1", "d2"))]
    assert rows == ["d3.csv", "d4.doc"], printed  # one row per document built, none for the unchanged
    assert "unchanged since built: 3 documents (3 ok; 6 chunks, 6 vectors kept)" in printed
    assert "5 documents: 4 ok, 1 rejected" in printed

    # the next ingest builds nothing: every document is summarized from the registry, no Parquet read
    reads: list[str] = []
    real_read = Warehouse.read_table
    monkeypatch.setattr(Warehouse, "read_table", lambda self, asset, doc_id=None: reads.append(asset) or real_read(self, asset, doc_id))
    again, printed = ingest_quietly(inbox, warehouse)
    assert not any(d.rebuilt for d in again.documents)
    assert [a for a in reads if a in ("raw_documents", "parsed_documents", "chunks", "embeddings")] == []
    # the same statuses and counts as the summary of the ingest that built them
    for d in again.documents:
        before = by_id[d.doc_id]
        assert (d.status, d.reason, d.chunks, d.pages, d.blocks) == (before.status, before.reason, before.chunks, before.pages, before.blocks)
    assert "unchanged since built: 5 documents (4 ok, 1 rejected; 8 chunks" in printed
    assert "d4.doc: rejected" in printed  # an unchanged document that is not ok is still named


def test_a_remembered_outcome_that_no_longer_holds_is_summarized_from_the_files(grown):
    inbox, warehouse = grown
    registry = Registry(Warehouse(warehouse))
    record = registry.records["d1.csv"]
    record.outcome = {**record.outcome, "status": "ok", "chunks": 99, "built": "something else"}
    registry.save()
    result, _ = ingest_quietly(inbox, warehouse)
    assert {d.doc_id: d.chunks for d in result.documents}["d1.csv"] == 2  # read again, not the stale 99


def test_check_statuses_are_remembered_per_run_and_agree_with_dagster(grown):
    inbox, warehouse = grown
    docs = ["d0.csv", "d1.csv", "d2.csv"]
    instance = open_instance(str(warehouse))
    try:
        assert StatusCache.open(instance) is not None
        assert check_statuses(instance, docs) == _query_statuses(instance, docs)
        assert Path(instance.root_directory, StatusCache.NAME).is_file()
    finally:
        instance.dispose()
    # d1 is replaced by a file its checks refuse: a run since the remembered one covers it
    (inbox / "d1.csv").write_bytes(LEGACY_DOC)
    result, _ = ingest_quietly(inbox, warehouse)
    assert {d.doc_id: d.status for d in result.documents}["d1.csv"] == "rejected"
    instance = open_instance(str(warehouse))
    try:
        cached, direct = check_statuses(instance, docs), _query_statuses(instance, docs)
        assert cached == direct
        assert cached["d1.csv"]["document_accepted"] == "FAILED"
    finally:
        instance.dispose()
    # and back: the document passes again, the index holds it again
    write_price_csv(inbox / "d1.csv", "Vancomycin", 1001)
    result, _ = ingest_quietly(inbox, warehouse)
    assert {d.doc_id: d.status for d in result.documents}["d1.csv"] == "ok"
    assert "d1.csv" in load_index(Warehouse(warehouse)).info.documents


def _index_files(wh: Warehouse) -> dict[str, tuple[int, bytes]]:
    """search_index/'s Parquet files: relative path -> (inode, bytes)."""
    root = Path(wh.path("search_index").path)
    return {str(p.relative_to(root)): (p.stat().st_ino, p.read_bytes()) for p in sorted(root.rglob("*.parquet"))}


def test_an_ingest_rewrites_only_the_index_part_of_the_changed_document(grown, monkeypatch):
    """Through `duocthu ingest` (the refresh_search_index job's asset): a new
    document is analyzed alone, only its part and the manifest are replaced,
    and the files are byte-identical to an index built from nothing; a
    searcher loads BM25 from the parts' terms with the scores of one built
    from the texts."""
    inbox, warehouse = grown
    wh = Warehouse(warehouse)
    before = _index_files(wh)
    assert "index.parquet" in before and any(name.startswith("parts/part-") for name in before)

    analyzed: list[str] = []
    real = lexical_module.term_counts
    monkeypatch.setattr(lexical_module, "term_counts", lambda text: analyzed.append(text) or real(text))
    write_price_csv(inbox / "d3.csv", "Meropenem", 9900)
    ingest_quietly(inbox, warehouse)
    new_chunks = wh.read_table("chunks", "d3.csv").num_rows
    assert len(analyzed) == new_chunks and any("Meropenem" in text for text in analyzed)  # the new document's chunks only

    after = _index_files(wh)
    replaced = sorted(name for name in after if before.get(name, (None,))[0] != after[name][0])
    assert replaced == ["index.parquet", f"parts/{part_name(part_of('d3.csv', PARTS))}"]

    # byte-identical to an index built from nothing
    monkeypatch.setattr(lexical_module, "term_counts", real)
    manifest = read_manifest(wh)
    refresh_search_index(wh, sorted(manifest.documents), model_id=manifest.model_id, reuse=False)
    assert {name: data for name, (_, data) in _index_files(wh).items()} == {name: data for name, (_, data) in after.items()}

    # a searcher loads BM25 from the parts' terms, with the scores of one built from the texts
    searcher = Searcher(warehouse, make_embedder(), mode="lexical")
    loaded = searcher.index()
    from_texts = LexicalIndex.build(lexical_documents(loaded.rows))
    for query in ("meropenem", "gentamicin 5400", "vancomycin"):
        assert np.array_equal(loaded.lexical().scores(query), from_texts.scores(query))
    assert {h.doc_id for h in searcher.search("meropenem", 5)} == {"d3.csv"}


def test_bm25_over_parts_equals_bm25s_over_the_texts():
    texts = ["Vancomycin 500 mg tiêm tĩnh mạch", "Điều 17. Hợp đồng lao động", "ماده ۱۷ قرارداد كار",
             "Amoxicilin amoxicilin 1200", "", "ﬁ ² Điều 18 điều khoản"] * 7
    counts = lexical_table([f"d{i:03d}" for i in range(len(texts))], list(range(len(texts))), texts)
    assert counts.schema.field("terms").type == pa.list_(pa.string())
    built = LexicalIndex.build(texts)
    whole = CollectionBM25([PartTerms.from_counts(counts)])
    split = CollectionBM25([PartTerms.from_counts(counts.slice(a, b - a)) for a, b in ((0, 5), (5, 6), (6, 30), (30, len(texts)))])
    for query in ("vancomycin", "Điều 17", "ماده 17 کار", "amoxicilin", "nothing here", "điều điều", "mg 17 17"):
        assert np.array_equal(built.scores(query), whole.scores(query)), query
        assert np.array_equal(built.scores(query), split.scores(query)), query
    assert not CollectionBM25([PartTerms.from_counts(counts.slice(4, 1))]).scores("x").any()  # no term at all: nothing matches
    assert CollectionBM25([]).scores("x").shape == (0,)


def test_an_ingest_that_changes_nothing_does_not_rewrite_the_registry(grown):
    inbox, warehouse = grown
    ingest_quietly(inbox, warehouse)  # outcomes remembered by now
    path = warehouse / "registry.json"
    before = path.stat()
    ingest_quietly(inbox, warehouse)
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_the_nightly_schedule_over_unchanged_documents_requests_nothing_and_writes_nothing(grown, monkeypatch):
    """Through Dagster's tick evaluation: documents built by `duocthu ingest`
    are unchanged for the schedule; its tick asks for no run and leaves the
    registry file as it was."""
    inbox, warehouse = grown
    monkeypatch.setenv("DUOCTHU_INBOX", str(inbox))
    path = warehouse / "registry.json"
    before = path.stat()
    tick = nightly_tick(warehouse)
    assert tick.run_requests == [] and tick.skip_message == "3 document(s) unchanged since built"
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_active_doc_ids_are_the_registrys_active_documents_without_their_records(tmp_path: Path):
    from duocthu_assets.inbox.registry import DocumentRecord, active_doc_ids

    wh = Warehouse(tmp_path / "wh")
    assert active_doc_ids(wh) == []  # no registry yet
    registry = Registry(wh)
    for doc_id, status in [("b.csv", "active"), ("a.csv", "active"), ("gone.csv", "removed")]:
        registry.records[doc_id] = DocumentRecord(doc_id=doc_id, path=f"/in/{doc_id}", source_name=doc_id, collection="",
                                                  settings={}, status=status)
    registry.save()
    assert active_doc_ids(wh) == sorted(r.doc_id for r in Registry(wh).active()) == ["a.csv", "b.csv"]
    other = Registry(wh)  # another writer marks one removed: the next read sees it
    other.records["a.csv"].status = "removed"
    other.save()
    assert active_doc_ids(wh) == ["b.csv"]


def test_the_status_cache_file_is_parsed_once_per_process_until_another_writer_replaces_it(grown, monkeypatch):
    import json

    from duocthu_assets.runtime import gates

    inbox, warehouse = grown
    docs = ["d0.csv", "d1.csv", "d2.csv"]
    instance = open_instance(str(warehouse))
    try:
        first = check_statuses(instance, docs)
        path = Path(instance.root_directory, StatusCache.NAME)
        parses = []
        monkeypatch.setattr(gates.json, "loads", lambda text, **kw: parses.append(1) or json.JSONDecoder(**kw).decode(text))
        assert check_statuses(instance, docs) == first and check_statuses(instance, docs) == first
        assert parses == []  # as this process last read or wrote it
        # another writer replaces the file (here: a status it says d1 failed): read again
        data = json.JSONDecoder().decode(path.read_text())
        data["documents"]["d1.csv"] = {"document_accepted": "FAILED"}
        tmp = path.with_name("other-writer.tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(path)
        assert check_statuses(instance, docs)["d1.csv"] == {"document_accepted": "FAILED"}
        assert parses == [1]
    finally:
        instance.dispose()


def test_file_digests_hash_a_file_again_only_when_its_identity_changed(tmp_path: Path, monkeypatch):
    import hashlib
    import os

    from duocthu_assets.retrieval import digests as digests_module
    from duocthu_assets.retrieval.digests import FileDigests

    wh = Warehouse(tmp_path / "wh")
    folder = tmp_path / "wh" / "chunks"
    folder.mkdir(parents=True)
    (folder / "a.parquet").write_bytes(b"one")
    hashed = []
    real = hashlib.file_digest
    monkeypatch.setattr(digests_module.hashlib, "file_digest", lambda fh, name: hashed.append(1) or real(fh, name))
    first = FileDigests(wh)
    assert first.sha256("chunks", "a") == hashlib.sha256(b"one").hexdigest() and first.sha256("chunks", "nope") is None
    first.save()
    assert FileDigests(wh).sha256("chunks", "a") == hashlib.sha256(b"one").hexdigest() and hashed == [1]  # remembered
    tmp = folder / ".a.tmp"
    tmp.write_bytes(b"two")  # same size, replaced by a rename: a new inode
    os.replace(tmp, folder / "a.parquet")
    assert FileDigests(wh).sha256("chunks", "a") == hashlib.sha256(b"two").hexdigest() and hashed == [1, 1]
