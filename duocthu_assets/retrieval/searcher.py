"""The Python API: a :class:`Searcher` holds one warehouse's index warm.

    from duocthu_assets.retrieval import Searcher
    searcher = Searcher("data/warehouse")           # the embedder from DUOCTHU_EMBED_*
    for a in searcher.answer("liều vancomycin suy thận", k=10):
        print(a.mode, a.printed_pages, a.text)       # ADR 0006 applied

The index is read once, then kept in memory; before every query the
manifest's stamp (inode, size, mtime) is compared with the loaded one, and a
re-materialized index (a refresh replaces the manifest by a rename) is read
again — only its parts whose key changed — under a lock, while other
threads keep answering from the one they hold. ``duocthu search`` is one Searcher used once; ``duocthu serve`` is one
Searcher behind HTTP; :func:`search` and :func:`answer` keep a few Searchers
(per warehouse) so repeated calls (``duocthu eval``) stay warm too.

Nothing here imports Dagster.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..embed.base import Embedder
from ..warehouse import Warehouse
from .accents import has_no_accents
from .answer import Answer, answer_payload, format_hits, render_answer
from .citation import named_documents, parse_citation, query_fold
from .clauses import interleave, split_clauses
from .index import LoadedIndex, SearchError, file_stamp, load_index
from .layout import INDEX_ASSET, LayoutError
from .names import document_names
from .query import RRF_K, Fusion, resolve_fusion, SearchMode, make_hits, normalize_query, rank, resolve_mode, validate_query
from .spread import by_document, own_text_first, spread
from .structure import Resolution, resolve

SPREAD_CAP = 1  # each unit's first chunk before any unit's second (:mod:`.spread`): chosen on the dev gold
OTHER_DOCUMENT_AT = 2  # where the base's best goes when the one document a query names does not hold it (dev gold: 2 or 3 alike)
AMENDING_DEPTH = 2  # an amending article first gives way to the next unit (:func:`.spread.own_text_first`; dev gold: 2 and 3 alike)
RESOLVE_DEPTH = 100  # how much of the base ranking orders a cited unit's chunks and is narrowed to named documents

_AMENDS = re.compile(r"\bsua doi\b")  # "sửa đổi" in a folded query: it asks about an amendment
_FORMS = re.compile(r"\b(?:mau|bieu mau|phu luc|to khai)\b")  # "mẫu", "phụ lục" …: it asks about a form or an annex

_MODE_NOTES = {
    "lexical": "ranked by BM25 alone (no embedding); score = BM25 over the exact and the accent-folded terms",
    "dense": "",
}


def _hybrid_note(fusion: Fusion) -> str:
    w = fusion.lexical_weight
    if fusion.method == "rrf":
        return f"ranked by hybrid search: BM25 and cosine similarity fused by reciprocal rank; score = sum of 2 x weight/({RRF_K} + rank), weights BM25 {w:g}, cosine {1 - w:g}"
    return f"ranked by hybrid search: BM25 and cosine similarity each scaled to [0, 1] over the candidates; score = {w:g} x BM25 + {1 - w:g} x cosine"


class Searcher:
    """Search one warehouse from a warm index (see the module docstring).

    ``embedder``: the query embedder (default: from ``DUOCTHU_EMBED_*``,
    made on first use); ``mode``: ``hybrid``, ``dense`` or ``lexical``
    (default: ``$DUOCTHU_SEARCH_MODE`` or :data:`~.query.DEFAULT_MODE`).
    Thread-safe.
    """

    def __init__(self, warehouse: Warehouse | str | os.PathLike[str], embedder: Embedder | None = None, mode: str | None = None, fusion: "Fusion | None" = None, accents: bool = True):
        self.warehouse = warehouse if isinstance(warehouse, Warehouse) else Warehouse(warehouse)
        self.mode: SearchMode = resolve_mode(mode)
        self._embedder = embedder
        self._index: LoadedIndex | None = None
        self._lock = threading.Lock()  # making the embedder
        self._reload_lock = threading.Lock()
        self.loads = 0  # how many times the index file was read
        self.fusion = fusion or resolve_fusion()
        self._names: tuple[LoadedIndex, dict] | None = None
        self.accents = accents  # restore the accents of a query typed without any (:mod:`.accents`)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    from ..embed.base import EmbedderConfig
                    from ..embed.factory import make_embedder

                    self._embedder = make_embedder(EmbedderConfig.from_env())
        return self._embedder

    def index(self) -> LoadedIndex:
        """The loaded index, read again first if the file changed.

        While one thread reads a new file, the others keep answering from the
        index they have (a 100,000-chunk index takes seconds to read and to
        build its lexical index); the first load is waited for."""
        stamp = file_stamp(self.warehouse)
        if stamp is None:
            raise SearchError(f"no search index at {self.warehouse.asset_path(INDEX_ASSET)}: run `duocthu ingest` first")
        current = self._index
        if current is not None and current.stamp == stamp:
            return current
        if not self._reload_lock.acquire(blocking=current is None):
            return current  # another thread is loading the new file
        try:
            if self._index is None or self._index.stamp != file_stamp(self.warehouse):
                try:
                    loaded = load_index(self.warehouse, self._index)  # only the parts that changed are read
                    if loaded is not None and self.mode != "dense" and loaded.size:
                        loaded.lexical(), loaded.folded()  # built before it answers, not by the first query
                    if loaded is not None and self.accents and loaded.size:
                        loaded.restorer()
                except (OSError, ValueError, LayoutError) as exc:
                    raise SearchError(f"the search index at {self.warehouse.asset_path(INDEX_ASSET)} cannot be read: {exc}") from exc
                if loaded is None:
                    raise SearchError(f"no search index at {self.warehouse.asset_path(INDEX_ASSET)}: run `duocthu ingest` first")
                self._index = loaded
                self.loads += 1
            return self._index
        finally:
            self._reload_lock.release()

    def warm(self) -> LoadedIndex:
        """Load the index (and the lexical index and the embedder, if the mode
        uses them) now rather than on the first query."""
        index = self.index()
        if self.mode != "lexical":
            self.embedder.embed_query("warm up")
        return index

    def names(self, index: LoadedIndex) -> dict:
        """Every indexed document's names (:mod:`.names`), read once per loaded index."""
        cached = self._names
        if cached is not None and cached[0] is index:
            return cached[1]
        names = document_names(self.warehouse, sorted(set(index.rows.column("doc_id").to_pylist())))
        self._names = (index, names)
        return names

    def _ranked(self, query: str, k: int, mode: str | None, embedder: Embedder | None) -> tuple[LoadedIndex, list[tuple[int, float]], Resolution]:
        query, k = validate_query(query, k)
        chosen = resolve_mode(mode) if mode else self.mode
        index = self.index()
        if index.size == 0:
            return index, [], Resolution("")
        normalized = normalize_query(query)
        names = self.names(index)
        named = named_documents(normalized, names.values())
        # a query naming two documents is ranked whole, each document's units in turn (apply_resolution), not split
        clauses = split_clauses(normalized, lambda text: named_documents(text, names.values())) if parse_citation(normalized) is None and len(named) < 2 else []
        if clauses:  # two questions in one: each ranked on its own, interleaved
            ranked = interleave([self._one(index, clause, k, chosen, embedder)[0] for clause in clauses], k)
            return index, ranked, Resolution("", documents=tuple(named))
        ranked, resolution = self._one(index, normalized, k, chosen, embedder, named)
        return index, ranked, resolution

    def _one(self, index: LoadedIndex, normalized: str, k: int, chosen: SearchMode, embedder: Embedder | None,
             named: list[str] | None = None) -> tuple[list[tuple[int, float]], Resolution]:
        """One query's final ranking and what it cites (``named``: the
        documents it names, when already looked up)."""
        searched = index.restorer().restore(normalized) if self.accents and has_no_accents(normalized) else normalized
        vector = None
        if chosen != "lexical":
            embedder = embedder or self.embedder
            if index.info.model_id != embedder.model_id:
                raise SearchError(
                    f"the index was built with {index.info.model_id!r} but the query embedder is {embedder.model_id!r}; "
                    "configure the same model (DUOCTHU_EMBED_*) or re-ingest"
                )
            import numpy as np

            vector = np.asarray(embedder.embed_query(searched), dtype=np.float32)
            if vector.shape != (index.vectors.shape[1],):
                raise SearchError(f"query vector has shape {vector.shape}, the index has dimension {index.vectors.shape[1]}")
        base = rank(index, searched, vector, max(k, RESOLVE_DEPTH), chosen, self.fusion)
        structure = index.structure()
        resolution = resolve(structure, self.names(index), normalized, [p for p, _ in base], index.text, named, known=index.folded().has)
        base = spread(base, lambda hit: structure.unit_of(hit[0]), SPREAD_CAP)  # after the resolution: it orders a unit's chunks itself
        ranked = apply_resolution(resolution, base, index, k)
        return amendments_after(ranked, resolution, structure.amending, normalized, structure.outside_articles), resolution

    def search(self, query: str, k: int = 5, *, mode: str | None = None, embedder: Embedder | None = None) -> list:
        """The best ``k`` hits (:class:`~.query.Hit`), best first.
        ValueError for a query or k that cannot be answered (saying why),
        SearchError when the index cannot answer."""
        index, ranked, _ = self._ranked(query, k, mode, embedder)
        return make_hits(self.warehouse, index, ranked, self.names(index))

    def answer(self, query: str, k: int = 5, *, mode: str | None = None, embedder: Embedder | None = None) -> list[Answer]:
        """:meth:`search` with ADR 0006's obligations applied to every hit."""
        return [render_answer(hit) for hit in self.search(query, k, mode=mode, embedder=embedder)]

    def resolved(self, query: str, k: int = 5, *, mode: str | None = None, embedder: Embedder | None = None) -> tuple[list[Answer], list[str], Resolution]:
        """The answers, the notes that go with them (unsearchable documents,
        how the hits were ranked, what the query cites) and the citation's
        :class:`~.structure.Resolution`."""
        index, ranked, resolution = self._ranked(query, k, mode, embedder)
        answers = [render_answer(hit) for hit in make_hits(self.warehouse, index, ranked, self.names(index))]
        notes = notes_for(index, resolve_mode(mode) if mode else self.mode, self.fusion)
        if resolution.status == "found":
            notes.append(f"cited: {resolution.label}, found and shown first")
        elif resolution.status == "missing" and resolution.unindexed:
            notes.append(f"cited: {resolution.label}, not in the index: {resolution.message}")
        elif resolution.status == "missing":
            notes.append(f"cited: {resolution.label}, which does not exist: {resolution.message}")
        elif resolution.unindexed:
            notes.append(f"{' and '.join(resolution.unindexed)}: not in the index; these hits are from the documents it holds")
        return answers, notes, resolution

    def respond(self, query: str, k: int = 5, *, mode: str | None = None, embedder: Embedder | None = None) -> tuple[list[Answer], list[str]]:
        """The answers and the notes that go with them: what the CLI prints and the server returns."""
        answers, notes, _ = self.resolved(query, k, mode=mode, embedder=embedder)
        return answers, notes

    def payload(self, query: str, k: int = 5, *, mode: str | None = None) -> dict[str, Any]:
        """The JSON object of ``duocthu search --json`` (schema duocthu.search/2)."""
        answers, notes, resolution = self.resolved(query, k, mode=mode)
        return answer_payload(answers, query=query, notes=notes, citation=resolution.cited())

    def format(self, query: str, k: int = 5, *, as_json: bool = False, mode: str | None = None) -> str:
        answers, notes, resolution = self.resolved(query, k, mode=mode)
        return format_hits(answers, as_json, query=query, notes=notes, citation=resolution.cited())


