"""One built document against its gold: the pipeline's output as plain
values (:class:`DocumentView`, read from the warehouse's Parquet) and every
score for it (:func:`evaluate_document`). No Dagster here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .gold import DocumentGold
from .scoring import (
    DEFAULT_TOLERANCE,
    BleedScores,
    BoundaryScores,
    ChunkExtent,
    LocatedGold,
    RetrievalScores,
    boundary_scores,
    locate_sections,
    merge_intervals,
    predicted_starts,
    relevant_chunks,
    retrieval_scores,
    section_bleed,
)
from .textmatch import NormalizedText, normalize

HEADING = "heading"
SNIPPET = 48  # normalized characters shown for a spurious heading


@dataclass
class DocumentView:
    """What the pipeline produced for one document."""

    doc_id: str
    canonical_text: str
    heading_spans: list[tuple[int, int]]  # (offset, length) of every heading segment
    chunks: list[dict[str, Any]]  # chunk_id, chunk_kind, text, token_count, spans, source_elements
    block_anchors: dict[str, int] = field(default_factory=dict)  # block_id -> raw offset of its anchor segment

    @classmethod
    def from_warehouse(cls, warehouse, doc_id: str) -> "DocumentView | None":
        parsed = warehouse.read_table("parsed_documents", doc_id)
        if parsed is None or parsed.num_rows == 0:
            return None
        canonical = parsed.column("canonical_text")[0].as_py() or ""
        segments = warehouse.read_table("segments", doc_id)
        seg_rows = [] if segments is None else segments.select(["segment_id", "kind", "offset", "length"]).to_pylist()
        headings = [(r["offset"], r["length"]) for r in seg_rows if r["kind"] == HEADING and r["offset"] is not None]
        seg_offset = {r["segment_id"]: r["offset"] for r in seg_rows}
        blocks = warehouse.read_table("lifted_blocks", doc_id)
        anchors = {}
        for r in [] if blocks is None else blocks.select(["block_id", "anchor_segment_id"]).to_pylist():
            if r["anchor_segment_id"] in seg_offset:
                anchors[r["block_id"]] = seg_offset[r["anchor_segment_id"]]
        chunks = warehouse.read_table("chunks", doc_id)
        columns = ["chunk_id", "chunk_kind", "text", "token_count", "spans", "source_elements"]
        rows = [] if chunks is None else chunks.select(columns).to_pylist()
        return cls(doc_id, canonical, headings, rows, anchors)


def chunk_extents(view: DocumentView, norm: NormalizedText) -> list[ChunkExtent]:
    """Every chunk in normalized positions. A chunk without spans (a block
    descriptor) is placed at its block's anchor segment."""
    out = []
    for row in view.chunks:
        intervals = merge_intervals(norm.span_to_norm(s["offset"], s["length"]) for s in row.get("spans") or [])
        point = None
        if not intervals:
            for element in row.get("source_elements") or []:
                if element in view.block_anchors:
                    point = norm.to_norm(view.block_anchors[element])
                    break
        out.append(ChunkExtent(row["chunk_id"], intervals, point, normalize(row.get("text") or "")))
    return out


@dataclass
class QueryOutcome:
    id: str
    query: str
    sections: tuple[str, ...]
    relevant: int  # how many chunks of the document answer it
    first_relevant: int | None  # rank of the first relevant hit
    top_hit: str  # chunk id of the first hit


@dataclass
class DocumentScores:
    located: LocatedGold
    boundary: BoundaryScores
    bleed: BleedScores
    retrieval: RetrievalScores | None
    queries: list[QueryOutcome]
    predicted: list[int]
    missed: list[tuple[str, str]] = field(default_factory=list)  # (boundary id, title) of gold starts not found as headings
    spurious: list[str] = field(default_factory=list)  # the first words of predicted headings matching no gold start


def evaluate_document(
    gold: DocumentGold,
    view: DocumentView,
    hits_per_query: Sequence[Sequence[str]] | None,
    *,
    tolerance: int = DEFAULT_TOLERANCE,
    ks: Sequence[int] = (1, 3, 5, 10),
) -> DocumentScores:
    """Every score of one document: gold sections located in its canonical
    text, boundary P/R/F1 of its headings, section bleed of its chunks, and
    (when hits are given, one ranked list of chunk ids per gold query)
    recall@k and MRR."""
    norm = NormalizedText.of(view.canonical_text)
    located = locate_sections(gold, norm)
    scope = (located.scope_start, located.scope_end)
    predicted = predicted_starts(norm, view.heading_spans, scope)
    boundary = boundary_scores(predicted, located.starts, tolerance)
    extents = chunk_extents(view, norm)
    bleed = section_bleed(extents, located.regions(), tolerance, scope=scope)
    retrieval = None
    outcomes: list[QueryOutcome] = []
    if hits_per_query is not None and gold.queries:
        if len(hits_per_query) != len(gold.queries):
            raise ValueError(f"{len(hits_per_query)} hit lists for {len(gold.queries)} queries")
        relevant = [relevant_chunks(q, located, norm, extents) for q in gold.queries]
        retrieval = retrieval_scores(hits_per_query, relevant, ks)
        for q, rel, hits, first in zip(gold.queries, relevant, hits_per_query, retrieval.first_relevant):
            outcomes.append(QueryOutcome(q.id, q.query, q.sections, len(rel), first, hits[0] if hits else ""))
    by_start = {s.start: s for s in located.sections}
    missed = [(by_start[g].id, by_start[g].title) for g in boundary.missed if g in by_start]
    spurious = [norm.text[p : p + SNIPPET].strip() for p in boundary.spurious]
    return DocumentScores(located, boundary, bleed, retrieval, outcomes, predicted, missed, spurious)
