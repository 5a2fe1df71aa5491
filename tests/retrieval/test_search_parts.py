"""The partitioned search index (issue 20 item 1, issue 21 item 4): a refresh
rewrites only the parts holding a changed document, byte-identical to a
build from nothing; BM25 over the parts scores bit-identically to one index
over every chunk; a searcher reloads only the changed parts; a part that is
not the one its manifest names, a lost part and an index of the old layout
are told apart with a reason, never searched silently."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from duocthu_assets.compaction import part_name, part_of
from duocthu_assets.retrieval import Searcher, SearchError, index_is_current, load_index, read_index_rows, refresh_search_index
from duocthu_assets.retrieval.document_rows import lexical_documents
from duocthu_assets.retrieval.layout import PARTS, LayoutError, part_path, read_manifest
from duocthu_assets.retrieval.lexical import LexicalIndex
from duocthu_assets.warehouse import Warehouse, encode_parquet

from tests.support.search_samples import chunk, store_chunks

DRUGS = ["Amikacin", "Cefotaxim", "Meropenem", "Gentamicin", "Rifampicin", "Warfarin"]
QUERIES = ["liều ampicilin suy thận", "amikacin 15 mg/kg", "hợp đồng thuê một năm", "warfarin INR", "Điều 17", "mg"]


def _drug_doc(i: int, drug: str, extra: str = "") -> list[dict]:
    doc = f"thuoc-{i}"
    return [
        chunk(doc, 0, f"{drug}: người lớn 15 mg/kg mỗi ngày, chia 2 lần.{extra}", entry=drug.upper(), printed=10 + i, physical=12 + i),
        chunk(doc, 1, f"Thận trọng khi dùng {drug} cho người suy thận; Điều {17 + i} quy định ghi đơn.", entry=drug.upper(), section="Thận trọng", section_key="than_trong", printed=11 + i, physical=13 + i),
    ]


@pytest.fixture
def many(warehouse, embedder):
    """The tiny warehouse of test_search plus six documents: eight in all, in several parts."""
    for i, drug in enumerate(DRUGS):
        store_chunks(warehouse, f"thuoc-{i}", _drug_doc(i, drug), embedder)
    docs = ["duocthu-mini", "persian-memo", *(f"thuoc-{i}" for i in range(len(DRUGS)))]
    refresh_search_index(warehouse, docs, model_id=embedder.model_id)
    return warehouse, docs


def _files(wh: Warehouse) -> dict[str, tuple[int, bytes]]:
    root = Path(wh.path("search_index").path)
    return {str(p.relative_to(root)): (p.stat().st_ino, p.read_bytes()) for p in sorted(root.rglob("*.parquet"))}


def _from_nothing(wh: Warehouse, docs: list[str], model_id: str, tmp_path: Path, parts: int = PARTS) -> dict[str, bytes]:
    """The index files a build from nothing of the same warehouse writes."""
    copy = Path(tempfile.mkdtemp(dir=tmp_path)) / "wh"
    shutil.copytree(wh.root.path, copy, ignore=shutil.ignore_patterns("search_index", "dagster_home"))
    scratch = Warehouse(copy)
    refresh_search_index(scratch, docs, model_id=model_id, reuse=False, parts=parts)
    return {name: data for name, (_, data) in _files(scratch).items()}


def _change(wh: Warehouse, embedder, i: int, extra: str) -> None:
    store_chunks(wh, f"thuoc-{i}", _drug_doc(i, DRUGS[i], extra), embedder)


def test_one_changed_document_rewrites_its_part_and_the_manifest_only(many, embedder, tmp_path, monkeypatch):
    wh, docs = many
    before = _files(wh)
    assert len([n for n in before if n.startswith("parts/")]) == len({part_of(d, PARTS) for d in docs})
    assert {n: d for n, (_, d) in before.items()} == _from_nothing(wh, docs, embedder.model_id, tmp_path)

    reads: list[str] = []
    real = Warehouse.read_table_and_sha256
    monkeypatch.setattr(Warehouse, "read_table_and_sha256", lambda self, asset, doc_id=None: reads.append(f"{asset}/{doc_id}") or real(self, asset, doc_id))
    noop = refresh_search_index(wh, docs, model_id=embedder.model_id)
    assert (reads, noop.parts_written, noop.manifest_written) == ([], [], False)
    assert _files(wh) == before  # not even renamed: a warm searcher does not reload

    _change(wh, embedder, 2, " Uống sau bữa ăn.")
    refresh = refresh_search_index(wh, docs, model_id=embedder.model_id)
    assert reads == ["chunks/thuoc-2", "embeddings/thuoc-2"]  # only the changed document is read
    assert refresh.parts_written == [part_of("thuoc-2", PARTS)] and refresh.changed == ["thuoc-2"] and refresh.gone == []
    after = _files(wh)
    replaced = sorted(n for n in after if before[n][0] != after[n][0])
    assert replaced == ["index.parquet", f"parts/{part_name(part_of('thuoc-2', PARTS))}"]
    assert any("Uống sau bữa ăn." in t for t in read_index_rows(wh).column("text").to_pylist())
    monkeypatch.setattr(Warehouse, "read_table_and_sha256", real)
    assert {n: d for n, (_, d) in after.items()} == _from_nothing(wh, docs, embedder.model_id, tmp_path)


def test_a_removed_or_blocked_document_leaves_and_its_emptied_part_goes(many, embedder, tmp_path):
    wh, docs = many
    alone = [d for d in docs if all(part_of(o, PARTS) != part_of(d, PARTS) for o in docs if o != d)][0]
    kept = [d for d in docs if d != alone]
    refresh = refresh_search_index(wh, kept, model_id=embedder.model_id)
    assert refresh.gone == [alone] and refresh.parts_removed == [part_of(alone, PARTS)] and refresh.parts_written == []
    assert not part_path(wh, part_of(alone, PARTS)).exists()
    assert alone not in set(read_index_rows(wh).column("doc_id").to_pylist())
    assert alone not in {h.doc_id for h in Searcher(wh, embedder).search("mg", 50)}
    assert {n: d for n, (_, d) in _files(wh).items()} == _from_nothing(wh, kept, embedder.model_id, tmp_path)
    # and back
    refresh_search_index(wh, docs, model_id=embedder.model_id)
    assert {n: d for n, (_, d) in _files(wh).items()} == _from_nothing(wh, docs, embedder.model_id, tmp_path)


def test_scores_over_parts_are_bit_identical_to_one_index_over_every_chunk(many, embedder, tmp_path):
    wh, docs = many
    one = Warehouse(tmp_path / "one-part")
    shutil.copytree(wh.root.path, one.root.path, ignore=shutil.ignore_patterns("search_index", "dagster_home"))
    refresh_search_index(one, docs, model_id=embedder.model_id, parts=1)
    assert len(read_manifest(one).part_keys) == 1 and len(read_manifest(wh).part_keys) > 1
    split, whole = load_index(wh), load_index(one)
    # the same chunks; put the split index's positions in the whole one's order
    position = {cid: i for i, cid in enumerate(whole.rows.column("chunk_id").to_pylist())}
    perm = np.array([position[c] for c in split.rows.column("chunk_id").to_pylist()])
    assert np.array_equal(np.argsort(split.order), np.argsort(perm))  # ties: (doc_id, chunk_index) either way
    from_texts = LexicalIndex.build(lexical_documents(whole.rows))  # global df and avgdl, analyzed afresh
    for query in QUERIES:
        assert np.array_equal(split.lexical().scores(query), whole.lexical().scores(query)[perm]), query
        assert np.array_equal(whole.lexical().scores(query), from_texts.scores(query)), query
    assert np.array_equal(split.vectors, whole.vectors[perm])
    for mode in ("hybrid", "dense", "lexical"):
        for query in QUERIES:
            a = Searcher(wh, embedder, mode=mode).search(query, 10)
            b = Searcher(one, embedder, mode=mode).search(query, 10)
            assert [h.chunk_id for h in a] == [h.chunk_id for h in b], (mode, query)
            if mode != "lexical":  # one BLAS product: a cosine's last bit may depend on its row's position;
                # hybrid scales the cosines min-max over the candidates, which magnifies that bit
                assert np.allclose([h.score for h in a], [h.score for h in b], rtol=1e-6 if mode == "dense" else 1e-4, atol=0), query
            else:  # BM25, exact and folded: exact
                assert [h.score for h in a] == [h.score for h in b], (mode, query)


def test_a_warm_searcher_reads_only_the_changed_part(many, embedder):
    wh, docs = many
    searcher = Searcher(wh, embedder)
    first = searcher.index()
    assert first.parts_read == len(read_manifest(wh).part_keys)
    _change(wh, embedder, 4, " Theo dõi thính lực.")
    refresh_search_index(wh, docs, model_id=embedder.model_id)
    second = searcher.index()
    assert searcher.loads == 2 and second.parts_read == 1
    assert "thuoc-4" in {h.doc_id for h in searcher.search("thính lực", 3, mode="lexical")}
    unchanged = [p for p in second.parts if p != part_of("thuoc-4", PARTS)]
    assert all(second.parts[p] is first.parts[p] for p in unchanged)  # kept, not read again


def test_a_part_that_is_not_the_manifests_is_never_searched(many, embedder):
    wh, docs = many
    part = part_of("thuoc-1", PARTS)
    path = part_path(wh, part)
    good = path.read_bytes()
    other = pa.table({"doc_id": ["x"]}).replace_schema_metadata({b"duocthu.search_index.part_key": b"0" * 64})
    wh.write_bytes_atomic(path, encode_parquet(other))  # a refresh's part, read before its manifest
    with pytest.raises(LayoutError, match="kept changing while it was read.*not the part the manifest names"):
        load_index(wh)
    with pytest.raises(SearchError, match="cannot be read"):
        Searcher(wh, embedder).search("mg", 3)
    wh.write_bytes_atomic(path, good)
    assert Searcher(wh, embedder).search("amikacin", 3)
    # a lost part: the index is not current, and the next refresh builds it again
    path.unlink()
    assert not index_is_current(wh, docs)
    refresh_search_index(wh, docs, model_id=embedder.model_id)
    assert path.read_bytes() == good and index_is_current(wh, docs)


def test_an_index_of_the_old_single_file_layout_is_refused_then_rebuilt(warehouse, embedder):
    old = pa.table({"doc_id": ["duocthu-mini"], "text": ["x"]})
    warehouse.write_table("search_index", old)
    warehouse.write_bytes_atomic(warehouse.path("search_index", "lexical.parquet"), encode_parquet(old))
    with pytest.raises(SearchError, match="layout 1.*duocthu ingest"):
        Searcher(warehouse, embedder).search("mg", 3)
    assert not index_is_current(warehouse, ["duocthu-mini", "persian-memo"])
    refresh = refresh_search_index(warehouse, ["duocthu-mini", "persian-memo"], model_id=embedder.model_id)
    assert refresh.changed == ["duocthu-mini", "persian-memo"]
    assert not warehouse.path("search_index", "lexical.parquet").exists()
    assert Searcher(warehouse, embedder).search("ampicilin", 3)[0].doc_id == "duocthu-mini"


def test_a_stale_document_keeps_its_reason_and_leaves_its_part(many, embedder, tmp_path):
    wh, docs = many
    rows = _drug_doc(3, DRUGS[3])
    rows[0]["text"] += " (sửa)"
    rows[0]["content_hash"] = hashlib.sha256(rows[0]["text"].encode()).hexdigest()
    from duocthu_assets.schemas import table_from_rows

    wh.write_table("chunks", table_from_rows("chunks", rows), "thuoc-3")  # re-chunked, not re-embedded
    refresh = refresh_search_index(wh, docs, model_id=embedder.model_id)
    assert "stale embeddings" in refresh.info.excluded["thuoc-3"] and refresh.gone == ["thuoc-3"]
    assert "thuoc-3" not in set(read_index_rows(wh).column("doc_id").to_pylist())
    assert {n: d for n, (_, d) in _files(wh).items()} == _from_nothing(wh, docs, embedder.model_id, tmp_path)