def apply_resolution(resolution: Resolution, base: list[tuple[int, float]], index: LoadedIndex, k: int) -> list[tuple[int, float]]:
    """The final ranking: a cited unit's chunks first (nothing when the cited
    unit does not exist), then the base ranking, the documents the query
    names before the others: two or more named, their units in turn; one
    named, the base's best kept second when another document holds it (the
    question may ask about both)."""
    if resolution.status == "missing":
        return []
    scores = dict(base)
    head = [(p, scores.get(p, 0.0)) for p in resolution.positions] if resolution.status in ("found", "entry") else []
    taken = {p for p, _ in head}
    rest = [(p, s) for p, s in base if p not in taken]
    doc_ids = index.rows.column("doc_id")
    if resolution.documents:
        named = set(resolution.documents)
        if len(named) > 1:  # each named document's units in turn (:func:`.spread.by_document`)
            rest = by_document(rest, lambda hit: doc_ids[hit[0]].as_py(), sorted(named))
        else:
            inside = [(p, s) for p, s in rest if doc_ids[p].as_py() in named]
            outside = [(p, s) for p, s in rest if doc_ids[p].as_py() not in named]
            if resolution.status == "" and outside and rest[0] == outside[0]:
                # the base ranking's best is in a document the query does not name: a second question's answer, kept in view
                inside.insert(OTHER_DOCUMENT_AT - 1, outside.pop(0))
            rest = inside + outside
    return (head + rest)[:k]


