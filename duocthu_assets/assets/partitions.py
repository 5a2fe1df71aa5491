"""The documents partitioning every per-document asset shares, and helpers
common to the asset modules."""

from __future__ import annotations

import dagster as dg
import pyarrow as pa

from ..schemas import first_row
from ..settings import Settings, row_settings

documents = dg.DynamicPartitionsDefinition(name="documents")
"""Partition key = doc_id (see inbox/scan.doc_id_for)."""

one_run_per_batch = dg.BackfillPolicy.single_run()
"""A backfill over many documents is one run, not a run per document."""


def settings_of(raw_documents: dict[str, pa.Table], doc_id: str) -> Settings:
    """The settings the document is built with: the struct on its
    raw_documents row (the upstream every per-document asset reads)."""
    return row_settings(first_row(raw_documents.get(doc_id)))


def rows(tables: dict[str, pa.Table], doc_id: str) -> list[dict]:
    table = tables.get(doc_id)
    return [] if table is None else table.to_pylist()

