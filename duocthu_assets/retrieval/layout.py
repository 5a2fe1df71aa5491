"""The search index on disk: a manifest and parts (layout 2, issue 20/21).

::

    <warehouse>/search_index/index.parquet          the manifest: one row per indexed document
    <warehouse>/search_index/parts/part-NN.parquet  the chunks, vectors and BM25 terms of the
                                                    documents whose doc_id hashes to part NN

- A document's rows all live in one part, ``compaction.part_of(doc_id,
  PARTS)`` (the first four bytes of its sha256), in (doc_id, chunk_index)
  order; a part's columns are the index's (:func:`index_schema`) and the
  chunk's analyzed terms (``terms``, ``counts``, ``length``: see
  :mod:`.lexical`), so the vectors and the terms of a chunk are replaced
  together, by one rename.
- The manifest's rows: ``doc_id``, ``part``, ``chunks``, ``sources`` (the
  sha256 of the document's chunks and embeddings files it was built from),
  ``schema_version``. Its metadata: the model and dimension, the layout
  version, the number of parts, each part's key (:func:`part_key`: a hash
  of the model, the dimension, and its documents with their sources — the
  same key, the same bytes), and the documents left out with their reason.
  ``SELECT doc_id FROM 'search_index/index.parquet'`` lists what is
  searchable; ``search_index/parts/*.parquet`` is every indexed chunk.
- Every part file carries its own key: a reader that finds a part whose key
  is not the manifest's read it while a refresh was replacing it, and reads
  the manifest again.

Nothing here imports Dagster.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Iterable, Mapping

import pyarrow as pa

from ..compaction import encode_part, part_name, part_of
from ..model import SCHEMA_VERSION
from ..schemas import SCHEMAS
from ..warehouse import Warehouse, parquet_from_bytes, stamp_table

INDEX_ASSET = "search_index"
PARTS_DIR = "parts"
PARTS = 64
LAYOUT = 3  # 1: one index.parquet holding every row (before issue 20/21's partitioned index); 3: OCR provenance (issue 39)

META_MODEL = b"duocthu.search_index.model_id"
META_DIM = b"duocthu.search_index.dim"
META_LAYOUT = b"duocthu.search_index.layout"
META_PARTS = b"duocthu.search_index.parts"
META_PART_KEYS = b"duocthu.search_index.part_keys"
META_EXCLUDED = b"duocthu.search_index.excluded"
META_EXCLUDED_SOURCES = b"duocthu.search_index.excluded_sources"
META_PART = b"duocthu.search_index.part"
META_PART_KEY = b"duocthu.search_index.part_key"

CHUNK_COLUMNS = [
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
    "text_source",  # issue 39: read from a scan by OCR, its uncertain words, the segments whose crops show the scan
    "uncertain_spans",
    "source_elements",
]
LEXICAL_COLUMNS = [("terms", pa.list_(pa.string())), ("counts", pa.list_(pa.int32())), ("length", pa.int32())]

MANIFEST_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("part", pa.int32()),
        ("chunks", pa.int32()),  # rows the document has in its part (0: indexed, nothing to search)
        ("sources", pa.string()),  # <sha256 of chunks file>:<sha256 of embeddings file>
        ("schema_version", pa.int32()),
    ]
)


class LayoutError(RuntimeError):
    """The index on disk cannot be read as layout 2 (written by an older
    version, or a part that is not the one its manifest names)."""


def index_schema(dim: int) -> pa.Schema:
    """The index's row: the chunk's columns, its model and vector."""
    chunks = SCHEMAS["chunks"]
    return pa.schema(
        [chunks.field(name) for name in CHUNK_COLUMNS]
        + [("model_id", pa.string()), ("dim", pa.int32()), ("vector", pa.list_(pa.float32(), dim)), ("schema_version", pa.int32())]
    )


def part_schema(dim: int) -> pa.Schema:
    """A part file's row: :func:`index_schema` with the chunk's BM25 terms before ``schema_version``."""
    fields = list(index_schema(dim))
    return pa.schema(fields[:-1] + [pa.field(n, t) for n, t in LEXICAL_COLUMNS] + fields[-1:])


def part_path(warehouse: Warehouse, part: int):
    return warehouse.path(INDEX_ASSET, PARTS_DIR, part_name(part))


def manifest_path(warehouse: Warehouse):
    return warehouse.asset_path(INDEX_ASSET)


def part_key(model_id: str, dim: int, sources: Iterable[tuple[str, str]]) -> str:
    """What identifies a part's content: the layout, model, dimension and its
    documents with the sha256 of the files each was built from."""
    digest = hashlib.sha256(f"layout {LAYOUT}\0{model_id}\0{dim}\0".encode())
    for doc_id, source in sorted(sources):
        digest.update(f"{doc_id}\0{source}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@dataclass(frozen=True)
class Manifest:
    """What ``index.parquet`` says: which document is in which part, built
    from which files, and each part's key."""

    model_id: str
    dim: int
    parts: int
    part_keys: dict[int, str]
    documents: dict[str, tuple[int, int, str]]  # doc_id -> (part, chunks, sources)
    excluded: dict[str, str]
    excluded_sources: dict[str, str]

    @property
    def rows(self) -> int:
        return sum(chunks for _, chunks, _ in self.documents.values())

    @property
    def sources(self) -> dict[str, str]:
        """The sources of every document the index was asked for (indexed or left out)."""
        return {**self.excluded_sources, **{d: s for d, (_, _, s) in self.documents.items()}}

    def table(self) -> pa.Table:
        docs = sorted(self.documents)
        n = len(docs)
        table = pa.Table.from_arrays(
            [
                pa.array(docs, pa.string()),
                pa.array([self.documents[d][0] for d in docs], pa.int32()),
                pa.array([self.documents[d][1] for d in docs], pa.int32()),
                pa.array([self.documents[d][2] for d in docs], pa.string()),
                pa.array([SCHEMA_VERSION] * n, pa.int32()),
            ],
            schema=MANIFEST_SCHEMA,
        )
        metadata = {
            META_LAYOUT: str(LAYOUT).encode(),
            META_MODEL: self.model_id.encode("utf-8"),
            META_DIM: str(self.dim).encode(),
            META_PARTS: str(self.parts).encode(),
            META_PART_KEYS: json.dumps({f"{p:02d}": k for p, k in sorted(self.part_keys.items())}).encode(),
            META_EXCLUDED: json.dumps(self.excluded, ensure_ascii=False, sort_keys=True).encode("utf-8"),
            META_EXCLUDED_SOURCES: json.dumps(self.excluded_sources, ensure_ascii=False, sort_keys=True).encode("utf-8"),
        }
        return stamp_table(INDEX_ASSET, table.replace_schema_metadata(metadata))

    @classmethod
    def from_table(cls, table: pa.Table) -> "Manifest":
        meta = table.schema.metadata or {}
        if meta.get(META_LAYOUT) != str(LAYOUT).encode():
            found = meta.get(META_LAYOUT, b"1").decode()
            raise LayoutError(
                f"the search index has layout {found} (this code reads layout {LAYOUT}, a manifest and parts): "
                "run `duocthu ingest` (or the refresh_search_index job) to rebuild it"
            )
        columns = table.select(MANIFEST_SCHEMA.names[:4]).to_pydict()
        return cls(
            model_id=meta.get(META_MODEL, b"").decode("utf-8"),
            dim=int(meta.get(META_DIM, b"0")),
            parts=int(meta.get(META_PARTS, b"0")),
            part_keys={int(p): k for p, k in json.loads(meta.get(META_PART_KEYS, b"{}")).items()},
            documents={d: (p, c, s) for d, p, c, s in zip(columns["doc_id"], columns["part"], columns["chunks"], columns["sources"])},
            excluded=json.loads(meta.get(META_EXCLUDED, b"{}")),
            excluded_sources=json.loads(meta.get(META_EXCLUDED_SOURCES, b"{}")),
        )


