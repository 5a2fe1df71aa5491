"""The search index: refreshing it from the warehouse, and holding it warm.

- :func:`refresh_search_index` brings ``search_index/`` (a manifest and
  parts, :mod:`.layout`) up to date with the documents the caller names
  (those whose checks passed): a document whose chunks and embeddings files
  are byte for byte those its rows were built from (their sha256, against
  the manifest's ``sources``) is not read; only the parts holding a new,
  changed or departed document are rewritten (their unchanged documents'
  rows taken from the part file as they are), then the manifest. Each
  changed document's embeddings are verified against its current chunks; a
  document that does not match is left out and named in the manifest
  (:func:`read_index_info`), never silently. The files are byte-identical
  to a refresh from nothing of the same warehouse.
- :class:`LoadedIndex` is the index in memory: every part's vectors as one
  L2-normalised float32 numpy matrix (exact cosine is one matrix-vector
  product), BM25 (:mod:`.lexical`) over the parts' persisted terms with
  collection-wide statistics, and the columns an answer needs.
  :func:`load_index` reads it, keeping the parts of a previously loaded
  index whose key did not change; :func:`file_stamp` says whether the
  manifest on disk is still the one loaded.

Nothing here imports Dagster.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..compaction import split_by_document
from ..warehouse import SchemaVersionError, Warehouse, encode_parquet
from .digests import FileDigests
from .layout import (
    CHUNK_COLUMNS,
    INDEX_ASSET,
    PARTS,
    LayoutError,
    Manifest,
    assign_parts,
    by_part,
    encode_part_table,
    index_schema,
    manifest_path,
    part_key,
    part_path,
    part_schema,
    parts_on_disk,
    read_manifest,
    read_part,
)

if TYPE_CHECKING:
    from .lexical import CollectionBM25, PartTerms

__all__ = ["INDEX_ASSET", "IndexInfo", "IndexRefresh", "LoadedIndex", "SearchError", "load_index", "refresh_search_index"]

search_index_schema = index_schema
LEGACY_LEXICAL = "lexical.parquet"


class SearchError(RuntimeError):
    """The index cannot answer (missing, or built with another model)."""


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


# -- one document's rows ---------------------------------------------------------


def _doc_problem(chunks: pa.Table, emb: pa.Table) -> str | None:
    """Why ``emb`` is not the embedding of ``chunks``, or None."""
    chunk_ids = chunks.column("chunk_id").to_pylist()
    emb_ids = emb.column("chunk_id").to_pylist()
    if len(set(chunk_ids)) != len(chunk_ids):
        return "chunks file has duplicate chunk_ids"
    if len(set(emb_ids)) != len(emb_ids):
        return "embeddings file has duplicate chunk_ids"
    if set(chunk_ids) != set(emb_ids):
        missing, extra = len(set(chunk_ids) - set(emb_ids)), len(set(emb_ids) - set(chunk_ids))
        return f"stale embeddings: {missing} chunks without a vector, {extra} vectors for chunks that no longer exist"
    stated = dict(zip(emb_ids, emb.column("content_hash").to_pylist()))
    changed = sum(1 for cid, h in zip(chunk_ids, chunks.column("content_hash").to_pylist()) if stated[cid] != h)
    if changed:
        return f"stale embeddings: {changed} chunks changed text since they were embedded"
    texts, hashes = chunks.column("text").to_pylist(), chunks.column("content_hash").to_pylist()
    bad = sum(1 for t, h in zip(texts, hashes) if hashlib.sha256((t or "").encode("utf-8")).hexdigest() != str(h).removeprefix("sha256:"))
    if bad:
        return f"{bad} chunks whose content_hash is not the sha256 of their text"
    if emb.num_rows:
        vtype = emb.schema.field("vector").type
        values = pc.list_flatten(emb.column("vector"))
        if emb.column("vector").null_count or not np.isfinite(values.to_numpy(zero_copy_only=False)).all():
            return "embeddings file has null or non-finite vectors"
        if not pa.types.is_fixed_size_list(vtype):
            return f"embeddings vector column is {vtype}, not a fixed-size list"
    return None


@dataclass(frozen=True)
class _Candidate:
    chunks: pa.Table
    emb: pa.Table
    model_id: str  # "" for a document without chunks
    dim: int


def _read_document(warehouse: Warehouse, doc_id: str) -> tuple[str, _Candidate | str]:
    """The document's sources and its files, or the reason it cannot be indexed."""
    try:
        chunks, chunks_fp = warehouse.read_table_and_sha256("chunks", doc_id)
        emb, emb_fp = warehouse.read_table_and_sha256("embeddings", doc_id)
    except (SchemaVersionError, OSError, pa.ArrowException) as exc:
        return "unreadable", f"unreadable: {exc}"
    sources = f"{chunks_fp}:{emb_fp}"
    if chunks is None:
        return sources, "no chunks file"
    if emb is None:
        return sources, "no embeddings file"
    problem = _doc_problem(chunks, emb)
    if problem:
        return sources, problem
    models = set(emb.column("model_id").to_pylist())
    if len(models) > 1:
        return sources, f"embeddings mix models: {sorted(models)}"
    if not models:  # a document without chunks: nothing to index, nothing lost
        return sources, _Candidate(chunks, emb, "", 0)
    return sources, _Candidate(chunks, emb, models.pop(), emb.schema.field("vector").type.list_size)


