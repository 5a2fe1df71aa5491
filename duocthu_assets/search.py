"""The search index, the search, and the answer layer's obligations (ADR 0006).

- :func:`build_search_index` joins ``chunks/<doc>.parquet`` with
  ``embeddings/<doc>.parquet`` for the documents the caller names (those
  whose checks passed), verifying that each embeddings file matches the
  current chunks file; a document that does not is left out and named in the
  table's metadata (:func:`index_info`), never silently.
- :func:`search` ranks the index by cosine similarity in DuckDB.
- :func:`render_answer` turns a hit into what may be shown:

  1. a hit with quarantined content states that a table/formula exists at
     its printed page, gives the crop, and marks itself incomplete;
  2. a ``block_descriptor`` hit is answered with the crop and page only: no
     text, and never a header row (hits do not even carry one);
  3. no number from a chunk carrying a quarantined attachment is shown: every
     numeral in its text is withheld (``[…]``) with a pointer to the crop.

Nothing here imports Dagster.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Literal, Sequence

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from upath import UPath

from .embed.base import Embedder
from .model import SCHEMA_VERSION, ChunkKind
from .storage import SCHEMAS, SchemaVersionError, Warehouse, parquet_from_bytes

INDEX_ASSET = "search_index"
ANSWER_SCHEMA = "duocthu.search/1"
WITHHELD = "[…]"

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
    """
    requested = sorted(set(included_doc_ids))
    excluded: dict[str, str] = {}
    sources: dict[str, str] = {}
    candidates: dict[str, tuple[pa.Table, pa.Table, str, int]] = {}
    for doc_id in requested:
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
    dim = dims.pop() if dims else 0

    parts: list[pa.Table] = []
    documents: list[str] = []
    for doc_id, (chunks, emb, doc_model, doc_dim) in candidates.items():
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

    schema = search_index_schema(dim)
    table = pa.concat_tables(parts) if parts else schema.empty_table()
    metadata = {
        _META_MODEL: model_id.encode("utf-8"),
        _META_DIM: str(dim).encode(),
        _META_DOCS: json.dumps(documents, ensure_ascii=False).encode("utf-8"),
        _META_EXCLUDED: json.dumps(excluded, ensure_ascii=False, sort_keys=True).encode("utf-8"),
        _META_SOURCES: json.dumps(sources, sort_keys=True).encode("utf-8"),
    }
    return table.replace_schema_metadata(metadata)


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
    for doc_id in requested:
        fps = []
        for asset in ("chunks", "embeddings"):
            path = warehouse.asset_path(asset, doc_id)
            fps.append(hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "missing")
        if info.sources[doc_id] != ":".join(fps):
            return False
    return True


# -- searching -----------------------------------------------------------------


@dataclass(frozen=True)
class HitAttachment:
    """An attachment as search exposes it: no ``header_row`` (ADR 0006 §2
    embargoes it, so it is not carried where it could be shown)."""

    block_id: str
    kind: str
    shape: str
    physical_page: int | None
    printed_page: int | None
    quarantined: bool
    crop_path: str | None  # relative to the warehouse (as stored), or None
    crop_file: str | None  # the same, resolved under the warehouse
    crop_exists: bool
    printed_label: str = ""  # the page's printed label when it is not a number ("xii", "A-42")


@dataclass(frozen=True)
class Hit:
    rank: int
    score: float
    doc_id: str
    chunk_id: str
    chunk_kind: str
    entry_title: str
    section_title: str
    headings: tuple[str, ...]
    printed_pages: tuple[int, ...]
    physical_pages: tuple[int, ...]
    text: str
    has_quarantined_content: bool
    attachments: tuple[HitAttachment, ...]

    @property
    def quarantined(self) -> bool:
        """Either signal suffices: the flag, or any quarantined attachment."""
        return bool(self.has_quarantined_content or any(a.quarantined for a in self.attachments))


