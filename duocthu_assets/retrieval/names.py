"""The names of the indexed documents, for citations and for answers: each
document's identity as read at ingest (``raw_documents.identity``: title,
number, kind, aliases), else its file name. Read once per loaded index.

Nothing here imports Dagster.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

from ..warehouse import SchemaVersionError, Warehouse
from .citation import DocumentNames


def document_names(warehouse: Warehouse, doc_ids: Iterable[str]) -> dict[str, DocumentNames]:
    """:class:`~.citation.DocumentNames` of every document (a document
    whose raw_documents row cannot be read is named by its doc_id)."""
    names = {}
    for doc_id in doc_ids:
        identity, source = None, ""
        try:
            table = warehouse.read_table("raw_documents", doc_id)
        except (SchemaVersionError, OSError, pa.ArrowException):
            table = None
        if table is not None and table.num_rows:
            row = table.slice(0, 1).to_pylist()[0]
            identity, source = row.get("identity"), row.get("source_name") or ""
        names[doc_id] = DocumentNames.from_identity(doc_id, identity, fallback=source or doc_id)
    return names
