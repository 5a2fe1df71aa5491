"""The Parquet columns are a public contract: each asset's Arrow schema (now
generated from the records in ``model.py``) must equal its golden file here,
field by field — name, type, list child name, nullability, order.

A deliberate change (with a schema_version bump) regenerates them:

    DUOCTHU_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/warehouse/test_schema_golden.py
"""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

from duocthu_assets.schemas import SCHEMAS, embeddings_schema

from tests.support.paths import REPO

GOLDEN = REPO / "tests" / "golden" / "schemas"
ASSETS = {**SCHEMAS, "embeddings": embeddings_schema(384)}


def _type_name(t: pa.DataType) -> str:
    if pa.types.is_fixed_size_list(t):
        return f"fixed_size_list[{t.list_size}]"
    if pa.types.is_large_list(t):
        return "large_list"
    if pa.types.is_list(t):
        return "list"
    if pa.types.is_struct(t):
        return "struct"
    return str(t)


def _lines(field: pa.Field, depth: int = 0) -> list[str]:
    out = [f"{'  ' * depth}{field.name}: {_type_name(field.type)}{'' if field.nullable else ' not null'}"]
    t = field.type
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        out += _lines(t.value_field, depth + 1)
    elif pa.types.is_struct(t):
        for k in range(t.num_fields):
            out += _lines(t.field(k), depth + 1)
    return out


def render(schema: pa.Schema) -> str:
    meta = schema.metadata or {}
    lines = [line for f in schema for line in _lines(f)]
    lines += [f"metadata {k!r}: {v!r}" for k, v in sorted(meta.items())]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("asset", sorted(ASSETS))
def test_schema_equals_its_golden_file(asset):
    path = GOLDEN / f"{asset}.txt"
    text = render(ASSETS[asset])
    if os.environ.get("DUOCTHU_REGENERATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}: regenerate deliberately (see this module's docstring)"
    assert text == path.read_text(encoding="utf-8"), f"{asset}'s Parquet columns changed — a public contract (schema_version)"


def test_every_asset_has_a_golden_file_and_no_stale_one():
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == sorted(ASSETS)


def test_the_golden_check_fails_on_a_changed_column():
    changed = ASSETS["segments"].set(ASSETS["segments"].get_field_index("offset"), pa.field("offset", pa.int32()))
    assert render(changed) != (GOLDEN / "segments.txt").read_text(encoding="utf-8")
    widened = ASSETS["lifted_blocks"].append(pa.field("extra", pa.string()))
    assert render(widened) != (GOLDEN / "lifted_blocks.txt").read_text(encoding="utf-8")