def document_rows(candidate: _Candidate, model_id: str, dim: int) -> pa.Table:
    """A document's part rows (:func:`.layout.part_schema`): its chunks in
    chunk_index order with their vectors and analyzed terms."""
    from .lexical import lexical_table

    chunks = candidate.chunks.sort_by([("chunk_index", "ascending")])
    position = {cid: i for i, cid in enumerate(candidate.emb.column("chunk_id").to_pylist())}
    take = pa.array([position[cid] for cid in chunks.column("chunk_id").to_pylist()], type=pa.int64())
    n = chunks.num_rows
    index_rows = pa.Table.from_arrays(
        [chunks.column(name) for name in index_schema(dim).names[:-4]]
        + [pa.array([model_id] * n, pa.string()), pa.array([dim] * n, pa.int32()), candidate.emb.column("vector").take(take).cast(pa.list_(pa.float32(), dim))],
        names=index_schema(dim).names[:-1],
    )
    terms = lexical_table(index_rows.column("doc_id").to_pylist(), index_rows.column("chunk_index").to_pylist(), lexical_documents(index_rows))
    columns = index_rows.columns + [terms.column(name) for name in ("terms", "counts", "length", "schema_version")]
    return pa.Table.from_arrays(columns, schema=part_schema(dim))


def _assembled(pieces: dict[str, pa.Table], dim: int) -> pa.Table:
    """A part's table: its documents' rows in doc_id order, one chunk per
    column, no all-valid null bitmap on flat columns (rows read back from a
    part file carry one, freshly built ones do not, and the writer's bytes
    differ by it): the same bytes whichever way the rows came."""
    schema = part_schema(dim)
    ordered = [pieces[d].replace_schema_metadata(None).cast(schema) for d in sorted(pieces) if pieces[d].num_rows]
    table = pa.concat_tables(ordered).combine_chunks() if ordered else schema.empty_table()
    return _without_validity(table)


def _without_validity(table: pa.Table) -> pa.Table:
    columns = []
    for column in table.columns:
        chunks = []
        for chunk in column.chunks:
            buffers = chunk.buffers()
            if chunk.null_count == 0 and buffers[0] is not None and not pa.types.is_nested(chunk.type):
                chunk = pa.Array.from_buffers(chunk.type, len(chunk), [None, *buffers[1:]], offset=chunk.offset)
            chunks.append(chunk)
        columns.append(pa.chunked_array(chunks, type=column.type))
    return pa.Table.from_arrays(columns, schema=table.schema)


