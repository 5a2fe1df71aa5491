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

from .model import (
    SCHEMA_VERSION,
    Chunk,
    ChunkAttachment,
    LiftedBlock,
    Region,
    Segment,
    Span,
)


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
    return _from_row(Segment, row)


def block_from_row(row: dict[str, Any]) -> LiftedBlock:
    return _from_row(LiftedBlock, row)


def chunk_from_row(row: dict[str, Any]) -> Chunk:
    values = _known(Chunk, row)
    values["spans"] = tuple(Span(**s) for s in row["spans"])
    values["regions"] = tuple(Region(s["page_no"], s["printed_page"], tuple(s["bbox"]), s.get("printed_label") or "") for s in row["regions"])
    values["attachments"] = tuple(
        ChunkAttachment(**{**a, "bbox": tuple(a["bbox"]), "header_row": tuple(a["header_row"])}) for a in row["attachments"]
    )
    values["headings"] = tuple(row["headings"])
    values["source_elements"] = tuple(row["source_elements"])
    return Chunk(**values)


def _known(cls: type, row: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in row.items() if k in names}


def _from_row(cls: type, row: dict[str, Any]) -> Any:
    values = _known(cls, row)
    hints = typing.get_type_hints(cls)
    for name, v in values.items():
        if isinstance(v, list):
            values[name] = tuple(v)
        elif isinstance(hints.get(name), type) and issubclass(hints[name], Enum):
            values[name] = hints[name](v)
    return cls(**values)