def _crop(warehouse: Warehouse, doc_id: str, att: dict[str, Any]) -> HitAttachment:
    rel = att.get("source_crop") or None
    if rel is None:
        conventional = f"crops/{doc_id}/{att['block_id']}.png"
        if warehouse.path(conventional).exists():
            rel = conventional
    resolved, exists = None, False
    if rel:
        target = UPath(rel) if (rel.startswith("/") or "://" in rel) else warehouse.path(rel)
        resolved = str(target)
        try:
            exists = bool(target.exists())
        except OSError:
            exists = False
    return HitAttachment(
        block_id=att["block_id"],
        kind=att.get("kind") or "table",
        shape=att.get("shape") or "",
        physical_page=att.get("physical_page"),
        printed_page=att.get("printed_page"),
        quarantined=bool(att.get("quarantined")),
        crop_path=rel,
        crop_file=resolved,
        crop_exists=exists,
        printed_label=att.get("printed_label") or "",
    )


def _pages(regions: Sequence[dict[str, Any]] | None, key: str) -> tuple[int, ...]:
    return tuple(sorted({r[key] for r in regions or () if r.get(key) is not None}))


def search(warehouse: Warehouse, query: str, k: int = 5, embedder: Embedder | None = None) -> list[Hit]:
    """The ``k`` chunks of the index closest to ``query`` (cosine), best first;
    ties broken by (doc_id, chunk_index) so results are reproducible."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError("the query is empty")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    path = warehouse.asset_path(INDEX_ASSET)
    info = read_index_info(warehouse)
    if info is None:
        raise SearchError(f"no search index at {path}: run `duocthu ingest` first")
    if embedder is None:
        from .embed.base import EmbedderConfig, make_embedder

        embedder = make_embedder(EmbedderConfig.from_env())
    if info.rows == 0:
        return []
    if info.model_id != embedder.model_id:
        raise SearchError(
            f"the index was built with {info.model_id!r} but the query embedder is {embedder.model_id!r}; "
            "configure the same model (DUOCTHU_EMBED_*) or re-ingest"
        )
    q = np.asarray(embedder.embed_query(query), dtype=np.float32)
    if q.shape != (info.dim,):
        raise SearchError(f"query vector has shape {q.shape}, the index has dimension {info.dim}")

    con = duckdb.connect()
    try:
        if warehouse.is_local:
            source = "read_parquet(?)"
            params: list[Any] = [str(path)]
        else:
            con.register("search_index_rows", parquet_from_bytes(path.read_bytes()))
            source = "search_index_rows"
            params = []
        sql = f"""
            SELECT doc_id, chunk_id, chunk_kind, text, entry_title, section_title, headings, regions,
                   attachments, has_quarantined_content,
                   list_cosine_similarity(vector::FLOAT[], ?::FLOAT[]) AS score
            FROM {source}
            ORDER BY score DESC, doc_id, chunk_index
            LIMIT ?
        """
        # positional parameters in order of appearance: the query vector, the file, k
        rows = con.execute(sql, [q.tolist(), *params, int(k)]).fetchall()
        names = [d[0] for d in con.description]
    finally:
        con.close()

    hits = []
    for rank, values in enumerate(rows, start=1):
        row = dict(zip(names, values))
        hits.append(
            Hit(
                rank=rank,
                score=float(row["score"]),
                doc_id=row["doc_id"],
                chunk_id=row["chunk_id"],
                chunk_kind=row["chunk_kind"],
                entry_title=row["entry_title"] or "",
                section_title=row["section_title"] or "",
                headings=tuple(row["headings"] or ()),
                printed_pages=_pages(row["regions"], "printed_page"),
                physical_pages=_pages(row["regions"], "page_no"),
                text=row["text"] or "",
                has_quarantined_content=bool(row["has_quarantined_content"]),
                attachments=tuple(_crop(warehouse, row["doc_id"], a) for a in row["attachments"] or ()),
            )
        )
    return hits


# -- answering (ADR 0006, the answer layer's obligations) ------------------------

_DIGITS = "0-9\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u00bc-\u00be\u2150-\u215e"
_NUMERAL = re.compile(rf"(?:\d|[{_DIGITS}])+(?:[.,:](?:\d|[{_DIGITS}])+)*")


def withhold_numbers(text: str) -> tuple[str, int]:
    """``text`` with every numeral replaced by ``[…]``, and how many.

    Deliberately wider than a dose pattern (``500 mg``, ``0,5 mg/kg``,
    ``30 ml/phút``, ``1,5 triệu đơn vị``, ``x 2 lần/ngày``, ``10⁶ UI``): in a
    chunk whose section lost a table, a number without a unit (an interval, an
    age, a Clcr threshold, a tablet count) can be half of a dose, and a unit
    list is never complete. Digits inside an identifier (ATC ``J01CR01``,
    ``B12``, ``CYP3A4``) are kept: they are preceded by a letter. A multiplier
    written ``x2`` is withheld. Numbers spelled out in words are not detected.
    """
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        start = match.start()
        before = text[start - 1] if start else ""
        if before.isalpha():
            multiplier = before in "xX×" and (start < 2 or not text[start - 2].isalpha())
            if not multiplier:
                return match.group(0)
        count += 1
        return WITHHELD

    return _NUMERAL.sub(replace, text), count


@dataclass(frozen=True)
class CropRef:
    block_id: str
    kind: str
    shape: str
    printed_page: int | None
    physical_page: int | None
    path: str | None
    exists: bool


@dataclass(frozen=True)
class Answer:
    """What may be shown for one hit.

    ``mode``: ``text`` (an ordinary chunk), ``text_incomplete`` (a chunk whose
    section lost a table/formula: numbers withheld, crops given) or
    ``crop_only`` (a block descriptor: no text at all).
    """

    rank: int
    score: float
    doc_id: str
    chunk_id: str
    chunk_kind: str
    entry_title: str
    section_title: str
    headings: tuple[str, ...]
    printed_pages: tuple[int, ...]
    physical_pages: tuple[int, ...]
    mode: Literal["text", "text_incomplete", "crop_only"]
    complete: bool
    text: str | None
    withheld_numbers: int
    crops: tuple[CropRef, ...]
    notices: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["headings"] = list(self.headings)
        data["printed_pages"] = list(self.printed_pages)
        data["physical_pages"] = list(self.physical_pages)
        data["crops"] = [asdict(c) for c in self.crops]
        data["notices"] = list(self.notices)
        return data


_KIND_LABEL = {"table": "a table", "formula": "a formula"}


def _page_label(printed: int | None, physical: int | None, label: str = "") -> str:
    if printed is not None:
        return f"printed page {printed} (trang in {printed})"
    if label:
        return f"printed page {label} (trang in {label})"
    if physical is not None:
        return f"page {physical} of the file (no printed number)"
    return "an unknown page"


def _crop_notice(att: HitAttachment) -> str:
    what = _KIND_LABEL.get(att.kind, f"a {att.kind}")
    where = _page_label(att.printed_page, att.physical_page, att.printed_label)
    if att.crop_file and att.crop_exists:
        crop = f"crop: {att.crop_file}"
    elif att.crop_file:
        crop = f"crop expected at {att.crop_file} but the file is missing; read the source at that page"
    else:
        crop = "no crop was rendered; read the source at that page"
    return f"{what[0].upper()}{what[1:]} exists at {where} and is not in this text ({att.block_id}); {crop}"


def render_answer(hit: Hit) -> Answer:
    """Apply ADR 0006's obligations to one hit (see the module docstring)."""
    crops = tuple(
        CropRef(a.block_id, a.kind, a.shape, a.printed_page, a.physical_page, a.crop_file, a.crop_exists) for a in hit.attachments
    )
    quarantined = [a for a in hit.attachments if a.quarantined]
    common = dict(
        rank=hit.rank,
        score=hit.score,
        doc_id=hit.doc_id,
        chunk_id=hit.chunk_id,
        chunk_kind=hit.chunk_kind,
        entry_title=hit.entry_title,
        section_title=hit.section_title,
        headings=hit.headings,
        printed_pages=hit.printed_pages,
        physical_pages=hit.physical_pages,
        crops=crops,
    )
    if hit.chunk_kind == ChunkKind.BLOCK_DESCRIPTOR:
        notices = [_crop_notice(a) for a in hit.attachments] or [
            "This hit stands for a lifted table or formula but carries no reference to it; read the source document"
            + (f" at {_page_label(hit.printed_pages[0] if hit.printed_pages else None, hit.physical_pages[0] if hit.physical_pages else None)}" if hit.printed_pages or hit.physical_pages else "")
        ]
        notices.append("The answer is the crop: its content is not restated as text.")
        return Answer(**common, mode="crop_only", complete=False, text=None, withheld_numbers=0, notices=tuple(notices))
    if hit.quarantined:
        text, withheld = withhold_numbers(hit.text)
        notices = [_crop_notice(a) for a in quarantined]
        if not quarantined:
            notices.append(
                "This chunk is marked as missing a lifted table or formula but names none; read the source document"
                + (f" near {_page_label(hit.printed_pages[0] if hit.printed_pages else None, hit.physical_pages[0] if hit.physical_pages else None)}" if hit.printed_pages or hit.physical_pages else "")
            )
        notices.append("Incomplete: part of this section was lifted out as a table or formula (above).")
        if withheld:
            notices.append(
                f"{withheld} number(s) withheld ({WITHHELD}): no dose may be stated from a chunk whose table or formula "
                "was lifted out; read the values from the crop or the printed page."
            )
        return Answer(**common, mode="text_incomplete", complete=False, text=text, withheld_numbers=withheld, notices=tuple(notices))
    notices = [f"Also attached: {_crop_notice(a)}" for a in hit.attachments]
    return Answer(**common, mode="text", complete=True, text=hit.text, withheld_numbers=0, notices=tuple(notices))