def amendments_after(ranked: list[tuple[int, float]], resolution: Resolution, amending: set[int] | frozenset[int], query: str,
                     outside: Callable[[int], bool] | None = None) -> list[tuple[int, float]]:
    """``ranked`` with first place given to the next unit that rules itself
    (:func:`.spread.own_text_first`) when it goes to an amending article
    (unless the query asks about an amendment, ``sửa đổi``) or, ``outside``
    saying which, to a chunk of a document with articles that lies in none
    (its title page, an annexed form, the signature block: unless the query
    asks about a form, ``mẫu``, ``phụ lục``); never when the query cites a unit."""
    if resolution.status:
        return ranked
    folded = query_fold(query)
    amends, forms = not _AMENDS.search(folded), outside is not None and not _FORMS.search(folded)
    if not amends and not forms:
        return ranked
    return own_text_first(ranked, lambda hit: (amends and hit[0] in amending) or (forms and outside(hit[0])), AMENDING_DEPTH)


def notes_for(index: LoadedIndex, mode: SearchMode, fusion: Fusion | None = None) -> list[str]:
    notes = []
    if index.info.excluded:
        listed = "; ".join(f"{doc}: {why}" for doc, why in sorted(index.info.excluded.items()))
        notes.append(f"{len(index.info.excluded)} document(s) are not searchable: {listed}")
    note = _hybrid_note(fusion or resolve_fusion()) if mode == "hybrid" else _MODE_NOTES[mode]
    if note and index.size:
        notes.append(note)
    return notes


