"""The search index: building it from the warehouse, and holding it warm.

- :func:`build_search_index` joins ``chunks/<doc>.parquet`` with
  ``embeddings/<doc>.parquet`` for the documents the caller names (those
  whose checks passed), verifying that each embeddings file matches the
  current chunks file; a document that does not is left out and named in the
  table's metadata (:func:`index_info`), never silently.
- :class:`LoadedIndex` is ``search_index/index.parquet`` in memory: the
  vectors as one L2-normalised float32 numpy matrix (exact cosine is one
  matrix-vector product), the lexical index (:mod:`.lexical`, built on first
  use), and the columns an answer needs. :func:`load_index` reads it;
  :func:`file_stamp` says whether the file on disk is still the one loaded.

Nothing here imports Dagster.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..model import SCHEMA_VERSION
from ..schemas import SCHEMAS
from ..warehouse import SchemaVersionError, Warehouse, encode_parquet, parquet_from_bytes, stamp_table
from .digests import FileDigests

if TYPE_CHECKING:
    from .lexical import LexicalIndex

INDEX_ASSET = "search_index"

_META_MODEL = b"duocthu.search_index.model_id"
_META_DIM = b"duocthu.search_index.dim"
_META_DOCS = b"duocthu.search_index.documents"
_META_EXCLUDED = b"duocthu.search_index.excluded"
_META_SOURCES = b"duocthu.search_index.sources"

_CHUNK_COLUMNS = [
    "doc_id",
    "chunk_id",
    "chunk_index",
    "chunk_kind",
    "text",
    "entry_title",
    "section_key",
    "section_title",
    "headings",
    "regions",
    "attachments",
    "has_quarantined_content",
    "content_hash",
]


def search_index_schema(dim: int) -> pa.Schema:
    chunks = SCHEMAS["chunks"]
    return pa.schema(
        [chunks.field(name) for name in _CHUNK_COLUMNS]
        + [
            ("model_id", pa.string()),
            ("dim", pa.int32()),
            ("vector", pa.list_(pa.float32(), dim)),
            ("schema_version", pa.int32()),
        ]
    )


class SearchError(RuntimeError):
    """The index cannot answer (missing, or built with another model)."""


# -- building ------------------------------------------------------------------


@dataclass(frozen=True)
class IndexInfo:
    model_id: str
    dim: int
    rows: int
    documents: tuple[str, ...]
    excluded: dict[str, str]
    sources: dict[str, str]


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


def build_search_index(
    warehouse: Warehouse,
    included_doc_ids: Iterable[str],
    *,
    model_id: str | None = None,
    reuse: bool = True,
) -> pa.Table:
    """The search index over ``included_doc_ids`` (the caller decides which
    documents passed their checks), to be written by the caller with
    ``warehouse.write_table("search_index", table)``.

    A document is left out, with its reason in :func:`index_info`'s
    ``excluded``, when its chunks or embeddings file is missing or unreadable,
    when the embeddings do not match the current chunks (chunk_ids and
    content_hashes), or when it was embedded with another model than
    ``model_id`` (default: the model most documents used). Rows are in
    (doc_id, chunk_index) order, so the same inputs give the same table.

    With ``model_id`` given, the rows of a document whose chunks and
    embeddings files are byte for byte those the current index was built
    from (their sha256 against the index's ``sources``) are taken from the
    current index, not decoded and checked again: a rebuild costs a hash of
    each unchanged document's two files, and the work of the changed ones.
    """
    requested = sorted(set(included_doc_ids))
    excluded: dict[str, str] = {}
    sources: dict[str, str] = {}
    candidates: dict[str, tuple[pa.Table, pa.Table, str, int]] = {}
    previous = _previous_index(warehouse, model_id) if (model_id and reuse) else None
    reused: dict[str, pa.Table] = {}
    digests = FileDigests(warehouse)
    for doc_id in requested:
        if previous is not None and doc_id in previous.slices:
            fingerprint = _fingerprint(warehouse, doc_id, digests)
            if fingerprint is not None and fingerprint == previous.info.sources.get(doc_id):
                reused[doc_id] = previous.slices[doc_id]
                sources[doc_id] = fingerprint
                continue
        try:
            chunks, chunks_fp = warehouse.read_table_and_sha256("chunks", doc_id)
            emb, emb_fp = warehouse.read_table_and_sha256("embeddings", doc_id)
        except (SchemaVersionError, OSError, pa.ArrowException) as exc:
            excluded[doc_id] = f"unreadable: {exc}"
            sources[doc_id] = "unreadable"
            continue
        sources[doc_id] = f"{chunks_fp}:{emb_fp}"
        if chunks is None:
            excluded[doc_id] = "no chunks file"
            continue
        if emb is None:
            excluded[doc_id] = "no embeddings file"
            continue
        problem = _doc_problem(chunks, emb)
        if problem:
            excluded[doc_id] = problem
            continue
        models = set(emb.column("model_id").to_pylist())
        if len(models) > 1:
            excluded[doc_id] = f"embeddings mix models: {sorted(models)}"
            continue
        if not models:  # a document without chunks: nothing to index, nothing lost
            candidates[doc_id] = (chunks, emb, "", 0)
            continue
        candidates[doc_id] = (chunks, emb, models.pop(), emb.schema.field("vector").type.list_size)

    if model_id is None:
        counts = Counter(m for _, _, m, _ in candidates.values() if m)
        model_id = min(counts, key=lambda m: (-counts[m], m)) if counts else ""
    dims = {d for _, _, m, d in candidates.values() if m == model_id}
    if reused and previous is not None:
        if dims and dims != {previous.info.dim}:  # cannot happen with one model; rebuild rather than mix
            return build_search_index(warehouse, requested, model_id=model_id, reuse=False)
        dims = {previous.info.dim}
    dim = dims.pop() if dims else 0

    parts: list[pa.Table] = []
    documents: list[str] = []
    for doc_id in requested:
        if doc_id in reused:
            documents.append(doc_id)
            if reused[doc_id].num_rows:
                parts.append(reused[doc_id])
            continue
        if doc_id not in candidates:
            continue
        chunks, emb, doc_model, doc_dim = candidates[doc_id]
        if doc_model and (doc_model != model_id or doc_dim != dim):
            excluded[doc_id] = f"embedded with {doc_model} (dim {doc_dim}); the index uses {model_id} (dim {dim})"
            continue
        documents.append(doc_id)
        if not chunks.num_rows:
            continue
        chunks = chunks.sort_by([("chunk_index", "ascending")])
        position = {cid: i for i, cid in enumerate(emb.column("chunk_id").to_pylist())}
        take = pa.array([position[cid] for cid in chunks.column("chunk_id").to_pylist()], type=pa.int64())
        vectors = emb.column("vector").take(take)
        n = chunks.num_rows
        columns = [chunks.column(name) for name in _CHUNK_COLUMNS] + [
            pa.array([model_id] * n, type=pa.string()),
            pa.array([dim] * n, type=pa.int32()),
            vectors.cast(pa.list_(pa.float32(), dim)),
            pa.array([SCHEMA_VERSION] * n, type=pa.int32()),
        ]
        parts.append(pa.Table.from_arrays(columns, schema=search_index_schema(dim)))

    digests.save()
    schema = search_index_schema(dim)
    table = pa.concat_tables(parts).combine_chunks() if parts else schema.empty_table()
    metadata = {
        _META_MODEL: model_id.encode("utf-8"),
        _META_DIM: str(dim).encode(),
        _META_DOCS: json.dumps(documents, ensure_ascii=False).encode("utf-8"),
        _META_EXCLUDED: json.dumps(excluded, ensure_ascii=False, sort_keys=True).encode("utf-8"),
        _META_SOURCES: json.dumps(sources, sort_keys=True).encode("utf-8"),
    }
    return table.replace_schema_metadata(metadata)


@dataclass(frozen=True)
class _Previous:
    info: IndexInfo
    slices: dict[str, pa.Table]  # each included document's rows (possibly none)


def _previous_index(warehouse: Warehouse, model_id: str) -> _Previous | None:
    """The current index's rows per included document, if it was built with
    ``model_id`` and can be read; None otherwise (everything is rebuilt)."""
    try:
        table = warehouse.read_table(INDEX_ASSET)
    except (SchemaVersionError, OSError, pa.ArrowException, ValueError):
        return None
    if table is None:
        return None
    info = index_info(table)
    if info.model_id != model_id:
        return None
    try:
        table = table.replace_schema_metadata(None).cast(search_index_schema(info.dim))
    except (pa.ArrowException, ValueError):
        return None
    doc_ids = table.column("doc_id").to_pylist()
    slices: dict[str, pa.Table] = {doc: table.slice(0, 0) for doc in info.documents}
    start = 0
    for i in range(1, len(doc_ids) + 1):
        if i == len(doc_ids) or doc_ids[i] != doc_ids[start]:
            if doc_ids[start] in slices:
                slices[doc_ids[start]] = table.slice(start, i - start)
            start = i
    return _Previous(info, slices)


def _fingerprint(warehouse: Warehouse, doc_id: str, digests: FileDigests | None = None) -> str | None:
    """``<sha256 of chunks file>:<sha256 of embeddings file>``, as recorded
    in the index's sources; None when either file is missing. A local file
    whose identity did not change since it was last hashed is not read again
    (:class:`~.digests.FileDigests`)."""
    digests = digests or FileDigests(warehouse)
    parts = []
    for asset in ("chunks", "embeddings"):
        digest = digests.sha256(asset, doc_id)
        if digest is None:
            return None
        parts.append(digest)
    return ":".join(parts)


def index_info(table_or_schema: pa.Table | pa.Schema) -> IndexInfo:
    """What an index table (or the schema of ``index.parquet``) says about itself."""
    schema = table_or_schema.schema if isinstance(table_or_schema, pa.Table) else table_or_schema
    meta = schema.metadata or {}
    rows = table_or_schema.num_rows if isinstance(table_or_schema, pa.Table) else -1
    return IndexInfo(
        model_id=meta.get(_META_MODEL, b"").decode("utf-8"),
        dim=int(meta.get(_META_DIM, b"0")),
        rows=rows,
        documents=tuple(json.loads(meta.get(_META_DOCS, b"[]"))),
        excluded=json.loads(meta.get(_META_EXCLUDED, b"{}")),
        sources=json.loads(meta.get(_META_SOURCES, b"{}")),
    )


def read_index_info(warehouse: Warehouse) -> IndexInfo | None:
    path = warehouse.asset_path(INDEX_ASSET)
    if not path.exists():
        return None
    with path.open("rb") as fh:
        parquet = pq.ParquetFile(fh)
        info = index_info(parquet.schema_arrow)
        rows = parquet.metadata.num_rows
    return IndexInfo(info.model_id, info.dim, rows, info.documents, info.excluded, info.sources)


def index_is_current(warehouse: Warehouse, included_doc_ids: Iterable[str]) -> bool:
    """True when ``search_index/index.parquet`` was built from exactly these
    documents' current chunks and embeddings files (byte for byte), so a
    rebuild would change nothing."""
    info = read_index_info(warehouse)
    if info is None:
        return False
    requested = sorted(set(included_doc_ids))
    if sorted(info.sources) != requested:
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


# -- the lexical index's terms, persisted beside the index ---------------------

LEXICAL_FILE = "lexical.parquet"
_META_LEXICAL_OF = b"duocthu.search_index.lexical_of"


def index_key(schema: pa.Schema) -> str:
    """What identifies an index's content: a hash of what it says it was
    built from (model, dimension, documents, exclusions and each document's
    source files' sha256). The same key, the same rows."""
    meta = schema.metadata or {}
    digest = hashlib.sha256()
    for key in (_META_MODEL, _META_DIM, _META_DOCS, _META_EXCLUDED, _META_SOURCES):
        digest.update(key + b"\0" + meta.get(key, b"") + b"\0")
    return digest.hexdigest()


def lexical_path(warehouse: Warehouse):
    return warehouse.path(INDEX_ASSET, LEXICAL_FILE)


def read_lexical(warehouse: Warehouse) -> pa.Table | None:
    """``search_index/lexical.parquet`` (None when absent or unreadable: the
    lexical index is then made from the texts)."""
    from .lexical import LEXICAL_SCHEMA

    path = lexical_path(warehouse)
    try:
        if warehouse.is_local:
            table = pq.ParquetFile(path.path, memory_map=True).read(use_threads=False)
        else:
            table = parquet_from_bytes(path.read_bytes())
        metadata = table.schema.metadata
        return table.select(LEXICAL_SCHEMA.names).cast(LEXICAL_SCHEMA).replace_schema_metadata(metadata)
    except (OSError, pa.ArrowException, KeyError, ValueError):
        return None


def _aligned(lexical: pa.Table, rows: pa.Table) -> bool:
    return (
        lexical.num_rows == rows.num_rows
        and lexical.column("doc_id").equals(rows.column("doc_id"))
        and lexical.column("chunk_index").cast(pa.int32()).equals(rows.column("chunk_index").cast(pa.int32()))
    )


def build_lexical(warehouse: Warehouse, index: pa.Table, *, reuse: bool = True) -> pa.Table:
    """The terms and counts of every chunk of ``index`` (see
    :func:`.lexical.lexical_table`), in the index's row order. A document
    the previous ``lexical.parquet`` holds from the same chunks and
    embeddings files (same sources sha256) keeps its rows from there: only
    the changed documents are analyzed."""
    from .lexical import LEXICAL_SCHEMA, lexical_table

    info = index_info(index)
    previous = read_lexical(warehouse) if reuse else None
    keep: list[str] = []
    if previous is not None:
        before = index_info(previous.schema)
        was_included = set(before.documents)
        keep = sorted(
            d for d in info.documents
            if d in was_included and before.sources.get(d) is not None and before.sources.get(d) == info.sources.get(d)
        )
    parts: list[pa.Table] = []
    fresh = index
    if keep:
        wanted = pa.array(keep, pa.string())
        parts.append(previous.filter(pc.is_in(previous.column("doc_id"), value_set=wanted)).replace_schema_metadata(None))
        fresh = index.filter(pc.invert(pc.is_in(index.column("doc_id"), value_set=wanted)))
    if fresh.num_rows:
        parts.append(lexical_table(fresh.column("doc_id").to_pylist(), fresh.column("chunk_index").to_pylist(), lexical_documents(fresh)))
    table = pa.concat_tables(parts).combine_chunks() if parts else LEXICAL_SCHEMA.empty_table()
    if keep:
        # one chunk per column, list children named as a fresh build names them: the same bytes as a full rebuild
        table = _without_validity(table.sort_by([("doc_id", "ascending"), ("chunk_index", "ascending")]).cast(LEXICAL_SCHEMA).combine_chunks())
        if not _aligned(table, index):
            return build_lexical(warehouse, index, reuse=False)
    # the index's own keys only, in its order: the schema version and asset
    # stamps are added on writing, so a fresh and an incremental build (whose
    # index was, or was not, read back stamped) give the same bytes
    metadata = {k: v for k, v in (index.schema.metadata or {}).items() if k.startswith(b"duocthu.search_index.")}
    metadata[_META_LEXICAL_OF] = index_key(index.schema).encode()
    return table.replace_schema_metadata(metadata)


def _without_validity(table: pa.Table) -> pa.Table:
    """``table`` with no all-valid null bitmap on its flat columns (rows read
    back from Parquet carry one, freshly built ones do not, and the Parquet
    writer's bytes differ by it)."""
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


def write_lexical(warehouse: Warehouse, table: pa.Table) -> None:
    """Write ``lexical.parquet`` (atomically; the same table, the same bytes:
    one chunk per column, so an incremental build — previous rows joined to
    the changed documents' — is laid out in pages as a full rebuild is)."""
    warehouse.write_bytes_atomic(lexical_path(warehouse), encode_parquet(stamp_table(INDEX_ASSET, table.combine_chunks())))


def lexical_for(warehouse: Warehouse | None, key: str, rows: pa.Table) -> pa.Table | None:
    """The persisted terms of the index whose key is ``key``, when the file
    on disk belongs to it; None otherwise."""
    if warehouse is None:
        return None
    table = read_lexical(warehouse)
    if table is None or (table.schema.metadata or {}).get(_META_LEXICAL_OF, b"").decode() != key:
        return None
    return table if _aligned(table, rows) else None


# -- holding it warm --------------------------------------------------------------

# The columns a hit is made of (everything but the vectors and bookkeeping).
HIT_COLUMNS = [
    "doc_id",
    "chunk_id",
    "chunk_index",
    "chunk_kind",
    "text",
    "entry_title",
    "section_title",
    "headings",
    "regions",
    "attachments",
    "has_quarantined_content",
]


def file_stamp(warehouse: Warehouse) -> tuple[Any, ...] | None:
    """What identifies the index file on disk now (None: there is none).

    Local: device, inode, size and mtime in ns; the warehouse replaces the
    file by a rename, so a re-materialized index always has a new inode.
    Elsewhere: size and whatever the store gives as a version (mtime, ETag).
    """
    path = warehouse.asset_path(INDEX_ASSET)
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


@dataclass
class LoadedIndex:
    """``search_index/index.parquet`` in memory, as it was at ``stamp``.

    ``vectors`` is ``(rows, dim)`` float32, each row L2-normalised (a zero
    vector stays zero and scores 0), so the cosine of every chunk with a
    normalised query is ``vectors @ q``. ``rows`` holds :data:`HIT_COLUMNS`
    in the file's order, (doc_id, chunk_index): the order ties are broken in.
    Immutable once loaded; a newer file is a new ``LoadedIndex``.
    """

    info: IndexInfo
    stamp: tuple[Any, ...] | None
    vectors: np.ndarray
    rows: pa.Table
    key: str = ""  # index_key() of the file read
    warehouse: Warehouse | None = field(default=None, repr=False)  # where lexical.parquet is looked for
    lexical_from_file: bool = False  # whether the lexical index came from lexical.parquet
    _lexical: "LexicalIndex | None" = field(default=None, repr=False)
    _lexical_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def size(self) -> int:
        return self.rows.num_rows

    def lexical(self) -> "LexicalIndex":
        """The BM25 index over the same chunks, made once on first use: from
        ``lexical.parquet`` when it belongs to this index (no text analyzed),
        from the texts otherwise."""
        with self._lexical_lock:
            if self._lexical is None:
                from .lexical import LexicalIndex

                persisted = lexical_for(self.warehouse, self.key, self.rows) if self.key else None
                if persisted is not None:
                    self._lexical = LexicalIndex.from_counts(persisted)
                    self.lexical_from_file = True
                else:
                    self._lexical = LexicalIndex.build(lexical_documents(self.rows))
            return self._lexical

    def hit_rows(self, positions: Iterable[int]) -> list[dict[str, Any]]:
        """The rows at ``positions`` (in that order) as dicts."""
        take = pa.array(list(positions), type=pa.int64())
        return self.rows.take(take).to_pylist() if len(take) else []


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


def load_index(warehouse: Warehouse) -> LoadedIndex | None:
    """Read ``search_index/index.parquet`` into a :class:`LoadedIndex`
    (None when there is no index). The stamp is taken before reading, so a
    file replaced while it is read is noticed on the next look."""
    path = warehouse.asset_path(INDEX_ASSET)
    stamp = file_stamp(warehouse)
    if stamp is None:
        return None
    if warehouse.is_local:
        table = pq.read_table(path.path, memory_map=True)
    else:
        table = parquet_from_bytes(path.read_bytes())
    info = index_info(table)
    if "vector" in table.column_names and table.num_rows:
        vtype = table.schema.field("vector").type
        dim = vtype.list_size if pa.types.is_fixed_size_list(vtype) else info.dim
        vectors = _normalised_matrix(table.column("vector"), dim)
    else:
        vectors = np.zeros((0, info.dim), dtype=np.float32)
    rows = table.select(HIT_COLUMNS) if table.num_rows else table.select(HIT_COLUMNS).slice(0, 0)
    return LoadedIndex(info=info, stamp=stamp, vectors=vectors, rows=rows, key=index_key(table.schema), warehouse=warehouse)