# -- refreshing ----------------------------------------------------------------------


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
    candidates: dict[str, _Candidate] = {}
    excluded: dict[str, str] = {}
    sources: dict[str, str] = {}
    for doc_id in requested:
        if previous is not None and doc_id in previous.documents:
            fingerprint = _fingerprint(warehouse, doc_id, digests)
            if fingerprint is not None and fingerprint == previous.documents[doc_id][2]:
                unchanged[doc_id] = sources[doc_id] = fingerprint
                continue
        sources[doc_id], read = _read_document(warehouse, doc_id)
        if isinstance(read, str):
            excluded[doc_id] = read
        else:
            candidates[doc_id] = read
        _fingerprint(warehouse, doc_id, digests)  # remembered: the next refresh stats the files, not hashes them
    digests.save()

    if model_id is None:
        counts = Counter(c.model_id for c in candidates.values() if c.model_id)
        model_id = min(counts, key=lambda m: (-counts[m], m)) if counts else ""
    dims = Counter(c.dim for c in candidates.values() if c.model_id == model_id)
    if unchanged and previous is not None and previous.dim:
        if dims and set(dims) != {previous.dim}:  # cannot happen with one model; rebuild rather than mix
            return _refresh(warehouse, requested, model_id, False, parts)
        dim = previous.dim
    else:
        dim = min(dims, key=lambda d: (-dims[d], d)) if dims else (previous.dim if previous is not None and unchanged else 0)

    fresh: dict[str, pa.Table] = {}
    for doc_id, candidate in candidates.items():
        if candidate.model_id and (candidate.model_id != model_id or candidate.dim != dim):
            excluded[doc_id] = f"embedded with {candidate.model_id} (dim {candidate.dim}); the index uses {model_id} (dim {dim})"
            continue
        fresh[doc_id] = document_rows(candidate, model_id, dim) if candidate.model_id else part_schema(dim).empty_table()

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
        pieces = {d: fresh[d] for d in docs if d in fresh}
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
        files[part_path(warehouse, part)] = encode_part_table(_assembled(pieces, dim), part, key, model_id, dim)
        written.append(part)

    manifest = Manifest(
        model_id=model_id,
        dim=dim,
        parts=parts,
        part_keys=part_keys,
        documents={d: (where[d], fresh[d].num_rows if d in fresh else before[d][1], included[d]) for d in included},
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


def read_index_rows(warehouse: Warehouse) -> pa.Table:
    """Every row of the index (:func:`.layout.index_schema`, no terms) in
    (doc_id, chunk_index) order: what a single-file index held."""
    loaded = _read_parts(warehouse, None)
    if loaded is None:
        raise SearchError(f"no search index at {manifest_path(warehouse)}")
    manifest, tables = loaded
    schema = index_schema(manifest.dim)
    parts = [t.select(schema.names).cast(schema) for _, t in sorted(tables.items())]
    table = pa.concat_tables(parts) if parts else schema.empty_table()
    return table.sort_by([("doc_id", "ascending"), ("chunk_index", "ascending")]).replace_schema_metadata(None)


# -- holding it warm --------------------------------------------------------------

# The columns a hit is made of (everything but the vectors and bookkeeping).
HIT_COLUMNS = [name for name in CHUNK_COLUMNS if name not in ("section_key", "content_hash")]
_LEXICAL_COLUMNS = ["terms", "counts", "length"]


def file_stamp(warehouse: Warehouse) -> tuple[Any, ...] | None:
    """What identifies the manifest on disk now (None: there is none).

    Local: device, inode, size and mtime in ns; a refresh that changes
    anything replaces the manifest by a rename, so a new index always has a
    new inode. Elsewhere: size and whatever the store gives as a version
    (mtime, ETag).
    """
    path = manifest_path(warehouse)
    if warehouse.is_local:
        try:
            st = os.stat(path.path)
        except FileNotFoundError:
            return None
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    try:
        info = path.fs.info(path.path)
    except FileNotFoundError:
        return None
    version = [str(info.get(key)) for key in ("mtime", "LastModified", "ETag", "etag", "last_modified", "created") if info.get(key) is not None]
    return (info.get("size"), *version)


@dataclass(frozen=True)
class LoadedPart:
    """One part in memory: its key, the hit columns, its vectors normalised, its BM25 postings."""

    key: str
    rows: pa.Table
    vectors: np.ndarray
    terms: "PartTerms"


@dataclass
class LoadedIndex:
    """The index in memory, as its manifest was at ``stamp``.

    ``vectors`` is ``(rows, dim)`` float32, each row L2-normalised (a zero
    vector stays zero and scores 0), so the cosine of every chunk with a
    normalised query is ``vectors @ q``. ``rows`` holds :data:`HIT_COLUMNS`,
    part after part; ``order[p]`` is position ``p``'s rank in (doc_id,
    chunk_index) order, which ties are broken by. Immutable once loaded; a
    newer manifest is a new ``LoadedIndex`` (sharing the unchanged parts).
    """

    info: IndexInfo
    stamp: tuple[Any, ...] | None
    vectors: np.ndarray
    rows: pa.Table
    order: np.ndarray
    parts: dict[int, LoadedPart] = field(default_factory=dict, repr=False)
    parts_read: int = 0  # parts read from their files by this load (the others were kept)
    _lexical: "CollectionBM25 | None" = field(default=None, repr=False)
    _lexical_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def size(self) -> int:
        return self.rows.num_rows

    def lexical(self) -> "CollectionBM25":
        """BM25 over every chunk, from the parts' postings (made when each
        part was read, from its persisted terms: no text analyzed), with the
        document frequencies and average length of the whole collection, so
        a chunk's score is the same whichever part it sits in."""
        with self._lexical_lock:
            if self._lexical is None:
                from .lexical import CollectionBM25

                self._lexical = CollectionBM25([self.parts[p].terms for p in sorted(self.parts) if self.parts[p].rows.num_rows])
            return self._lexical

    def hit_rows(self, positions: Iterable[int]) -> list[dict[str, Any]]:
        """The rows at ``positions`` (in that order) as dicts, each sliced
        from its own part (``rows.take`` would first concatenate every part:
        22 ms for 100,000 chunks, per query)."""
        starts = np.cumsum([0, *(chunk.num_rows for chunk in self._row_chunks)])
        found = []
        for position in positions:
            i = int(np.searchsorted(starts, position, side="right")) - 1
            found.append(self._row_chunks[i].slice(int(position) - int(starts[i]), 1).to_pylist()[0])
        return found

    @property
    def _row_chunks(self) -> list[pa.Table]:
        return [self.parts[p].rows for p in sorted(self.parts) if self.parts[p].rows.num_rows]


def lexical_documents(rows: pa.Table) -> list[str]:
    """What the lexical index reads of each chunk: its heading trail (entry,
    section, the article's heading ``Điều 17. …``) and its text, so a query
    naming a drug or an article finds every chunk under it."""
    headings = rows.column("headings").to_pylist()
    texts = rows.column("text").to_pylist()
    return ["\n".join([*(h or ()), t or ""]) for h, t in zip(headings, texts)]


def _normalised_matrix(column: pa.ChunkedArray, dim: int) -> np.ndarray:
    if len(column) == 0:
        return np.zeros((0, dim), dtype=np.float32)
    flat = pc.list_flatten(column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column)
    matrix = np.array(flat.to_numpy(zero_copy_only=False), dtype=np.float32, copy=True).reshape(len(column), dim)
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0] = 1.0
    matrix /= norms[:, None]
    return matrix


