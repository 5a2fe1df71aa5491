"""The consolidated tables (duocthu_assets/compaction.py, the warehouse_tables
asset): the same rows as the per-document files, read the same way by DuckDB,
pandas and polars; byte-identical whether built incrementally or from
nothing; a replaced document never half-seen, a crash mid-compaction leaving
each part whole; removed documents leave; blocked ones are there exactly as in
``<asset>/*.parquet`` while the index still leaves them out."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from duocthu_assets import compaction
from duocthu_assets.compaction import PARTS, CompactionError, compact_asset, part_name, part_of, tables_glob
from duocthu_assets.schemas import SCHEMAS, embeddings_schema, table_from_rows
from duocthu_assets.warehouse import Warehouse


# -- synthetic per-document files ------------------------------------------------
def _value(field: pa.Field, doc_id: str, i: int, version: int):
    t = field.type
    if field.name == "doc_id":
        return doc_id
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return f"{field.name} {doc_id} {i} v{version}"
    if pa.types.is_integer(t):
        return i + version
    if pa.types.is_floating(t):
        return 0.5 * i
    if pa.types.is_boolean(t):
        return i % 2 == 0
    if pa.types.is_fixed_size_list(t):
        return [float(version)] * t.list_size
    if pa.types.is_list(t):
        return []
    return None


def chunk_rows(doc_id: str, n: int, version: int = 1, schema: pa.Schema = SCHEMAS["chunks"]) -> list[dict]:
    return [{f.name: _value(f, doc_id, i, version) for f in schema} for i in range(n)]


def write_docs(wh: Warehouse, docs: dict[str, int], version: int = 1, asset: str = "chunks") -> None:
    wh.write_tables(asset, {d: table_from_rows(asset, chunk_rows(d, n, version)) for d, n in docs.items()})


DOCS = {f"doc-{i:03d}": (i % 7) for i in range(60)}  # 0..6 rows each, some documents with none


def part_bytes(wh: Warehouse, asset: str = "chunks") -> dict[str, bytes]:
    folder = Path(wh.path("tables", asset).path)
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.parquet"))}


def parts_from_nothing(wh: Warehouse, root: Path) -> dict[str, bytes]:
    """The parts a compaction from nothing writes from ``wh``'s per-document
    ``chunks`` files (copied to a fresh warehouse under ``root``)."""
    fresh = Warehouse(root)
    shutil.copytree(wh.path("chunks").path, fresh.path("chunks").path)
    compact_asset(fresh, "chunks")
    return part_bytes(fresh)


def per_document(wh: Warehouse, asset: str = "chunks") -> str:
    return str(wh.path(asset)) + "/*.parquet"


# -- equivalence -----------------------------------------------------------------
def test_tables_hold_exactly_the_rows_of_the_per_document_files(tmp_path: Path):
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, DOCS)
    report = compact_asset(wh, "chunks")
    assert report.documents == len(DOCS) and sorted(report.changed) == sorted(DOCS)
    names = sorted(p.name for p in Path(wh.path("tables", "chunks").path).glob("*.parquet"))
    assert names == [part_name(p) for p in sorted({part_of(d) for d in DOCS})]

    order = "ORDER BY doc_id, chunk_index"
    one = duckdb.sql(f"SELECT * FROM '{per_document(wh)}' {order}").to_arrow_table()
    many = duckdb.sql(f"SELECT * FROM '{tables_glob(wh, 'chunks')}' {order}").to_arrow_table()
    assert many.num_rows == sum(DOCS.values())
    assert many.schema.names == SCHEMAS["chunks"].names
    assert many.equals(one)
    # each part: its documents in doc_id order, the asset's metadata
    for name in names:
        part = pq.read_table(Path(wh.path("tables", "chunks").path) / name)
        ids = part.column("doc_id").to_pylist()
        assert ids == sorted(ids) and {part_of(d) for d in ids} == {int(name[5:7])}
        assert part.schema.metadata[b"duocthu.asset"] == b"chunks"


def test_pandas_and_polars_read_the_tables_as_duckdb_does(tmp_path: Path):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, DOCS)
    compact_asset(wh, "chunks")
    folder = wh.path("tables", "chunks").path
    expected = duckdb.sql(f"SELECT doc_id, chunk_id, text FROM '{per_document(wh)}' ORDER BY doc_id, chunk_index").fetchall()

    frame = pd.read_parquet(folder, columns=["doc_id", "chunk_id", "chunk_index", "text"])  # the folder: parts only
    frame = frame.sort_values(["doc_id", "chunk_index"])
    assert list(frame[["doc_id", "chunk_id", "text"]].itertuples(index=False, name=None)) == expected

    lazy = pl.scan_parquet(tables_glob(wh, "chunks")).sort(["doc_id", "chunk_index"]).select(["doc_id", "chunk_id", "text"])
    assert lazy.collect().rows() == expected


# -- determinism, incremental, removal --------------------------------------------
def test_incremental_compaction_gives_the_bytes_of_one_from_nothing(tmp_path: Path):
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, DOCS)
    compact_asset(wh, "chunks")
    before = part_bytes(wh)

    replaced, added, removed = ["doc-005", "doc-040"], {"doc-900": 3, "doc-901": 0}, ["doc-013", "doc-027"]
    write_docs(wh, {d: DOCS[d] + 2 for d in replaced}, version=2)
    write_docs(wh, added)
    for d in removed:
        assert wh.remove("chunks", d)
    report = compact_asset(wh, "chunks")
    touched = {part_of(d) for d in [*replaced, *added, *removed]}
    assert set(report.parts_written) == touched
    assert sorted(report.changed) == sorted([*replaced, *added]) and report.gone == ["doc-013", "doc-027"]
    after = part_bytes(wh)
    assert {n for n in after if after[n] != before.get(n)} <= {part_name(p) for p in touched}

    # nothing changed: nothing rewritten
    assert compact_asset(wh, "chunks").parts_written == []

    # the same per-document files compacted from nothing: the same bytes
    assert parts_from_nothing(wh, tmp_path / "fresh") == after

    rows = duckdb.sql(f"SELECT doc_id, count(*) FROM '{tables_glob(wh, 'chunks')}' GROUP BY doc_id").fetchall()
    counts = dict(rows)
    assert not set(removed) & set(counts)
    assert counts["doc-900"] == 3 and counts["doc-005"] == DOCS["doc-005"] + 2
    text = duckdb.sql(f"SELECT DISTINCT text FROM '{tables_glob(wh, 'chunks')}' WHERE doc_id = 'doc-040'").fetchall()
    assert all(t[0].endswith("v2") for t in text)


def test_a_part_whose_documents_all_left_is_emptied_not_deleted(tmp_path: Path):
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, {"only-one": 4})
    compact_asset(wh, "chunks")
    wh.remove("chunks", "only-one")
    report = compact_asset(wh, "chunks")
    assert report.gone == ["only-one"] and report.parts_written == [part_of("only-one")]
    # a reader that listed the part a moment before still opens it: zero rows, same columns
    assert duckdb.sql(f"SELECT count(*) FROM '{tables_glob(wh, 'chunks')}'").fetchall() == [(0,)]
    assert duckdb.sql(f"SELECT * FROM '{tables_glob(wh, 'chunks')}'").to_arrow_table().schema.names == SCHEMAS["chunks"].names


def test_losing_the_marker_rebuilds_every_part_to_the_same_bytes(tmp_path: Path):
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, DOCS)
    compact_asset(wh, "chunks")
    before = part_bytes(wh)
    os.unlink(wh.path("tables", "chunks", ".compacted").path)
    report = compact_asset(wh, "chunks")
    assert sorted(report.parts_written) == sorted({part_of(d) for d in DOCS})
    assert part_bytes(wh) == before


# -- atomicity -------------------------------------------------------------------
def test_a_crash_mid_compaction_leaves_every_part_whole_and_the_next_one_converges(tmp_path: Path, monkeypatch):
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, DOCS)
    compact_asset(wh, "chunks")
    before = part_bytes(wh)
    changed = [f"doc-{i:03d}" for i in range(0, 60, 3)]  # spread over many parts
    write_docs(wh, {d: 5 for d in changed}, version=2)

    real_replace, renames = os.replace, []

    def crash_on_second_part(src, dst, *args, **kwargs):
        if str(dst).endswith(".parquet") and "/tables/" in str(dst):
            renames.append(dst)
            if len(renames) == 2:
                raise KeyboardInterrupt("killed mid-compaction")
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", crash_on_second_part)
    with pytest.raises(KeyboardInterrupt):
        compact_asset(wh, "chunks")
    monkeypatch.setattr(os, "replace", real_replace)

    folder = Path(wh.path("tables", "chunks").path)
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")], "no temporary part stays behind"
    middle = part_bytes(wh)
    assert middle.keys() == before.keys()
    new_parts = [n for n in middle if middle[n] != before[n]]
    assert len(new_parts) == 1, "one part was renamed into place before the crash, the others are the previous ones"
    # every document whole: all its rows of one version
    versions = duckdb.sql(
        f"SELECT doc_id, count(DISTINCT right(text, 2)), count(*) FROM '{tables_glob(wh, 'chunks')}' GROUP BY doc_id"
    ).fetchall()
    for doc_id, distinct_versions, n in versions:
        assert distinct_versions == 1
        assert n == (5 if doc_id in changed and part_name(part_of(doc_id)) in new_parts else DOCS[doc_id])

    compact_asset(wh, "chunks")  # the next compaction completes the rest
    assert part_bytes(wh) == parts_from_nothing(wh, tmp_path / "fresh")


def test_documents_whose_files_disagree_on_the_schema_are_named(tmp_path: Path):
    wh = Warehouse(tmp_path / "wh")
    for doc_id, dim in (("a", 4), ("b", 8)):
        schema = embeddings_schema(dim)
        wh.write_table("embeddings", pa.Table.from_pylist(chunk_rows(doc_id, 2, schema=schema), schema=schema), doc_id)
    with pytest.raises(CompactionError, match=r"embeddings: the file of '.*' has another schema .*column vector"):
        compact_asset(wh, "embeddings", parts=1)


def test_a_remote_warehouse_is_refused_by_the_compactor():
    with pytest.raises(CompactionError, match="local warehouse"):
        compact_asset(Warehouse("memory://wh"), "chunks")


def test_parts_are_spread_and_stable():
    assert part_of("formulary-duoc_thu_mau.pdf") == part_of("formulary-duoc_thu_mau.pdf")
    assert len({part_of(f"doc-{i}") for i in range(1000)}) == PARTS
    assert compaction.tables_glob(Warehouse("/w"), "chunks") == "/w/tables/chunks/*.parquet"


# -- through Dagster: `duocthu ingest`, the sensor, the refresh job ------------------
def _rows_by_document(table: pa.Table) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for row in table.to_pylist():
        out.setdefault(row["doc_id"], []).append(row)
    return out


def _assert_tables_match_files(warehouse: Path) -> dict[str, dict[str, list[dict]]]:
    seen = {}
    for asset in compaction.COMPACTED_ASSETS:
        files = duckdb.sql(f"SELECT * FROM '{warehouse}/{asset}/*.parquet'").to_arrow_table()
        parts = duckdb.sql(f"SELECT * FROM '{warehouse}/tables/{asset}/*.parquet'").to_arrow_table()
        assert parts.schema.names == files.schema.names, asset
        assert _rows_by_document(parts) == _rows_by_document(files), asset
        seen[asset] = _rows_by_document(parts)
    return seen


@pytest.mark.slow
def test_ingest_compacts_blocked_documents_stay_as_in_the_files_and_removed_ones_leave(tmp_path: Path, monkeypatch):
    import dagster as dg

    from duocthu_assets.assets import chunks as chunks_asset
    from duocthu_assets.automation import inbox_sensor
    from duocthu_assets.cli import main
    from duocthu_assets.definitions import build_definitions
    from duocthu_assets.runtime.instance import open_instance
    from duocthu_assets.jobs import INGEST_JOB, REFRESH_INDEX_JOB
    from duocthu_assets.resources import WarehouseResource

    from tests.support.docgen import make_docx

    bad = "b_bad.docx"
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    make_docx(inbox / "a_good.docx", [("Chỉ định", ["Vancomycin điều trị nhiễm khuẩn do tụ cầu kháng methicilin."])])
    make_docx(inbox / bad, [("Chống chỉ định", ["Quá mẫn với penicilin và cephalosporin."])])
    make_docx(inbox / "c_good.docx", [("Thận trọng", ["Suy thận: giảm liều gentamicin theo độ thanh thải."])])
    real_chunk_rows = chunks_asset.chunk_rows

    def corrupting_chunk_rows(doc_id, *args, **kwargs):
        rows = real_chunk_rows(doc_id, *args, **kwargs)
        if doc_id == bad:
            rows[0]["text"] = rows[0]["text"] + " 500 mg"  # changed after hashing: a blocking check fails
        return rows

    monkeypatch.setattr(chunks_asset, "chunk_rows", corrupting_chunk_rows)
    monkeypatch.setenv("DUOCTHU_INBOX", str(inbox))
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 1  # bad is blocked

    seen = _assert_tables_match_files(warehouse)
    assert bad in seen["chunks"] and bad not in seen["embeddings"]  # as in chunks/ and embeddings/: kept for review
    index = duckdb.sql(f"SELECT DISTINCT doc_id FROM '{warehouse}/search_index/index.parquet'").fetchall()
    assert sorted(d for (d,) in index) == ["a_good.docx", "c_good.docx"]  # the index still selects by the checks
    instance = open_instance(str(warehouse))
    event = instance.get_latest_materialization_event(dg.AssetKey("warehouse_tables"))
    assert event is not None and event.asset_materialization.metadata["documents_changed"].value > 0

    # a_good.docx leaves the inbox: the sensor marks it removed, its run, then the refresh job compacts
    (inbox / "a_good.docx").unlink()
    context = dg.build_sensor_context(instance=instance, resources={"warehouse": WarehouseResource(root=str(warehouse))})
    assert [r.partition_key for r in inbox_sensor(context).run_requests] == ["a_good.docx"]
    defs = build_definitions(str(warehouse))
    defs.resolve_job_def(INGEST_JOB).execute_in_process(instance=instance, partition_key="a_good.docx", raise_on_error=False)
    defs.resolve_job_def(REFRESH_INDEX_JOB).execute_in_process(instance=instance)

    seen = _assert_tables_match_files(warehouse)
    for asset in compaction.DERIVED:
        assert "a_good.docx" not in seen[asset], asset
    assert seen["raw_documents"]["a_good.docx"][0]["status"] == "removed"  # its raw row stays, as its file does


@pytest.mark.slow
def test_the_tables_check_fails_naming_the_asset_that_could_not_be_compacted(tmp_path: Path):
    import dagster as dg

    from duocthu_assets.assets.warehouse_tables import TABLES_MATCH_FILES, warehouse_tables
    from duocthu_assets.resources import WarehouseResource

    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, {"a": 2, "b": 3})
    resources = {"warehouse": WarehouseResource(root=str(tmp_path / "wh"))}
    result = dg.materialize([warehouse_tables], resources=resources)
    (evaluation,) = result.get_asset_check_evaluations()
    assert evaluation.check_name == TABLES_MATCH_FILES and evaluation.passed

    same_part = [d for d in (f"e{i}" for i in range(200)) if part_of(d) == part_of("e0")][:2]
    for doc_id, dim in zip(same_part, (4, 8)):  # embeddings of two models in one part: one table cannot hold both
        schema = embeddings_schema(dim)
        wh.write_table("embeddings", pa.Table.from_pylist(chunk_rows(doc_id, 2, schema=schema), schema=schema), doc_id)
    write_docs(wh, {"c": 1})
    result = dg.materialize([warehouse_tables], resources=resources)
    assert result.success  # the other assets are compacted all the same
    (evaluation,) = result.get_asset_check_evaluations()
    assert not evaluation.passed
    message = evaluation.metadata["message"].value
    assert message.startswith("embeddings: the file of ") and "column vector" in message
    assert evaluation.metadata["failed_assets"].value == ["embeddings"]
    counts = duckdb.sql(f"SELECT count(*) FROM '{tables_glob(wh, 'chunks')}'").fetchall()
    assert counts == [(6,)]  # a, b and the new c


# -- compaction of the documents an ingest built (``only``) ------------------------
def test_compacting_only_the_documents_built_lists_nothing_and_gives_the_same_bytes(tmp_path: Path, monkeypatch):
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, DOCS)
    compact_asset(wh, "chunks")
    replaced, added, removed = ["doc-005"], {"doc-900": 3}, ["doc-013"]
    write_docs(wh, {d: DOCS[d] + 2 for d in replaced}, version=2)
    write_docs(wh, added)
    assert wh.remove("chunks", removed[0])
    with monkeypatch.context() as patched:
        patched.setattr(compaction, "_document_files", lambda folder: pytest.fail("listed the folder"))
        report = compact_asset(wh, "chunks", only=[*replaced, *added, *removed])
    assert report.changed == ["doc-005", "doc-900"] and report.gone == ["doc-013"]
    assert set(report.parts_written) == {part_of(d) for d in ["doc-005", "doc-900", "doc-013"]}
    assert part_bytes(wh) == parts_from_nothing(wh, tmp_path / "fresh")


def test_a_change_outside_only_is_taken_in_by_the_next_full_compaction(tmp_path: Path):
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, DOCS)
    compact_asset(wh, "chunks")
    write_docs(wh, {"doc-005": 9}, version=3)  # written by another process, not named below
    write_docs(wh, {"doc-900": 2})
    report = compact_asset(wh, "chunks", only=["doc-900"])
    assert report.changed == ["doc-900"]
    rows = duckdb.sql(f"SELECT count(*) FROM '{tables_glob(wh, 'chunks')}' WHERE doc_id = 'doc-005'").fetchall()[0][0]
    assert rows == DOCS["doc-005"]  # not looked at: the tables still hold its earlier rows ...
    report = compact_asset(wh, "chunks")  # ... until a compaction lists the folder: the marker kept its time
    assert "doc-005" in report.changed
    rows = duckdb.sql(f"SELECT count(*) FROM '{tables_glob(wh, 'chunks')}' WHERE doc_id = 'doc-005'").fetchall()[0][0]
    assert rows == 9


def test_a_document_without_rows_is_not_read_again_when_its_part_is_rewritten(tmp_path: Path, monkeypatch):
    wh = Warehouse(tmp_path / "wh")
    write_docs(wh, DOCS)
    compact_asset(wh, "chunks")
    empty = [d for d, n in DOCS.items() if n == 0]
    # a new document in the part of each empty one: those parts are rewritten
    added = {}
    for doc_id in empty:
        new = next(f"new-{i}" for i in range(10_000) if part_of(f"new-{i}") == part_of(doc_id) and f"new-{i}" not in added)
        added[new] = 2
    write_docs(wh, added)
    read = []
    original = compaction._read_table
    monkeypatch.setattr(compaction, "_read_table", lambda path: read.append(os.path.basename(path)) or original(path))
    for only in (list(added), None):  # as the ingest compacts (only=), and with a full listing
        read.clear()
        report = compact_asset(wh, "chunks", only=only)
        assert not {f"{d}.parquet" for d in empty} & set(read)
        if only is not None:
            assert set(report.parts_written) == {part_of(d) for d in empty} and sorted(report.changed) == sorted(added)
            assert report.documents == len(DOCS) + len(added)  # the empty ones are still held
        write_docs(wh, {d: 1 for d in added}, version=2)  # changed again for the full listing's round
    write_docs(wh, {empty[0]: 2}, version=3)  # an empty document that gains rows is read, and its rows land
    compact_asset(wh, "chunks")
    rows = duckdb.sql(f"SELECT count(*) FROM '{tables_glob(wh, 'chunks')}' WHERE doc_id = '{empty[0]}'").fetchall()[0][0]
    assert rows == 2
    assert part_bytes(wh) == parts_from_nothing(wh, tmp_path / "fresh")
