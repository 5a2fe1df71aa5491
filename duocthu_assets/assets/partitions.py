"""The documents partitioning every per-document asset shares, and helpers
common to the asset modules."""

from __future__ import annotations

import dagster as dg
import pyarrow as pa

from ..inbox import Registry
from ..settings import Settings

documents = dg.DynamicPartitionsDefinition(name="documents")
"""Partition key = doc_id (see inbox.doc_id_for)."""

one_run_per_batch = dg.BackfillPolicy.single_run()
"""A backfill over many documents is one run, not a run per document."""


def settings_for(registry: Registry, doc_id: str) -> Settings:
    record = registry.records.get(doc_id)
    return record.resolved_settings() if record else Settings()


def rows(tables: dict[str, pa.Table], doc_id: str) -> list[dict]:
    table = tables.get(doc_id)
    return [] if table is None else table.to_pylist()

