"""Pure scoring: boundary precision/recall/F1, section bleed, recall@k and MRR.

Positions are normalized-character positions (``textmatch``): markup,
punctuation and whitespace never count toward a distance.

The chain for one document: ``locate_sections`` (gold anchors → gold section
ranges in the canonical text) → ``boundary_scores`` (predicted heading starts
vs gold starts) → ``section_bleed`` (chunks vs gold sections) →
``relevant_chunks`` per query → ``retrieval_scores`` over every query.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .gold import FRONT_SECTION, Anchor, DocumentGold, GoldQuery
from .textmatch import NormalizedText, find_anchor, find_passage, normalize

DEFAULT_TOLERANCE = 20
"""Normalized characters a predicted start may lie from a gold start and
still match it (about three words: a numbering prefix the gold left out, a
label split from its heading). The same tolerance forgives that many
characters of a neighbouring section in a chunk before it counts as bleed."""

IN_SECTION_SHARE = 0.5
"""A hit "lies in" a gold section when at least this share of its text does."""

WHOLE_SECTION_SHARE = 0.9
"""A hit also answers when it holds at least this share of the gold section
(a short article lumped with its neighbours is still all there; the lumping
itself is what section bleed measures)."""

OUTSIDE = "_outside"


# -- locating gold sections --------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """A gold section as a normalized range ``[start, end)``."""

    id: str
    title: str
    start: int
    end: int

    def __len__(self) -> int:
        return max(0, self.end - self.start)


@dataclass
class LocatedGold:
    sections: list[Section]  # in order, covering [scope_start, scope_end) without gaps; first may be _front
    starts: list[int]  # gold starts that count for boundary scoring
    unlocated: list[str]  # ids of boundaries whose anchor was not found
    scope_start: int
    scope_end: int
    scope_problems: list[str] = field(default_factory=list)

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)

    def regions(self) -> list[Section]:
        """The sections plus the out-of-scope parts, as one partition of the text."""
        parts = []
        if self.scope_start > 0:
            parts.append(Section(OUTSIDE + "_before", "", 0, self.scope_start))
        parts.extend(self.sections)
        parts.append(Section(OUTSIDE + "_after", "", self.scope_end, 1 << 62))
        return parts


def _locate(norm: NormalizedText, anchor: Anchor, start: int, end: int | None = None) -> int | None:
    return find_anchor(norm, anchor.text, prefix=anchor.prefix, suffix=anchor.suffix, start=start, end=end)


def locate_sections(gold: DocumentGold, norm: NormalizedText) -> LocatedGold:
    """Find each gold boundary in reading order (each searched after the
    previous one found); a boundary not found is reported and its text stays
    with the section before it. A start at position 0 delimits a section but
    is not scored (the start of a document is not a boundary)."""
    problems: list[str] = []
    scope_start, scope_end = 0, len(norm)
    if gold.scope_from is not None:
        found = _locate(norm, gold.scope_from, 0)
        if found is None:
            problems.append(f"scope start {gold.scope_from.text!r} not found")
        else:
            scope_start = found
    if gold.scope_to is not None:
        found = _locate(norm, gold.scope_to, scope_start)
        if found is None:
            problems.append(f"scope end {gold.scope_to.text!r} not found")
        else:
            scope_end = found
    cursor = scope_start
    located: list[tuple[str, str, int]] = []
    unlocated: list[str] = []
    for b in gold.boundaries:
        pos = _locate(norm, b.anchor, cursor, scope_end)
        if pos is None:
            unlocated.append(b.id)
            continue
        located.append((b.id, b.title, pos))
        cursor = pos + 1
    sections: list[Section] = []
    first = located[0][2] if located else scope_end
    if first > scope_start:
        sections.append(Section(FRONT_SECTION, "", scope_start, first))
    for i, (bid, title, pos) in enumerate(located):
        end = located[i + 1][2] if i + 1 < len(located) else scope_end
        sections.append(Section(bid, title, pos, end))
    starts = [pos for _, _, pos in located if pos > 0]
    return LocatedGold(sections, starts, unlocated, scope_start, scope_end, problems)


def predicted_starts(norm: NormalizedText, heading_spans: Iterable[tuple[int, int]], scope: tuple[int, int] | None = None) -> list[int]:
    """Normalized starts of the pipeline's headings (raw ``(offset, length)``
    spans), inside ``scope``, without position 0 and without duplicates."""
    lo, hi = scope if scope else (0, len(norm))
    out = set()
    for offset, length in heading_spans:
        start, end = norm.span_to_norm(offset, length)
        if end <= start:  # a heading with no letters or digits
            continue
        if start > 0 and lo <= start < hi:
            out.add(start)
    return sorted(out)


# -- boundaries ---------------------------------------------------------------------


@dataclass(frozen=True)
class BoundaryScores:
    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    split: int = 0  # predicted starts forgiven as a second line of a matched heading
    matches: tuple[tuple[int, int], ...] = ()  # (gold, predicted)
    missed: tuple[int, ...] = ()  # gold starts without a match
    spurious: tuple[int, ...] = ()  # predicted starts counted as false positives


def _ratio(num: int, den: int, empty: float) -> float:
    return num / den if den else empty


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall, F1. With nothing predicted precision is 1.0 only if
    nothing was expected either (and likewise recall): an empty answer to an
    empty question is perfect, an empty answer to a real one scores 0."""
    precision = _ratio(tp, tp + fp, 1.0 if fn == 0 else 0.0)
    recall = _ratio(tp, tp + fn, 1.0 if fp == 0 else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def boundary_scores(predicted_starts: Sequence[int], gold_starts: Sequence[int], tolerance: int = 0) -> BoundaryScores:
    """Match predicted section starts to gold starts one-to-one, a pair
    matching when ``|predicted - gold| <= tolerance``; return P/R/F1.

    Matching takes the gold starts left to right, each with the leftmost free
    predicted start in its window (maximum matching for equal windows on a
    line). An unmatched predicted start within ``tolerance`` of a *matched*
    gold start is a heading split over two lines (``Chương I`` /
    ``NHỮNG QUY ĐỊNH CHUNG``): counted as ``split``, not as a false positive.
    """
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    pred = sorted(set(predicted_starts))
    gold = sorted(set(gold_starts))
    used = [False] * len(pred)
    matches: list[tuple[int, int]] = []
    missed: list[int] = []
    j = 0
    for g in gold:
        while j < len(pred) and (used[j] or pred[j] < g - tolerance):
            j += 1
        if j < len(pred) and pred[j] <= g + tolerance:
            used[j] = True
            matches.append((g, pred[j]))
            j += 1
        else:
            missed.append(g)
    matched_gold = [g for g, _ in matches]
    spurious: list[int] = []
    split = 0
    for p, u in zip(pred, used):
        if u:
            continue
        near = any(abs(p - g) <= tolerance for g in matched_gold)
        if near:
            split += 1
        else:
            spurious.append(p)
    tp, fp, fn = len(matches), len(spurious), len(missed)
    precision, recall, f1 = prf(tp, fp, fn)
    return BoundaryScores(precision, recall, f1, tp, fp, fn, split, tuple(matches), tuple(missed), tuple(spurious))


# -- chunks and bleed ------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkExtent:
    """A chunk in normalized positions: ``intervals`` its spans (may be
    empty, e.g. a block descriptor), ``point`` where a span-less chunk
    belongs (its block's anchor), ``text`` the normalized embedded text."""

    chunk_id: str
    intervals: tuple[tuple[int, int], ...]
    point: int | None = None
    text: str = ""

    @property
    def length(self) -> int:
        return sum(e - s for s, e in self.intervals)


def merge_intervals(intervals: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for s, e in sorted(i for i in intervals if i[1] > i[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return tuple((s, e) for s, e in out)


def overlap(intervals: Sequence[tuple[int, int]], start: int, end: int) -> int:
    return sum(max(0, min(e, end) - max(s, start)) for s, e in intervals)


def _section_span(section) -> tuple[int, int]:
    if isinstance(section, Section):
        return section.start, section.end
    start, end = section
    return int(start), int(end)


def sections_covered(chunk: ChunkExtent, sections: Sequence, tolerance: int = 0) -> list[int]:
    """Indexes of the sections a chunk's text covers: more than ``tolerance``
    characters of it, or all of it (a short section wholly inside counts)."""
    covered = []
    for i, section in enumerate(sections):
        start, end = _section_span(section)
        n = overlap(chunk.intervals, start, end)
        if n > tolerance or (n > 0 and n >= end - start):
            covered.append(i)
    return covered


@dataclass(frozen=True)
class BleedScores:
    share: float | None  # bleeding / chunks (None when no chunk has text in scope)
    bleeding: int
    chunks: int
    examples: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (chunk_id, section ids) for the first few


def section_bleed(chunks: Sequence[ChunkExtent], gold_sections: Sequence, tolerance: int = 0, *, scope: tuple[int, int] | None = None, max_examples: int = 5) -> BleedScores:
    """The share of chunks whose spans cover text from more than one gold
    section (``gold_sections``: :class:`Section` or ``(start, end)``, a
    partition of the text). Chunks without spans (descriptors) and chunks
    with no text inside ``scope`` are not counted."""
    bleeding = counted = 0
    examples: list[tuple[str, tuple[str, ...]]] = []
    for chunk in chunks:
        if not chunk.intervals:
            continue
        if scope is not None and overlap(chunk.intervals, *scope) == 0:
            continue
        counted += 1
        covered = sections_covered(chunk, gold_sections, tolerance)
        if len(covered) > 1:
            bleeding += 1
            if len(examples) < max_examples:
                ids = tuple(getattr(gold_sections[i], "id", str(i)) for i in covered)
                examples.append((chunk.chunk_id, ids))
    return BleedScores(bleeding / counted if counted else None, bleeding, counted, tuple(examples))


# -- relevance and retrieval ------------------------------------------------------------


def lies_in(chunk: ChunkExtent, section: Section, share: float = IN_SECTION_SHARE) -> bool:
    """Most of the chunk's text is in the section (a span-less descriptor:
    its block's anchor is)."""
    if chunk.intervals:
        total = chunk.length
        return total > 0 and overlap(chunk.intervals, section.start, section.end) >= share * total
    return chunk.point is not None and section.start <= chunk.point < section.end


def holds(chunk: ChunkExtent, section: Section, share: float = WHOLE_SECTION_SHARE) -> bool:
    """The chunk's text holds (nearly) all of the section."""
    return len(section) > 0 and overlap(chunk.intervals, section.start, section.end) >= share * len(section)


def contains(chunk: ChunkExtent, passage: tuple[int, int] | None, passage_text: str) -> bool:
    if passage is not None and chunk.intervals and overlap(chunk.intervals, *passage) >= passage[1] - passage[0]:
        return True
    return bool(passage_text) and passage_text in chunk.text


def relevant_chunks(query: GoldQuery, located: LocatedGold, norm: NormalizedText, chunks: Sequence[ChunkExtent]) -> set[str]:
    """The chunk ids that answer ``query``: a chunk lying (mostly) in one of
    its gold sections or holding (nearly) all of one, or containing its
    passage (the passage's located range wholly inside the chunk's spans, or
    its words in the chunk's text)."""
    sections = [s for s in (located.section(sid) for sid in query.sections) if s is not None]
    passage_range = None
    passage_text = ""
    if query.passage:
        passage_text = normalize(query.passage)
        passage_range = find_passage(norm, query.passage, [(s.start, s.end) for s in sections])
    out = set()
    for chunk in chunks:
        if any(lies_in(chunk, s) or holds(chunk, s) for s in sections) or (
            query.passage and contains(chunk, passage_range, passage_text)
        ):
            out.add(chunk.chunk_id)
    return out


@dataclass(frozen=True)
class RetrievalScores:
    n: int
    recall_at: dict[int, float | None]  # k -> share of queries with a relevant hit in the top k
    mrr: float | None  # mean reciprocal rank of the first relevant hit (0 beyond the list)
    first_relevant: tuple[int | None, ...]  # per query, 1-based rank or None
    unanswerable: int = 0  # queries with no relevant chunk at all in the document

    def correct_at(self, k: int) -> list[bool]:
        return [r is not None and r <= k for r in self.first_relevant]


def retrieval_scores(
    ranked_chunk_ids_per_query: Sequence[Sequence[str]],
    relevant_per_query: Sequence[Iterable[str]],
    ks: Sequence[int] = (1, 3, 5, 10),
) -> RetrievalScores:
    """recall@k and MRR over queries, each with its ranked hits (best first)
    and its set of relevant chunk ids.

    recall@k is the share of queries answered within the top k (at least one
    relevant hit): each gold query has one answer region, so this is the
    single-answer recall@k (a.k.a. success@k). MRR uses the ranks given, so
    with hits cut at k=10 it is MRR@10. A query with no relevant chunk at all
    (its answer was lost, or its section not found) counts as a miss.
    """
    if len(ranked_chunk_ids_per_query) != len(relevant_per_query):
        raise ValueError("one ranked list and one relevant set per query")
    if any(k < 1 for k in ks):
        raise ValueError(f"every k must be >= 1, got {list(ks)}")
    firsts: list[int | None] = []
    unanswerable = 0
    for ranked, relevant in zip(ranked_chunk_ids_per_query, relevant_per_query):
        relevant = set(relevant)
        if not relevant:
            unanswerable += 1
        rank = next((i for i, cid in enumerate(ranked, 1) if cid in relevant), None)
        firsts.append(rank)
    n = len(firsts)
    recall = {k: (sum(1 for r in firsts if r is not None and r <= k) / n if n else None) for k in ks}
    mrr = sum(1.0 / r for r in firsts if r is not None) / n if n else None
    return RetrievalScores(n, recall, mrr, tuple(firsts), unanswerable)


def mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None and not math.isnan(v)]
    return sum(vals) / len(vals) if vals else None
