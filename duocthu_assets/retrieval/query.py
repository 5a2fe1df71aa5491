"""Queries: validating and normalizing them, ranking the warm index
(dense, lexical or both fused), and the hits a ranking is made into.

- :func:`validate_query` names what is wrong with a query or a ``k`` (the
  CLI, the server and the API all call it, so all refuse the same input).
- :func:`normalize_query` applies the collection's normalization to a query:
  ADR 0018 §5's Persian normalization when it has Arabic-script letters
  (the only collections written in that script are Persian ones, normalized
  so at ingest: ``ك``/``ي`` typed on an Arabic keyboard become ``ک``/``ی``),
  NFC and whitespace otherwise (a Vietnamese query typed with combining
  accents is composed like the chunk texts).
- :func:`rank` scores every chunk of a :class:`~.index.LoadedIndex`: exact
  cosine (one float32 matrix-vector product, no approximation), BM25
  (:mod:`.lexical`), or both fused (``hybrid``: each list's top
  :data:`FUSION_DEPTH`, fused as :class:`Fusion` says: min-max scaled
  scores, 0.6 BM25 + 0.4 cosine, by default). Ties are broken
  by (doc_id, chunk_index) (:attr:`~.index.LoadedIndex.order`), so results
  are reproducible and do not depend on how the index is partitioned.

Nothing here imports Dagster.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

import numpy as np
from upath import UPath

from ..warehouse import Warehouse
from ..textnorm import normalize_nfc, normalize_persian
from .index import LoadedIndex

SearchMode = Literal["hybrid", "dense", "lexical"]
MODES: tuple[str, ...] = get_args(SearchMode)
MODE_ENV = "DUOCTHU_SEARCH_MODE"
# Chosen by `duocthu eval` on every gold collection (bench/README.md, "Search at scale").
DEFAULT_MODE: SearchMode = "hybrid"
RRF_K = 60
FUSION_DEPTH = 100


@dataclass(frozen=True)
class Fusion:
    """How ``hybrid`` fuses the lexical and the dense list (each list's top
    :data:`FUSION_DEPTH`): ``rrf`` (Σ weight/(:data:`RRF_K` + rank)) or
    ``minmax`` (each side's scores scaled to [0, 1] over the candidates,
    weighted sum); ``lexical_weight`` the lexical side's share (the dense
    side's is 1 − it)."""

    method: Literal["rrf", "minmax"] = "rrf"
    lexical_weight: float = 0.5

    def __post_init__(self) -> None:
        if self.method not in ("rrf", "minmax"):
            raise ValueError(f"unknown fusion {self.method!r}: use rrf or minmax")
        if not 0.0 <= self.lexical_weight <= 1.0:
            raise ValueError(f"the lexical weight must lie in [0, 1], got {self.lexical_weight}")

    @classmethod
    def parse(cls, text: str) -> "Fusion":
        """``rrf`` / ``minmax`` / ``minmax:0.6`` (method and lexical weight)."""
        method, _, weight = text.partition(":")
        return cls(method.strip(), float(weight)) if weight else cls(method.strip())  # type: ignore[arg-type]

    def __str__(self) -> str:
        return f"{self.method}:{self.lexical_weight:g}"


# Chosen by the dev half of eval/legal_qa (bench/RESULTS.md, "Issue 40").
DEFAULT_FUSION = Fusion("minmax", 0.5)  # legal_qa, legal_qa_fresh, formulary_qa: never below its better side at 1, 5, 10 (issue 40, evening)
FUSION_ENV = "DUOCTHU_SEARCH_FUSION"


def resolve_fusion(text: str | None = None) -> Fusion:
    """``text``, else ``$DUOCTHU_SEARCH_FUSION`` (``rrf:0.6``, ``minmax:0.7``), else :data:`DEFAULT_FUSION`."""
    chosen = text or os.environ.get(FUSION_ENV)
    if not chosen:
        return DEFAULT_FUSION
    try:
        return Fusion.parse(chosen)
    except ValueError as exc:
        raise ValueError(f"{exc}{'' if text else f' (from ${FUSION_ENV})'}") from None