# -- the module-level functions ---------------------------------------------------------

_CACHE_SIZE = 4
_searchers: "OrderedDict[str, Searcher]" = OrderedDict()
_searchers_lock = threading.Lock()


def searcher_for(warehouse: Warehouse) -> Searcher:
    """A cached :class:`Searcher` for ``warehouse`` (the last few are kept)."""
    key = str(warehouse.root)
    with _searchers_lock:
        found = _searchers.get(key)
        if found is None or found.mode != resolve_mode():
            found = _searchers[key] = Searcher(warehouse)
        _searchers.move_to_end(key)
        while len(_searchers) > _CACHE_SIZE:
            _searchers.popitem(last=False)
        return found


def search(warehouse: Warehouse, query: str, k: int = 5, embedder: Embedder | None = None, *, mode: str | None = None) -> list:
    """The ``k`` best hits of ``warehouse``'s index for ``query``, best first
    (mode: see :class:`Searcher`); ties broken by (doc_id, chunk_index)."""
    validate_query(query, k)
    return searcher_for(warehouse).search(query, k, mode=mode, embedder=embedder)


def answer(warehouse: Warehouse, query: str, k: int = 5, embedder: Embedder | None = None, *, mode: str | None = None) -> list[Answer]:
    """:func:`search` then :func:`~.answer.render_answer` for every hit."""
    return [render_answer(hit) for hit in search(warehouse, query, k, embedder, mode=mode)]
