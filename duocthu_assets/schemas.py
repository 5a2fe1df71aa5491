"""The Arrow schema of every asset's Parquet files, generated from the
records of :mod:`.model` (one definition per row; ``tests/golden/schemas``
holds each schema as it must stay), and rows to tables.

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

import dataclasses
import types
import typing
from enum import Enum
from typing import Any, Iterable, Mapping

import pyarrow as pa

from .settings.pdf import PdfSettings
from .model import Chunk, CropRow, EmbeddingRow, LiftedBlock, ParsedDocumentRow, RawDocumentRow, Segment

SCHEMA_VERSION_KEY = b"duocthu.schema_version"
ASSET_KEY = b"duocthu.asset"

_ASSETS: dict[str, type] = {
    "raw_documents": RawDocumentRow,
    "parsed_documents": ParsedDocumentRow,
    "segments": Segment,
    "lifted_blocks": LiftedBlock,
    "crops": CropRow,
    "chunks": Chunk,
}
"""Each per-document asset and the record (``model.py``) its rows are."""

_SCALARS: dict[Any, pa.DataType] = {str: pa.string(), int: pa.int32(), bool: pa.bool_(), float: pa.float64()}
_NAMED: dict[str, pa.DataType] = {"int64": pa.int64(), "large_string": pa.large_string()}


def _strip_none(hint: Any) -> Any:
    """``X | None`` is ``X`` (every column is nullable)."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


def _arrow_type(hint: Any, metadata: Mapping[str, Any], where: str, dim: int | None = None) -> pa.DataType:
    named = metadata.get("arrow")
    if named == "float32_vector":
        if dim is None:
            raise ValueError(f"{where}: a vector column needs the model's dimension")
        return pa.list_(pa.float32(), dim)
    if named is not None:
        return _NAMED[named]
    hint = _strip_none(hint)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return pa.string()
    if hint in _SCALARS:
        return _SCALARS[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and len(args) == 4 and all(a is float for a in args):  # BBox
        return pa.list_(pa.float64(), 4)
    if dataclasses.is_dataclass(hint):  # a nested record (the document's settings)
        return record_struct(hint)
    if origin in (tuple, list):
        item = args[0]
        if dataclasses.is_dataclass(item):
            return pa.list_(record_struct(item))
        return pa.list_(_arrow_type(item, {}, where))
    raise TypeError(f"{where}: no Arrow column for {hint!r}")


def _fields(cls: type, dim: int | None = None) -> list[pa.Field]:
    hints = typing.get_type_hints(cls, localns={"PdfSettings": PdfSettings})  # Settings names it without importing it
    out: list[pa.Field] = []
    placed: list[tuple[str, pa.Field]] = []
    for f in dataclasses.fields(cls):
        field = pa.field(f.name, _arrow_type(hints[f.name], f.metadata, f"{cls.__name__}.{f.name}", dim))
        if "after" in f.metadata:
            placed.append((f.metadata["after"], field))
        else:
            out.append(field)
    for anchor, field in placed:
        out.insert([g.name for g in out].index(anchor) + 1, field)
    return out


def record_struct(cls: type) -> pa.DataType:
    """The Arrow struct of a nested record (a span, region, attachment...)."""
    return pa.struct(_fields(cls))


def record_schema(cls: type, dim: int | None = None) -> pa.Schema:
    """The Arrow schema of a row of ``cls``: ``doc_id`` first, the record's
    fields in order, ``schema_version`` last."""
    fields = [f for f in _fields(cls, dim) if f.name != "doc_id"]
    return pa.schema([pa.field("doc_id", pa.string()), *fields, pa.field("schema_version", pa.int32())])


SCHEMAS: dict[str, pa.Schema] = {asset: record_schema(cls) for asset, cls in _ASSETS.items()}


def embeddings_schema(dim: int) -> pa.Schema:
    return record_schema(EmbeddingRow, dim)


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