def _where(answer: Answer) -> str:
    if answer.printed_pages:
        pages = answer.printed_pages
        label = f"trang in {pages[0]}" if len(pages) == 1 else f"trang in {pages[0]}–{pages[-1]}"
    elif answer.physical_pages:
        pages = answer.physical_pages
        label = f"p. {pages[0]}" if len(pages) == 1 else f"pp. {pages[0]}–{pages[-1]}"
    else:
        label = ""
    return " — ".join(part for part in (answer.entry_title, answer.section_title, label) if part) or answer.chunk_id


def format_hits(answers: Sequence[Answer], as_json: bool = False, *, query: str | None = None, notes: Sequence[str] = ()) -> str:
    """The CLI's output.

    JSON (schema ``duocthu.search/1``, keys sorted; a key is only ever added
    under a new schema name)::

        {"schema": "duocthu.search/1", "query": str, "notes": [str],
         "hits": [{"rank": int, "score": float, "doc_id", "chunk_id", "chunk_kind",
                   "entry_title", "section_title", "headings": [str],
                   "printed_pages": [int], "physical_pages": [int],
                   "mode": "text" | "text_incomplete" | "crop_only",
                   "complete": bool, "text": str | null, "withheld_numbers": int,
                   "crops": [{"block_id", "kind", "shape", "printed_page",
                              "physical_page", "path": str | null, "exists": bool}],
                   "notices": [str]}]}

    Text: ``rank. score  entry — section — trang in N  [incomplete]``, the
    doc and chunk id, then the (possibly withheld) text or the crop line, then
    the notices.
    """
    if as_json:
        payload = {"schema": ANSWER_SCHEMA, "query": query, "hits": [a.as_dict() for a in answers], "notes": list(notes)}
        return json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True)
    if not answers:
        lines = ["no hits"]
    else:
        lines = []
        for a in answers:
            flag = "" if a.complete else "  [incomplete]"
            lines.append(f"{a.rank}. {a.score:.3f}  {_where(a)}{flag}")
            lines.append(f"   {a.doc_id} · {a.chunk_id}")
            if a.mode == "crop_only":
                for c in a.crops:
                    lines.append(f"   ▣ {c.kind} · {_page_label(c.printed_page, c.physical_page)} · {c.path or 'no crop rendered'}")
            elif a.text:
                lines.extend("   " + line for line in a.text.splitlines() if line.strip())
            for notice in a.notices:
                lines.append(f"   ⚠ {notice}")
            lines.append("")
    lines.extend(f"note: {n}" for n in notes)
    return "\n".join(lines).rstrip() + "\n"


def answer(warehouse: Warehouse, query: str, k: int = 5, embedder: Embedder | None = None) -> list[Answer]:
    """:func:`search` then :func:`render_answer` for every hit."""
    return [render_answer(hit) for hit in search(warehouse, query, k, embedder)]
