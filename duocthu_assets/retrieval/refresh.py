"""Refreshing the search index from the warehouse.

:func:`refresh_search_index` brings ``search_index/`` (a manifest and parts,
:mod:`.layout`) up to date with the documents the caller names (those whose
checks passed): a document whose chunks and embeddings files are byte for
byte those its rows were built from (their sha256, against the manifest's
``sources``) is not read; only the parts holding a new, changed or departed
document are rewritten (their unchanged documents' rows taken from the part
file as they are), then the manifest. Each changed document's embeddings
are verified against its current chunks (:mod:`.document_rows`); a
document that does not match is left out and named in the manifest
(:func:`.info.read_index_info`), never silently. The files are
byte-identical to a refresh from nothing of the same warehouse.

Nothing here imports Dagster.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ..compaction import part_of, split_by_document
from ..warehouse import SchemaVersionError, Warehouse, encode_parquet
from .digests import FileDigests
from .document_rows import assembled, document_rows, read_document
from .info import IndexInfo, index_info
from .layout import (
    INDEX_ASSET,
    PARTS,
    LayoutError,
    Manifest,
    assign_parts,
    by_part,
    encode_part_table,
    manifest_path,
    part_key,
    part_path,
    part_schema,
    parts_on_disk,
    read_manifest,
    read_part,
)

LEGACY_LEXICAL = "lexical.parquet"


@dataclass
class IndexRefresh:
    """What a refresh did."""

    info: IndexInfo
    changed: list[str] = field(default_factory=list)  # documents whose rows were built from their files
    gone: list[str] = field(default_factory=list)  # documents the index held and no longer holds
    parts_written: list[int] = field(default_factory=list)
    parts_removed: list[int] = field(default_factory=list)
    manifest_written: bool = False


@contextlib.contextmanager
def _refresh_lock(warehouse: Warehouse) -> Iterator[None]:
    """One refresh at a time per local warehouse (an object store has no
    lock; there the last manifest written wins)."""
    if not warehouse.is_local:
        yield
        return
    folder = warehouse.path(INDEX_ASSET).path
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, ".refresh.lock"), "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _previous_manifest(warehouse: Warehouse, model_id: str, parts: int) -> Manifest | None:
    """The manifest on disk, if its parts can be reused (same model, same
    number of parts); None otherwise (every part is built again)."""
    try:
        manifest = read_manifest(warehouse)
    except (LayoutError, SchemaVersionError, ValueError, KeyError):
        return None
    if manifest is None or manifest.model_id != model_id or manifest.parts != parts:
        return None
    return manifest


def refresh_search_index(
    warehouse: Warehouse,
    included_doc_ids: Iterable[str],
    *,
    model_id: str | None = None,
    reuse: bool = True,
    parts: int = PARTS,
) -> IndexRefresh:
    """Bring ``search_index/`` up to date with ``included_doc_ids`` (the
    caller decides which documents passed their checks); see the module
    docstring.

    A document is left out, with its reason in the manifest's ``excluded``,
    when its chunks or embeddings file is missing or unreadable, when the
    embeddings do not match the current chunks (chunk_ids and
    content_hashes), or when it was embedded with another model than
    ``model_id`` (default: the model most documents used; then nothing is
    reused). ``reuse=False`` builds every part from the files.
    """
    with _refresh_lock(warehouse):
        return _refresh(warehouse, sorted(set(included_doc_ids)), model_id, reuse, parts)


def _refresh(warehouse: Warehouse, requested: list[str], model_id: str | None, reuse: bool, parts: int) -> IndexRefresh:
    previous = _previous_manifest(warehouse, model_id, parts) if (model_id and reuse) else None
    digests = FileDigests(warehouse)
    unchanged: dict[str, str] = {}  # doc_id -> sources, rows kept from its part
    held = _HeldRows()  # changed documents' rows, made as their files are read, part by part
    excluded: dict[str, str] = {}
    sources: dict[str, str] = {}
    for doc_id in sorted(requested, key=lambda d: (part_of(d, parts), d)):
        if previous is not None and doc_id in previous.documents:
            fingerprint = _fingerprint(warehouse, doc_id, digests)
            if fingerprint is not None and fingerprint == previous.documents[doc_id][2]:
                unchanged[doc_id] = sources[doc_id] = fingerprint
                continue
        sources[doc_id], read = read_document(warehouse, doc_id)
        if isinstance(read, str):
            excluded[doc_id] = read
        else:
            rows = document_rows(read, read.model_id, read.dim) if read.model_id else None  # with its own model and dim
            held.add(part_of(doc_id, parts), doc_id, read.model_id, read.dim, rows)
        _fingerprint(warehouse, doc_id, digests)  # remembered: the next refresh stats the files, not hashes them
    held.done()
    digests.save()

    if model_id is None:
        counts = Counter(model for model, _ in held.kind.values() if model)
        model_id = min(counts, key=lambda m: (-counts[m], m)) if counts else ""
    dims = Counter(d for model, d in held.kind.values() if model == model_id)
    if unchanged and previous is not None and previous.dim:
        if dims and set(dims) != {previous.dim}:  # cannot happen with one model; rebuild rather than mix
            return _refresh(warehouse, requested, model_id, False, parts)
        dim = previous.dim
    else:
        dim = min(dims, key=lambda d: (-dims[d], d)) if dims else (previous.dim if previous is not None and unchanged else 0)

    fresh: dict[str, int] = {}  # doc_id -> its rows, for the documents indexed from their files
    for doc_id, (model, doc_dim) in held.kind.items():
        if model and (model != model_id or doc_dim != dim):
            excluded[doc_id] = f"embedded with {model} (dim {doc_dim}); the index uses {model_id} (dim {dim})"
            continue
        fresh[doc_id] = held.rows[doc_id]

    included = {**unchanged, **{d: sources[d] for d in fresh}}
    where = assign_parts(included, parts)
    grouped = by_part(where)
    before = previous.documents if previous is not None else {}
    gone = sorted(d for d in before if d not in included)
    if previous is not None and set(previous.part_keys) - set(parts_on_disk(warehouse)):
        return _refresh(warehouse, requested, model_id, False, parts)  # a part file was lost: build them all
    if previous is None:
        affected = set(grouped)
    else:
        affected = {where[d] for d in fresh} | {before[d][0] for d in gone}
    part_keys = dict(previous.part_keys) if previous is not None else {}
    files: dict[Any, bytes] = {}
    written: list[int] = []
    for part in sorted(affected):
        docs = grouped.get(part, [])
        part_keys.pop(part, None)
        if not docs:
            continue
        pieces = held.pieces(part, model_id, dim, {d for d in docs if d in fresh})
        kept = [d for d in docs if d not in fresh]
        if kept:
            try:
                old = split_by_document(read_part(warehouse, part, previous.part_keys[part]))
            except (LayoutError, KeyError, ValueError, RuntimeError):
                return _refresh(warehouse, requested, model_id, False, parts)
            empty = part_schema(dim).empty_table()
            pieces.update({d: old.get(d, empty) for d in kept})
        key = part_key(model_id, dim, ((d, included[d]) for d in docs))
        part_keys[part] = key
        files[part_path(warehouse, part)] = encode_part_table(assembled(pieces, dim), part, key, model_id, dim)
        written.append(part)

    manifest = Manifest(
        model_id=model_id,
        dim=dim,
        parts=parts,
        part_keys=part_keys,
        documents={d: (where[d], fresh[d] if d in fresh else before[d][1], included[d]) for d in included},
        excluded=excluded,
        excluded_sources={d: sources[d] for d in excluded},
    )
    warehouse.write_many_bytes_atomic(files)
    encoded = encode_parquet(manifest.table())
    target = manifest_path(warehouse)
    try:
        same = target.read_bytes() == encoded
    except FileNotFoundError:
        same = False
    if not same:
        warehouse.write_bytes_atomic(target, encoded)
    with contextlib.suppress(FileNotFoundError):
        warehouse.path(INDEX_ASSET, LEGACY_LEXICAL).unlink()  # layout 1's terms file
    removed = []
    for part, path in sorted(parts_on_disk(warehouse).items()):
        if part not in part_keys:  # emptied, or from another layout: only after the manifest no longer names it
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            removed.append(part)
    return IndexRefresh(index_info(manifest), sorted(fresh), gone, written, removed, not same)


class _HeldRows:
    """Changed documents' rows until their parts are written, one table per
    part and (model, dim), joined as soon as the part's documents are read. A
    small table of its own costs a document ~55 KB whatever its rows (2,000
    tiny documents' rows: 110 MB): held so, with the files' tables they were
    made from, they kept an ingest's main process at 1.39 GB at the end of
    its first refresh of 10,000 documents."""

    def __init__(self) -> None:
        self.kind: dict[str, tuple[str, int]] = {}  # doc_id -> its model ("": no chunks) and dim
        self.rows: dict[str, int] = {}
        self._tables: dict[tuple[int, str, int], tuple[list[str], pa.Table]] = {}
        self._pending: dict[str, pa.Table] = {}
        self._part: int | None = None

    def add(self, part: int, doc_id: str, model: str, dim: int, rows: pa.Table | None) -> None:
        """A document's rows; the documents of a part come one after another."""
        if part != self._part:
            self.done()
            self._part = part
        self.kind[doc_id] = (model, dim)
        self.rows[doc_id] = rows.num_rows if rows is not None else 0
        if rows is not None and rows.num_rows:
            self._pending[doc_id] = rows

    def done(self) -> None:
        groups: dict[tuple[str, int], list[str]] = {}
        for doc_id in sorted(self._pending):
            groups.setdefault(self.kind[doc_id], []).append(doc_id)
        for (model, dim), docs in groups.items():
            table = pa.concat_tables([self._pending[d] for d in docs]).combine_chunks()
            self._tables[(self._part, model, dim)] = (docs, table)
        self._pending = {}

    def pieces(self, part: int, model: str, dim: int, wanted: set[str]) -> dict[str, pa.Table]:
        """The rows of ``wanted`` (documents of ``part``), one slice each; an empty table for one without rows."""
        pieces = {d: part_schema(dim).empty_table() for d in wanted if not self.rows[d]}
        docs, table = self._tables.get((part, model, dim), ([], None))
        start = 0
        for doc_id in docs:
            if doc_id in wanted:
                pieces[doc_id] = table.slice(start, self.rows[doc_id])
            start += self.rows[doc_id]
        return pieces


def _fingerprint(warehouse: Warehouse, doc_id: str, digests: FileDigests | None = None) -> str | None:
    """``<sha256 of chunks file>:<sha256 of embeddings file>``, as recorded
    in the manifest's sources; None when either file is missing. A local
    file whose identity did not change since it was last hashed is not read
    again (:class:`~.digests.FileDigests`)."""
    digests = digests or FileDigests(warehouse)
    found = []
    for asset in ("chunks", "embeddings"):
        digest = digests.sha256(asset, doc_id)
        if digest is None:
            return None
        found.append(digest)
    return ":".join(found)
