"""The declared Arrow schema of every asset's Parquet files, and rows to tables.

Layout (a public contract; change it only with a schema_version bump):
``<warehouse>/<asset>/<doc_id>.parquet`` for partitioned assets,
``<warehouse>/search_index/index.parquet`` for the index,
``<warehouse>/crops/<doc_id>/<block_id>.png``, and source bytes in the
content-addressed store ``<warehouse>/sources/<sha256[:2]>/<sha256>``
(:mod:`.warehouse` writes and reads them).

Every row has ``schema_version`` and every file carries it (with the asset
name) in its Parquet key-value metadata.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import pyarrow as pa

SCHEMA_VERSION_KEY = b"duocthu.schema_version"
ASSET_KEY = b"duocthu.asset"

_bbox = pa.list_(pa.float64(), 4)
_strings = pa.list_(pa.string())

SCHEMAS: dict[str, pa.Schema] = {
    "raw_documents": pa.schema(
        [
            ("doc_id", pa.string()),
            ("source_name", pa.string()),  # path under the ingest root, as the user sees it
            ("collection", pa.string()),
            ("profile", pa.string()),
            ("normalization", pa.string()),
            ("sha256", pa.string()),
            ("size_bytes", pa.int64()),
            ("format", pa.string()),
            ("page_count", pa.int32()),  # pages (PDF), sheets (XLSX), 0 otherwise
            ("status", pa.string()),  # accepted | rejected | removed
            ("reason", pa.string()),
            ("stored_path", pa.string()),  # relative to the warehouse
            ("schema_version", pa.int32()),
        ]
    ),
    "parsed_documents": pa.schema(
        [
            ("doc_id", pa.string()),
            ("status", pa.string()),  # ok | rejected | failed
            ("reason", pa.string()),
            ("format", pa.string()),
            ("page_count", pa.int32()),
            ("pages_needing_ocr", pa.list_(pa.int32())),
            ("segment_count", pa.int32()),
            ("block_count", pa.int32()),
            ("canonical_text", pa.large_string()),
            ("canonical_sha256", pa.string()),
            ("warnings", _strings),
            # PDF character accounting (issue 16): whitespace aside, every character of
            # the text layer is in prose, in a lifted block, in furniture or an unmapped glyph
            ("chars_in", pa.int64()),
            ("chars_prose", pa.int64()),
            ("chars_blocks", pa.int64()),
            ("chars_furniture", pa.int64()),
            ("chars_unmapped", pa.int64()),
            (
                "page_accounts",
                pa.list_(
                    pa.struct(
                        [
                            ("page_no", pa.int32()),
                            ("chars_in", pa.int32()),
                            ("prose", pa.int32()),
                            ("blocks", pa.int32()),
                            ("furniture", pa.int32()),
                            ("unmapped", pa.int32()),
                            ("missing", pa.int32()),
                            ("duplicated", pa.int32()),
                        ]
                    )
                ),
            ),
            (
                "furniture",
                pa.list_(pa.struct([("page_no", pa.int32()), ("kind", pa.string()), ("text", pa.string()), ("bbox", _bbox)])),
            ),
            ("page_labels", _strings),  # per physical page, the printed label ("" when none)
            ("schema_version", pa.int32()),
        ]
    ),
    "segments": pa.schema(
        [
            ("doc_id", pa.string()),
            ("segment_id", pa.string()),
            ("kind", pa.string()),
            ("text", pa.string()),
            ("level", pa.int32()),
            ("headings", _strings),
            ("entry_id", pa.string()),
            ("entry_title", pa.string()),
            ("section_key", pa.string()),
            ("section_title", pa.string()),
            ("section_index", pa.int32()),
            ("page_no", pa.int32()),
            ("printed_page", pa.int32()),
            ("printed_label", pa.string()),
            ("bbox", _bbox),
            ("source_ref", pa.string()),
            ("offset", pa.int64()),
            ("length", pa.int64()),
            ("schema_version", pa.int32()),
        ]
    ),
    "lifted_blocks": pa.schema(
        [
            ("doc_id", pa.string()),
            ("block_id", pa.string()),
            ("kind", pa.string()),
            ("shape", pa.string()),
            ("page_no", pa.int32()),
            ("printed_page", pa.int32()),
            ("printed_label", pa.string()),
            ("bbox", _bbox),
            ("entry_id", pa.string()),
            ("entry_title", pa.string()),
            ("section_key", pa.string()),
            ("section_title", pa.string()),
            ("section_index", pa.int32()),
            ("headings", _strings),
            ("text", pa.string()),
            ("anchor_segment_id", pa.string()),
            ("continues", pa.string()),
            ("quarantined", pa.bool_()),
            ("header_row", _strings),
            ("schema_version", pa.int32()),
        ]
    ),
    "crops": pa.schema(
        [
            ("doc_id", pa.string()),
            ("block_id", pa.string()),
            ("path", pa.string()),  # relative to the warehouse
            ("sha256", pa.string()),
            ("width_px", pa.int32()),
            ("height_px", pa.int32()),
            ("dpi", pa.int32()),
            ("page_no", pa.int32()),
            ("printed_page", pa.int32()),
            ("printed_label", pa.string()),
            ("schema_version", pa.int32()),
        ]
    ),
    "chunks": pa.schema(
        [
            ("doc_id", pa.string()),
            ("chunk_id", pa.string()),
            ("chunk_index", pa.int32()),
            ("chunk_kind", pa.string()),
            ("text", pa.string()),
            ("token_count", pa.int32()),
            ("entry_id", pa.string()),
            ("entry_title", pa.string()),
            ("section_key", pa.string()),
            ("section_title", pa.string()),
            ("section_index", pa.int32()),
            ("headings", _strings),
            ("spans", pa.list_(pa.struct([("offset", pa.int64()), ("length", pa.int64())]))),
            (
                "regions",
                pa.list_(pa.struct([("page_no", pa.int32()), ("printed_page", pa.int32()), ("bbox", _bbox), ("printed_label", pa.string())])),
            ),
            ("source_elements", _strings),
            ("prev_chunk_id", pa.string()),
            ("next_chunk_id", pa.string()),
            ("content_hash", pa.string()),
            (
                "attachments",
                pa.list_(
                    pa.struct(
                        [
                            ("block_id", pa.string()),
                            ("kind", pa.string()),
                            ("shape", pa.string()),
                            ("physical_page", pa.int32()),
                            ("printed_page", pa.int32()),
                            ("bbox", _bbox),
                            ("quarantined", pa.bool_()),
                            ("header_row", _strings),
                            ("source_crop", pa.string()),
                            ("printed_label", pa.string()),
                        ]
                    )
                ),
            ),
            ("has_quarantined_content", pa.bool_()),
            ("schema_version", pa.int32()),
        ]
    ),
}


def embeddings_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            ("doc_id", pa.string()),
            ("chunk_id", pa.string()),
            ("content_hash", pa.string()),
            ("model_id", pa.string()),
            ("dim", pa.int32()),
            ("vector", pa.list_(pa.float32(), dim)),
            ("schema_version", pa.int32()),
        ]
    )


def table_from_rows(asset: str, rows: Iterable[Mapping[str, Any]], schema: pa.Schema | None = None) -> pa.Table:
    """Rows (dicts) to a table of the asset's declared schema; a missing or
    extra column is an error, not a silent drop."""
    schema = schema or SCHEMAS[asset]
    rows = list(rows)
    names = set(schema.names)
    for row in rows:
        if set(row) != names:
            missing, extra = names - set(row), set(row) - names
            raise ValueError(f"{asset}: row does not match the schema (missing {sorted(missing)}, extra {sorted(extra)})")
    return pa.Table.from_pylist(rows, schema=schema)


def first_row(table: pa.Table | None) -> dict[str, Any] | None:
    """The first row of a one-row-per-document table, or None."""
    if table is None or table.num_rows == 0:
        return None
    return table.slice(0, 1).to_pylist()[0]


def empty_table(asset: str) -> pa.Table:
    return SCHEMAS[asset].empty_table()