MAX_K = 1000
MAX_QUERY_CHARS = 2000

_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")


def resolve_mode(mode: str | None = None) -> SearchMode:
    """``mode``, else ``$DUOCTHU_SEARCH_MODE``, else :data:`DEFAULT_MODE`."""
    chosen = mode or os.environ.get(MODE_ENV) or DEFAULT_MODE
    if chosen not in MODES:
        where = "" if mode else f" (from ${MODE_ENV})"
        raise ValueError(f"unknown search mode {chosen!r}{where}: use one of {', '.join(MODES)}")
    return chosen  # type: ignore[return-value]


def validate_query(query: Any, k: Any) -> tuple[str, int]:
    """The query and k if they can be answered; else ValueError saying why."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"the query is {len(query)} characters long; at most {MAX_QUERY_CHARS} are accepted")
    if "\x00" in query:
        raise ValueError("the query contains a NUL character")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"k must be a whole number, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k > MAX_K:
        raise ValueError(f"k must be at most {MAX_K}, got {k}")
    return query, int(k)


def normalize_query(query: str) -> str:
    """The query as the collection's normalization would have written it."""
    if _ARABIC_SCRIPT.search(query):
        return normalize_persian(query)
    return " ".join(normalize_nfc(query).splitlines())


# -- ranking --------------------------------------------------------------------------


def top_k(scores: np.ndarray, k: int, order: np.ndarray | None = None) -> np.ndarray:
    """Positions of the ``k`` highest ``scores``, best first, ties by
    ``order[position]`` (by position when None)."""
    n = len(scores)
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < n:
        kth = np.partition(scores, n - k)[n - k]
        candidates = np.flatnonzero(scores >= kth)
    else:
        candidates = np.arange(n)
    ranked = np.lexsort((candidates if order is None else order[candidates], -scores[candidates]))
    return candidates[ranked][:k]


def dense_scores(index: LoadedIndex, query_vector: np.ndarray) -> np.ndarray:
    """Cosine of every chunk with the query (the index rows are normalised)."""
    q = np.asarray(query_vector, dtype=np.float32)
    norm = float(np.linalg.norm(q))
    if norm == 0.0 or index.size == 0:
        return np.zeros(index.size, dtype=np.float32)
    return index.vectors @ (q / norm)


def rank(index: LoadedIndex, query: str, query_vector: np.ndarray | None, k: int, mode: SearchMode, fusion: Fusion = DEFAULT_FUSION) -> list[tuple[int, float]]:
    """(position in the index, score) of the best ``k`` chunks, best first.

    ``query`` must already be normalized; ``query_vector`` is needed unless
    ``mode`` is ``lexical``. A lexical list holds only chunks that share a
    term with the query, so ``lexical`` may answer fewer than ``k``.
    """
    if index.size == 0:
        return []
    order = index.order  # ties: (doc_id, chunk_index), whichever part a chunk sits in
    if mode == "dense":
        scores = dense_scores(index, query_vector)
        return [(int(p), float(scores[p])) for p in top_k(scores, k, order)]
    lexical = index.lexical_scores(query)
    if mode == "lexical":
        return [(int(p), float(lexical[p])) for p in top_k(lexical, k, order) if lexical[p] > 0]
    return fuse(dense_scores(index, query_vector), lexical, order, k, fusion)