def read_manifest(warehouse: Warehouse) -> Manifest | None:
    """The manifest on disk (None: there is no index). LayoutError when the
    file is not a layout-2 manifest."""
    path = manifest_path(warehouse)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        table = parquet_from_bytes(data)
    except (OSError, pa.ArrowException) as exc:
        raise LayoutError(f"{path} cannot be read: {exc}") from exc
    return Manifest.from_table(table)


def read_part(warehouse: Warehouse, part: int, key: str) -> pa.Table:
    """Part ``part``'s rows, if the file is the one whose key is ``key``;
    LayoutError otherwise (missing, unreadable, or another version)."""
    path = part_path(warehouse, part)
    try:
        if warehouse.is_local:
            import pyarrow.parquet as pq

            table = pq.ParquetFile(path.path, memory_map=True).read(use_threads=False)
        else:
            table = parquet_from_bytes(path.read_bytes())
    except FileNotFoundError as exc:
        raise LayoutError(f"{path} is missing") from exc
    except (OSError, pa.ArrowException) as exc:
        raise LayoutError(f"{path} cannot be read: {exc}") from exc
    found = (table.schema.metadata or {}).get(META_PART_KEY, b"").decode()
    if found != key:
        raise LayoutError(f"{path} is not the part the manifest names (key {found[:12] or 'none'}, expected {key[:12]})")
    return table


def encode_part_table(table: pa.Table, part: int, key: str, model_id: str, dim: int) -> bytes:
    """A part file's bytes (compaction's fixed writer settings): its rows,
    the index's metadata keys, the part's number and key."""
    metadata = {META_MODEL: model_id.encode("utf-8"), META_DIM: str(dim).encode(), META_PART: str(part).encode(), META_PART_KEY: key.encode()}
    return encode_part(stamp_table(INDEX_ASSET, table.replace_schema_metadata(metadata)))


def parts_on_disk(warehouse: Warehouse) -> dict[int, object]:
    """The part files present (hidden temporaries aside): part number -> path."""
    folder = warehouse.path(INDEX_ASSET, PARTS_DIR)
    try:
        entries = list(folder.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return {}
    found = {}
    for entry in entries:
        name = entry.name
        if name.startswith("part-") and name.endswith(".parquet") and name[5:-8].isdigit():
            found[int(name[5:-8])] = entry
    return found


def assign_parts(doc_ids: Iterable[str], parts: int = PARTS) -> dict[str, int]:
    return {d: part_of(d, parts) for d in doc_ids}


def by_part(assignment: Mapping[str, int]) -> dict[int, list[str]]:
    """Part number -> its documents, sorted."""
    grouped: dict[int, list[str]] = {}
    for doc_id in sorted(assignment):
        grouped.setdefault(assignment[doc_id], []).append(doc_id)
    return grouped