_READ_ATTEMPTS = 5


def _read_parts(warehouse: Warehouse, previous: LoadedIndex | None) -> tuple[Manifest, dict[int, Any]] | None:
    """The manifest and each of its parts (a :class:`LoadedPart` kept from
    ``previous`` when its key is unchanged, else the part file's table).
    A part replaced while the manifest was read is noticed by its key: the
    manifest is read again."""
    problem: Exception | None = None
    for _ in range(_READ_ATTEMPTS):
        manifest = read_manifest(warehouse)
        if manifest is None:
            return None
        tables: dict[int, Any] = {}
        try:
            for part, key in sorted(manifest.part_keys.items()):
                kept = previous.parts.get(part) if previous is not None else None
                tables[part] = kept if kept is not None and kept.key == key else read_part(warehouse, part, key)
            return manifest, tables
        except LayoutError as exc:
            problem = exc
    raise LayoutError(f"the search index kept changing while it was read: {problem}")


def load_index(warehouse: Warehouse, previous: LoadedIndex | None = None) -> LoadedIndex | None:
    """Read the index into a :class:`LoadedIndex` (None when there is none),
    reading only the parts whose key differs from ``previous``'s. The stamp
    is taken before reading, so a manifest replaced while it is read is
    noticed on the next look. LayoutError when it cannot be read."""
    stamp = file_stamp(warehouse)
    if stamp is None:
        return None
    found = _read_parts(warehouse, previous)
    if found is None:
        return None
    manifest, tables = found
    from .lexical import PartTerms

    loaded: dict[int, LoadedPart] = {}
    read = 0
    for part, table in tables.items():
        if isinstance(table, LoadedPart):
            loaded[part] = table
            continue
        read += 1
        dim = table.schema.field("vector").type.list_size
        vectors = _normalised_matrix(table.column("vector"), dim)
        loaded[part] = LoadedPart(manifest.part_keys[part], table.select(HIT_COLUMNS), vectors, PartTerms.from_counts(table.select(_LEXICAL_COLUMNS)))
    ordered = [loaded[p] for p in sorted(loaded) if loaded[p].rows.num_rows]
    if ordered:
        rows = pa.concat_tables([p.rows for p in ordered])
        vectors = np.concatenate([p.vectors for p in ordered]) if len(ordered) > 1 else ordered[0].vectors
        order = np.empty(rows.num_rows, dtype=np.int64)
        order[pc.sort_indices(rows.select(["doc_id", "chunk_index"]), [("doc_id", "ascending"), ("chunk_index", "ascending")]).to_numpy()] = np.arange(rows.num_rows)
    else:
        rows = pa.schema([part_schema(manifest.dim).field(n) for n in HIT_COLUMNS]).empty_table()
        order, vectors = np.zeros(0, dtype=np.int64), np.zeros((0, manifest.dim), dtype=np.float32)
    return LoadedIndex(index_info(manifest), stamp, vectors, rows, order, loaded, read)