def fuse(dense: np.ndarray, lexical: np.ndarray, order: np.ndarray, k: int, fusion: Fusion = DEFAULT_FUSION) -> list[tuple[int, float]]:
    """Each side's top :data:`FUSION_DEPTH` (lexical: only chunks sharing a
    term) fused as ``fusion`` says; best ``k`` first, ties by ``order``."""
    depth = max(k, FUSION_DEPTH)
    dense_top = top_k(dense, depth, order)
    lexical_top = [p for p in top_k(lexical, depth, order) if lexical[p] > 0]
    w = fusion.lexical_weight
    fused: dict[int, float] = {}
    if fusion.method == "rrf":
        for weight, ranking in ((1.0 - w, dense_top), (w, lexical_top)):
            for r, position in enumerate(ranking, start=1):
                fused[int(position)] = fused.get(int(position), 0.0) + 2.0 * weight / (RRF_K + r)
    else:
        candidates = np.unique(np.concatenate([dense_top, np.asarray(lexical_top, dtype=np.int64)]))
        d = dense[candidates].astype(np.float64)
        spread = float(d.max() - d.min()) if len(d) else 0.0
        d = (d - d.min()) / spread if spread > 0 else np.zeros_like(d)
        top = float(lexical[candidates].max()) if len(candidates) else 0.0
        lex = lexical[candidates].astype(np.float64) / top if top > 0 else np.zeros(len(candidates))
        for position, value in zip(candidates.tolist(), ((1.0 - w) * d + w * lex).tolist()):
            fused[int(position)] = value
    return sorted(fused.items(), key=lambda item: (-item[1], order[item[0]]))[:k]


# -- hits -----------------------------------------------------------------------------


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
    text_source: str = "layer"  # "ocr": read from a scan (issue 39)
    uncertain_spans: tuple[tuple[int, int], ...] = ()  # (offset, length) into ``text``: words OCR was unsure of
    scans: tuple[HitAttachment, ...] = ()  # an OCR'd chunk's regions of the scan, each a crop (kind "scan")
    document: str = ""  # the document's name: title and number as printed, else its file name
    document_number: str = ""  # "91/2015/QH13" when printed
    unit: str = ""  # "Điều 319", a monograph's section
    cite: str = ""  # "Bộ luật Dân sự 2015, Điều 319"

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


def _scans(warehouse: Warehouse, row: dict[str, Any]) -> tuple[HitAttachment, ...]:
    """An OCR'd chunk's segments' crops of the scan (``crops/<doc_id>/<segment_id>.png``,
    rendered by the crops asset), each with the page of its region."""
    if row.get("text_source") != "ocr":
        return ()
    regions = list(row.get("regions") or ())
    out = []
    for k, sid in enumerate(row.get("source_elements") or ()):
        region = regions[min(k, len(regions) - 1)] if regions else {}
        out.append(_crop(warehouse, row["doc_id"], {"block_id": sid, "kind": "scan", "shape": "scan_region", "quarantined": False,
                                                    "physical_page": region.get("page_no"), "printed_page": region.get("printed_page"),
                                                    "printed_label": region.get("printed_label")}))
    return tuple(a for a in out if a.crop_exists)


def _pages(regions: Sequence[dict[str, Any]] | None, key: str) -> tuple[int, ...]:
    return tuple(sorted({r[key] for r in regions or () if r.get(key) is not None}))


def make_hits(warehouse: Warehouse, index: LoadedIndex, ranked: Sequence[tuple[int, float]], names: Mapping[str, Any] | None = None) -> list[Hit]:
    """The :class:`Hit` for each (position, score), ranks from 1, each
    naming its document (``names``: :class:`.citation.DocumentNames` by
    doc_id) and unit."""
    from .structure import unit_label

    rows = index.hit_rows(p for p, _ in ranked)
    hits = []
    for rank_, ((_, score), row) in enumerate(zip(ranked, rows), start=1):
        named = (names or {}).get(row["doc_id"])
        document = named.display if named is not None else ""
        unit = unit_label(row["headings"], row["section_title"] or "", row["entry_title"] or "")
        hits.append(
            Hit(
                rank=rank_,
                score=float(score),
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
                text_source=row.get("text_source") or "layer",
                uncertain_spans=tuple((int(s["offset"]), int(s["length"])) for s in row.get("uncertain_spans") or ()),
                scans=_scans(warehouse, row),
                document=document,
                document_number=named.number if named is not None else "",
                unit=unit,
                cite=", ".join(part for part in (document, unit) if part),
            )
        )
    return hits
