"""What the search index on disk holds, as its manifest says, and whether
it is current: built from exactly the given documents' chunks and
embeddings files as they are now.

Nothing here imports Dagster.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..warehouse import SchemaVersionError, Warehouse
from .digests import FileDigests
from .layout import LayoutError, Manifest, parts_on_disk, read_manifest


@dataclass(frozen=True)
class IndexInfo:
    model_id: str
    dim: int
    rows: int
    documents: tuple[str, ...]
    excluded: dict[str, str]
    sources: dict[str, str]
    parts_named: frozenset[int] = frozenset()  # the part files the manifest names


def index_info(manifest: Manifest) -> IndexInfo:
    return IndexInfo(
        manifest.model_id, manifest.dim, manifest.rows, tuple(sorted(manifest.documents)), manifest.excluded, manifest.sources,
        frozenset(manifest.part_keys),
    )


def read_index_info(warehouse: Warehouse) -> IndexInfo | None:
    """What the manifest says (None: no index, or one this code cannot read)."""
    try:
        manifest = read_manifest(warehouse)
    except (LayoutError, SchemaVersionError, ValueError, KeyError):
        return None
    return index_info(manifest) if manifest is not None else None


def index_is_current(warehouse: Warehouse, included_doc_ids: Iterable[str]) -> bool:
    """True when the index was built from exactly these documents' current
    chunks and embeddings files (byte for byte), so a refresh would change
    nothing."""
    info = read_index_info(warehouse)
    if info is None:
        return False
    requested = sorted(set(included_doc_ids))
    if sorted(info.sources) != requested:
        return False
    if not info.parts_named <= set(parts_on_disk(warehouse)):
        return False
    digests = FileDigests(warehouse)
    try:
        for doc_id in requested:
            fps = [digests.sha256(asset, doc_id) or "missing" for asset in ("chunks", "embeddings")]
            if info.sources[doc_id] != ":".join(fps):
                return False
        return True
    finally:
        digests.save()
