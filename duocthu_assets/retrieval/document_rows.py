"""One document's rows in the search index: its chunks and embeddings
files read and checked against each other, made into part rows (chunks in
order, vectors, analyzed terms), and a part's table assembled from its
documents' rows (:mod:`.refresh` writes them; :mod:`.layout` is the format).

Nothing here imports Dagster.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..warehouse import SchemaVersionError, Warehouse
from .layout import index_schema, part_schema


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
class Candidate:
    """A document's chunks and embeddings, checked against each other: what its rows are made of."""

    chunks: pa.Table
    emb: pa.Table
    model_id: str  # "" for a document without chunks
    dim: int


def read_document(warehouse: Warehouse, doc_id: str) -> tuple[str, Candidate | str]:
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
        return sources, Candidate(chunks, emb, "", 0)
    return sources, Candidate(chunks, emb, models.pop(), emb.schema.field("vector").type.list_size)


def document_rows(candidate: Candidate, model_id: str, dim: int) -> pa.Table:
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


def assembled(pieces: dict[str, pa.Table], dim: int) -> pa.Table:
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


def lexical_documents(rows: pa.Table) -> list[str]:
    """What the lexical index reads of each chunk: its heading trail (entry,
    section, the article's heading ``Điều 17. …``) and its text, so a query
    naming a drug or an article finds every chunk under it."""
    headings = rows.column("headings").to_pylist()
    texts = rows.column("text").to_pylist()
    return ["\n".join([*(h or ()), t or ""]) for h, t in zip(headings, texts)]
