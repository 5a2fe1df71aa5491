"""Records to Parquet rows and back: one place that knows how a dataclass
becomes a row (enums as strings, tuples as lists, bboxes as 4 floats).

Checks and the chunker receive rows as plain dicts exactly as a reader of the
warehouse would (``pyarrow.Table.to_pylist()``), so a rule proven on rows holds
for what is stored.
"""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any

from .model import SCHEMA_VERSION, Chunk, LiftedBlock, Segment


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def to_row(record: Any, doc_id: str) -> dict[str, Any]:
    row = {"doc_id": doc_id, **_plain(record)}
    row["schema_version"] = SCHEMA_VERSION
    return row


def segment_from_row(row: dict[str, Any]) -> Segment:
    return from_row(Segment, row)


def block_from_row(row: dict[str, Any]) -> LiftedBlock:
    return from_row(LiftedBlock, row)


def chunk_from_row(row: dict[str, Any]) -> Chunk:
    return from_row(Chunk, row)


def from_row(cls: type, row: dict[str, Any]) -> Any:
    """A record from its row, guided by the record's type hints (the inverse
    of :func:`to_row`): enums from their values, lists as tuples, a list of
    nested records (spans, regions, attachments) as a tuple of them. Columns
    the record does not have (``doc_id``, ``schema_version``) are ignored;
    a field the row lacks keeps its default."""
    hints = typing.get_type_hints(cls)
    values = {f.name: _from_value(hints[f.name], row[f.name]) for f in dataclasses.fields(cls) if f.name in row}
    return cls(**values)


def _from_value(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if isinstance(value, list):
        args = typing.get_args(hint)
        item = args[0] if args else None
        if dataclasses.is_dataclass(item):
            return tuple(from_row(item, v) for v in value)
        return tuple(value)
    return value
