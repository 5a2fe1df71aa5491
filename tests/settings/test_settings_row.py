"""A document's settings in one hop: resolved once from its collection.toml
(and ``--profile``), stored as the typed ``settings`` struct on its
raw_documents row, read from that row by every later asset and check, and
shown on the row's materialization in the UI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from checks.adr0018 import document_settings
from duocthu_assets.settings.pdf import PdfSettings
from duocthu_assets.schemas import first_row, table_from_rows
from duocthu_assets.settings import CollectionSettingsError, Settings, collection_settings, row_settings
from duocthu_assets.sources import describe_source
from duocthu_assets.warehouse import Warehouse

CHOSEN = Settings(profile="legal", chunk_size=30, chunk_overlap=5, max_file_bytes=5 * 2**30, pdf={"heading_max_words": 3})


def _raw_table(wh: Warehouse, doc_id: str, settings: Settings):
    row = describe_source(wh, None, doc_id)  # a row without a record: defaults
    assert row_settings(row) == Settings()
    return table_from_rows("raw_documents", [{**row, "settings": settings.as_record()}])


def _parquet_bytes(table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def test_settings_survive_a_raw_documents_row_typed_and_byte_for_byte(tmp_path: Path):
    wh = Warehouse(str(tmp_path / "wh"))
    table = _raw_table(wh, "a.csv", CHOSEN)
    column = table.schema.field("settings").type
    assert column.field("chunk_size").type == "int32" and column.field("max_file_bytes").type == "int64"
    assert column.field("pdf").type.field("heading_max_words").type == "int32"
    assert _parquet_bytes(table) == _parquet_bytes(_raw_table(wh, "a.csv", CHOSEN))
    back = row_settings(first_row(pq.read_table(io.BytesIO(_parquet_bytes(table)))))
    assert back == CHOSEN and back.pdf == PdfSettings(heading_max_words=3)
    assert row_settings(None) == Settings()  # no row: the defaults


def test_the_checks_read_the_settings_off_the_row_not_the_registry(tmp_path: Path):
    wh = Warehouse(str(tmp_path / "wh"))
    assert document_settings(wh, "a.csv") is None  # no row yet
    wh.write_table("raw_documents", _raw_table(wh, "a.csv", CHOSEN), "a.csv")
    assert document_settings(wh, "a.csv") == CHOSEN  # there is no registry.json at all


def test_a_value_too_large_for_its_column_is_refused_with_the_file_named(tmp_path: Path):
    with pytest.raises(ValueError, match=r"max_sheet_cells 2147483648 is too large \(at most 2,147,483,647\)"):
        Settings(max_sheet_cells=2**31)
    assert Settings(max_file_bytes=2**33).max_file_bytes == 2**33  # byte limits are int64 columns
    (tmp_path / "collection.toml").write_text("memory_budget_mb = 3000000000\n")
    with pytest.raises(CollectionSettingsError, match=r"collection.toml has a setting .*memory_budget_mb 3000000000 is too large"):
        collection_settings(tmp_path)


# ------------------------------------------------------------------ through Dagster


def _spy_on_the_chunker(monkeypatch, log: Path) -> None:
    """Each call of the chunker appends (doc_id, chunk_size, pdf.heading_max_words)
    to ``log`` (a file: the chunker runs in a child process)."""
    from duocthu_assets.assets import chunks as chunks_asset

    real = chunks_asset.chunk_rows

    def spy(doc_id, segments, blocks, crops, settings):
        with log.open("a") as fh:
            fh.write(json.dumps([doc_id, settings.chunk_size, settings.pdf.heading_max_words]) + "\n")
        return real(doc_id, segments, blocks, crops, settings)

    monkeypatch.setattr(chunks_asset, "chunk_rows", spy)


def _seen(log: Path) -> list[list]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _row_settings(wh: Path, doc_id: str) -> Settings:
    return row_settings(first_row(Warehouse(str(wh)).read_table("raw_documents", doc_id)))


@pytest.mark.slow
def test_collection_toml_reaches_the_chunker_through_the_raw_documents_row(tmp_path: Path, monkeypatch):
    from duocthu_assets.cli import main
    from duocthu_assets.runtime.instance import open_instance

    folder = tmp_path / "inbox" / "drugs"
    folder.mkdir(parents=True)
    toml = folder / "collection.toml"
    toml.write_text("chunk_size = 20\nchunk_overlap = 5\n[pdf]\nheading_max_words = 3\n")
    (folder / "doses.csv").write_text("drug,dose\n" + "".join(f"drug {i},{i * 5} mg twice a day\n" for i in range(12)))
    wh, log = tmp_path / "wh", tmp_path / "chunker.jsonl"
    _spy_on_the_chunker(monkeypatch, log)
    report = tmp_path / "r.json"
    assert main(["ingest", str(tmp_path / "inbox"), "--warehouse", str(wh), "--report", str(report), "--quiet"]) == 0
    (doc,) = json.loads(report.read_text())["documents"]
    doc_id = doc["doc_id"]
    assert _row_settings(wh, doc_id).chunk_size == 20 and _row_settings(wh, doc_id).pdf.heading_max_words == 3
    assert _seen(log) == [[doc_id, 20, 3]]

    # the UI shows them on the document's raw_documents materialization
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    instance = open_instance(str(wh))
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey("raw_documents"), asset_partitions=[doc_id]), limit=1
    ).records
    shown = records[0].asset_materialization.metadata["settings"].value
    assert shown == _row_settings(wh, doc_id).as_record()
    assert shown["chunk_size"] == 20 and shown["pdf"]["heading_max_words"] == 3

    # the row, not the registry, is what the chunks asset reads: a row saying
    # 25 wins over the registry's 20
    warehouse = Warehouse(str(wh))
    raw = first_row(warehouse.read_table("raw_documents", doc_id))
    edited = _row_settings(wh, doc_id).replace(chunk_size=25)
    warehouse.write_table("raw_documents", table_from_rows("raw_documents", [{**raw, "settings": edited.as_record()}]), doc_id)
    from duocthu_assets.assets.chunks import chunks
    from duocthu_assets.assets.crops import crops
    from duocthu_assets.assets.parsing import parse_documents
    from duocthu_assets.assets.raw_documents import raw_documents
    from duocthu_assets.resources import ParquetWarehouseIOManager, WarehouseResource

    ephemeral = dg.DagsterInstance.ephemeral()
    ephemeral.add_dynamic_partitions("documents", [doc_id])
    resources = {"io_manager": ParquetWarehouseIOManager(root=str(wh)), "warehouse": WarehouseResource(root=str(wh))}
    result = dg.materialize([raw_documents, parse_documents, crops, chunks], selection=[chunks], partition_key=doc_id,
                            instance=ephemeral, resources=resources)
    assert result.success
    assert _seen(log)[-1] == [doc_id, 25, 3]

    # a changed collection.toml rebuilds the document with its new settings
    toml.write_text("chunk_size = 30\nchunk_overlap = 5\n")
    assert main(["ingest", str(tmp_path / "inbox"), "--warehouse", str(wh), "--quiet"]) == 0
    assert _row_settings(wh, doc_id).chunk_size == 30 and _row_settings(wh, doc_id).pdf == PdfSettings()
    assert _seen(log)[-1] == [doc_id, 30, PdfSettings().heading_max_words]
