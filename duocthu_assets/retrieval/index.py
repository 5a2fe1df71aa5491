"""The search index held warm, and read whole.

:class:`LoadedIndex` is the index in memory: every part's vectors as one
L2-normalised float32 numpy matrix (exact cosine is one matrix-vector
product), BM25 (:mod:`.lexical`) over the parts' persisted terms with
collection-wide statistics, and the columns an answer needs.
:func:`load_index` reads it, keeping the parts of a previously loaded index
whose key did not change; :func:`file_stamp` says whether the manifest on
disk is still the one loaded; :func:`read_index_rows` gives every row.
Refreshing the index is :mod:`.refresh`'s job; what its manifest says,
:mod:`.info`'s.

Nothing here imports Dagster.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..warehouse import Warehouse
from .info import IndexInfo, index_info
from .layout import CHUNK_COLUMNS, LayoutError, Manifest, index_schema, manifest_path, part_schema, read_manifest, read_part

if TYPE_CHECKING:
    from .accents import AccentRestorer
    from .lexical import CollectionBM25, PartTerms
    from .structure import Structure


class SearchError(RuntimeError):
    """The index cannot answer (missing, or built with another model)."""


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
    folded: "PartTerms"  # the same terms folded (accents optional, issue 40)


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
    _folded: "CollectionBM25 | None" = field(default=None, repr=False)
    _structure: "Structure | None" = field(default=None, repr=False)
    _restorer: AccentRestorer | None = field(default=None, repr=False)
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

    def folded(self) -> "CollectionBM25":
        """:meth:`lexical` over the folded terms (:meth:`.lexical.PartTerms.folded`)."""
        with self._lexical_lock:
            if self._folded is None:
                from .lexical import CollectionBM25

                self._folded = CollectionBM25([self.parts[p].folded for p in sorted(self.parts) if self.parts[p].rows.num_rows])
            return self._folded

    def structure(self) -> "Structure":
        """Each document's articles and each monograph's sections, from the
        heading trails (:class:`.structure.Structure`), made on first use."""
        with self._lexical_lock:
            if self._structure is None:
                from .structure import Structure

                columns = self.rows.select(["doc_id", "headings", "entry_title", "section_title", "text"]).to_pydict()
                self._structure = Structure.build(columns["doc_id"], columns["headings"], columns["entry_title"], columns["section_title"], columns["text"])
            return self._structure

    def restorer(self) -> AccentRestorer:
        """Each folded syllable's accented forms and the index's term and
        pair counts (:class:`.accents.AccentRestorer`), from the rows'
        heading trails and texts, made on first use."""
        with self._lexical_lock:
            if self._restorer is None:
                from .accents import AccentRestorer, general_frequencies

                columns = self.rows.select(["headings", "text"]).to_pydict()
                texts = ("\n".join([*(h or ()), t or ""]) for h, t in zip(columns["headings"], columns["text"]))
                self._restorer = AccentRestorer.build(texts, general=general_frequencies())
            return self._restorer

    def text(self, position: int) -> str:
        """The text of the chunk at ``position``."""
        return self.hit_rows([position])[0]["text"] or ""

    def lexical_scores(self, query: str) -> np.ndarray:
        """BM25 on the exact and the folded field, added (:func:`.lexical.lexical_scores`),
        of the query's terms but the words it is asked with (:func:`.lexical.without_question_words`)."""
        from .lexical import lexical_scores, without_question_words

        return lexical_scores(self.lexical(), self.folded(), without_question_words(query))

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
        terms = PartTerms.from_counts(table.select(_LEXICAL_COLUMNS))
        loaded[part] = LoadedPart(manifest.part_keys[part], table.select(HIT_COLUMNS), vectors, terms, terms.folded())
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
