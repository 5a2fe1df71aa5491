"""The names of the indexed documents, for citations and for answers: each
document's identity as read at ingest (``raw_documents.identity``: title,
number, kind, aliases), else its file name; a document that prints no number is also named by the
number its file name gives (:func:`file_number`). Read once per loaded index.

Nothing here imports Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

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
        named = DocumentNames.from_identity(doc_id, identity, fallback=source or doc_id)
        filed = file_number(source)
        if filed and not named.number:  # a number the document does not print, but its file name gives
            named = replace(named, names=(*named.names, filed))
        names[doc_id] = named
    return names


_FILE_NUMBER = re.compile(r"(?:^|__|[^\w])(\d{1,4})-((?:19|20)\d\d)-[a-z]{1,5}(?:-[a-z]{1,5})?(?:\.|$)", re.IGNORECASE)


def file_number(source: str) -> str:
    """``50/2026`` of a file named ``diepxuan__50-2026-ND-CP.pdf``: how a
    document whose printed number is blank (Decree 50/2026 prints ``Số:
    /2026/NĐ-CP``) is still named by its number in a question; used to match
    a query, never shown as the document's number. "" when the name holds none."""
    found = _FILE_NUMBER.search(source or "")
    return f"{int(found.group(1))}/{found.group(2)}" if found else ""
