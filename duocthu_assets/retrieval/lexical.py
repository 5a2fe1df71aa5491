"""The lexical half of hybrid search: BM25 (``bm25s``, numpy backend: no
download, no compiler) over the chunks of the index.

Texts and queries go through the same analyzer, :func:`terms`:

- ADR 0018 §5's Persian normalization (NFKC, ``ك``→``ک``, ``ي``/``ى``→``ی``,
  ``أ``/``إ``→``ا``, harakat and tatweel dropped), which is the identity on
  Vietnamese and English text in NFC apart from compatibility forms
  (``ﬁ``, ``²``); so a query typed with an Arabic keyboard matches a
  contract normalized at ingest, and the other way round;
- Persian and Arabic-Indic digits folded to ASCII (``ماده ۱۷`` finds
  ``ماده 17``);
- case folded, then split into runs of word characters: ``Điều 17`` is
  ``điều`` + ``17``, an ATC code ``J01CR01`` one term, ``Vancomycin`` one term.

No stemming and no stop words: BM25's IDF already weighs ``của``/``và``
down, and a stemmer for Vietnamese or Persian would be a guess.

Beside this exact field, a *folded* one (issue 40): every term through
:func:`~duocthu_assets.textnorm.fold` (``điều`` → ``dieu``, ``đ`` → ``d``,
``ك``/``ي`` → ``ک``/``ی``), derived from the persisted terms when a part is
read (:meth:`PartTerms.folded`: the part's vocabulary folded, postings of
terms that fold alike merged; no text analyzed, the layout unchanged). A
query is scored on both (:func:`lexical_scores`): typed with accents the
exact field leads, typed without them the folded field finds what the exact
one would have. A Persian word typed joined where the text has a
zero-width non-joiner (``میخواهم`` for ``می‌خواهم``) is split at a known
affix when the joined form is not in the folded vocabulary
(:func:`folded_query_terms`).

Persisted (issue 20/21): :func:`lexical_table` is each chunk's analyzed
terms and their counts, stored with the chunk's row in its index part
(``search_index/parts/part-NN.parquet``, see :mod:`.layout`) when a
document's rows are built; a document whose chunks and embeddings files did
not change keeps its rows, so only the changed documents are analyzed again.
:class:`PartTerms` turns a part's terms into postings (array operations
only: no analyzer, no per-chunk Python loop) when the part is read, and
:class:`CollectionBM25` scores a query over every part with the document
frequencies and average length of the whole collection — the scores
:meth:`LexicalIndex.build` (bm25s over the texts, the reference the tests
compare with) gives, bit for bit — so a refreshed part is all a warm
searcher analyzes again.

Nothing here imports Dagster.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..model import SCHEMA_VERSION
from ..textnorm import fold, normalize_persian

_DIGITS = str.maketrans({**{chr(0x06F0 + i): str(i) for i in range(10)}, **{chr(0x0660 + i): str(i) for i in range(10)}})
_TERM = re.compile(r"\w+")
_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")

K1 = 1.2
# How much a chunk's length discounts its term counts (BM25's b). Lucene's 0.75 lets a one-line chunk that
# only repeats a monograph's or a form's name outrank the section that answers; 0.55 was chosen on all five
# dev question sets (issue 40, evening: a plateau from 0.5 to 0.6; bench/RESULTS.md "Issue 40 (answers40d)").
B = 0.55
LUCENE_B = 0.75  # the textbook value, kept for the plain pipeline baseline (bench/plain_pipeline.py)

LEXICAL_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("chunk_index", pa.int32()),
        ("terms", pa.list_(pa.string())),  # distinct terms, sorted
        ("counts", pa.list_(pa.int32())),  # how often each occurs
        ("length", pa.int32()),  # terms in the chunk (with repeats): BM25's document length
        ("schema_version", pa.int32()),  # as every Parquet file of the warehouse carries it
    ]
)


def terms(text: str) -> list[str]:
    """The analyzer, for chunk texts and queries alike."""
    text = unicodedata.normalize("NFKC", text)
    if _ARABIC_SCRIPT.search(text):  # the Persian steps change nothing else; skip them (10x faster)
        text = normalize_persian(text).translate(_DIGITS)
    return _TERM.findall(text.casefold())


@dataclass
class LexicalIndex:
    """BM25 (Lucene's variant, k1 :data:`K1`, b :data:`B` unless given) over ``size`` documents."""

    size: int
    _bm25: Any  # bm25s.BM25, or None for an empty corpus

    @classmethod
    def build(cls, documents: Sequence[str], b: float = B) -> "LexicalIndex":
        """Analyze ``documents`` straight into term ids (no per-document
        lists of strings kept: at 100,000 chunks that is gigabytes) and hand
        them to bm25s with the vocabulary."""
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in terms(d)] for d in documents]
        if not vocab:  # no document has a single term: nothing can match
            return cls(len(documents), None)
        import bm25s

        bm25 = bm25s.BM25(k1=K1, b=b, method="lucene", backend="numpy", csc_backend="numpy")
        bm25.index((ids, vocab), create_empty_token=False, show_progress=False)
        return cls(len(documents), bm25)

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document for ``query`` (float32, 0 where no
        term of the query occurs)."""
        if self._bm25 is None:
            return np.zeros(self.size, dtype=np.float32)
        ids = self._bm25.get_tokens_ids(terms(query))
        if not ids:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(ids), dtype=np.float32)


@dataclass(frozen=True)
class PartTerms:
    """One index part's postings, from its persisted terms and counts
    (:func:`lexical_table`'s columns): for each term, the part's rows that
    hold it (ascending) and how often; each row's length."""

    vocab: dict[str, int]  # term -> its slot in indptr
    indptr: np.ndarray  # term t's postings are rows[indptr[t]:indptr[t + 1]]
    rows: np.ndarray  # int64, row in the part
    tf: np.ndarray  # float32, the term's count in that row
    lengths: np.ndarray  # int64, each row's length

    def folded(self) -> "PartTerms":
        """The same postings with every term folded (:func:`fold_term`);
        terms that fold alike are one term, their counts in a row added."""
        if not self.vocab:
            return self
        old_terms = sorted(self.vocab, key=self.vocab.__getitem__)
        new_vocab: dict[str, int] = {}
        remap = np.array([new_vocab.setdefault(fold_term(t), len(new_vocab)) for t in old_terms], dtype=np.int64)
        term_of = np.repeat(remap, np.diff(self.indptr))
        order = np.lexsort((self.rows, term_of))
        keys, rows, tf = term_of[order], self.rows[order], self.tf[order]
        first = np.ones(len(keys), dtype=bool)
        first[1:] = (keys[1:] != keys[:-1]) | (rows[1:] != rows[:-1])
        starts = np.flatnonzero(first)
        merged_tf = np.add.reduceat(tf, starts).astype(np.float32) if len(starts) else tf
        merged_keys = keys[starts]
        indptr = np.zeros(len(new_vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(merged_keys, minlength=len(new_vocab)), out=indptr[1:])
        return PartTerms(new_vocab, indptr, rows[starts], merged_tf, self.lengths)

    @classmethod
    def from_counts(cls, table: pa.Table) -> "PartTerms":
        n = table.num_rows
        terms_col = table.column("terms").combine_chunks() if n else pa.array([], pa.list_(pa.string()))
        encoded = pc.dictionary_encode(pc.list_flatten(terms_col))
        ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        per_row = pc.list_value_length(terms_col).to_numpy(zero_copy_only=False).astype(np.int64)
        order = np.argsort(ids, kind="stable")  # term-major; rows ascend within a term (a stable sort keeps them so)
        indptr = np.zeros(len(encoded.dictionary) + 1, dtype=np.int64)
        np.cumsum(np.bincount(ids, minlength=len(encoded.dictionary)), out=indptr[1:])
        counts = pc.list_flatten(table.column("counts").combine_chunks()) if n else pa.array([], pa.int32())
        return cls(
            vocab={term: i for i, term in enumerate(encoded.dictionary.to_pylist())},
            indptr=indptr,
            rows=np.repeat(np.arange(n, dtype=np.int64), per_row)[order],
            tf=counts.to_numpy(zero_copy_only=False).astype(np.float32)[order],
            lengths=table.column("length").to_numpy().astype(np.int64) if n else np.zeros(0, dtype=np.int64),
        )


class CollectionBM25:
    """BM25 over the rows of several parts, one after the other, with the
    statistics of the whole collection: a term's document frequency is the
    sum of its postings in every part, the average length that of every row.
    A row's score is, bit for bit, the one :meth:`LexicalIndex.build` gives
    it over the same rows in one index (bm25s's Lucene variant: IDF and the
    term-frequency component in float64, each term's contribution rounded to
    float32, summed in float32 in the query's term order); made from parts
    that are already analyzed, so a new part costs only its own postings."""

    def __init__(self, parts: Sequence[PartTerms]):
        self.parts = list(parts)
        sizes = [len(p.lengths) for p in self.parts]
        self.offsets = np.cumsum([0, *sizes])[:-1].tolist()
        self.size = int(sum(sizes))
        total = sum(int(p.lengths.sum()) for p in self.parts)  # exact: an integer sum, as numpy's mean of int64 computes it
        self.avg = total / self.size if self.size else 0.0

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every row for ``query`` (float32, 0 where no term of the query occurs)."""
        return self.term_scores(terms(query))

    def has(self, term: str) -> bool:
        return any(term in p.vocab for p in self.parts)

    def term_scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """:meth:`scores` for terms already analyzed."""
        out = np.zeros(self.size, dtype=np.float32)
        for term in query_terms:  # repeats count again, as in bm25s
            hits = [(p, offset, p.vocab[term]) for p, offset in zip(self.parts, self.offsets) if term in p.vocab]
            if not hits:
                continue
            df = np.array([sum(int(p.indptr[t + 1] - p.indptr[t]) for p, _, t in hits)], dtype=np.int64)
            idf = np.log(1 + (self.size - df + 0.5) / (df + 0.5)).astype(np.float32)[0]
            for part, offset, t in hits:
                start, end = part.indptr[t], part.indptr[t + 1]
                rows, tf = part.rows[start:end], part.tf[start:end]
                tfc = tf / (K1 * ((1 - B) + B * part.lengths[rows] / self.avg) + tf)
                np.add.at(out, rows + offset, (idf * tfc).astype(np.float32))
        return out


_FOLDED: dict[str, str] = {}


def fold_term(term: str) -> str:
    """:func:`~duocthu_assets.textnorm.fold` of one analyzed term (memoized:
    a vocabulary repeats across parts)."""
    found = _FOLDED.get(term)
    if found is None:
        if len(_FOLDED) > 1_000_000:
            _FOLDED.clear()
        found = _FOLDED[term] = fold(term).replace(" ", "")
    return found


# Persian affixes written joined or after a zero-width non-joiner.
_PREFIXES = ("نمی", "می", "بی")
_SUFFIXES = ("هایی", "های", "ها", "ترین", "تر", "ای", "ام", "ات", "اش", "اند", "ایم", "اید", "ی")


def folded_query_terms(query: str, folded: "CollectionBM25") -> list[str]:
    """The query's folded terms; a joined Persian word absent from the
    folded vocabulary is split at a known affix when both halves are in it."""
    out: list[str] = []
    for term in (fold_term(t) for t in terms(query)):
        if not term or folded.has(term) or not _ARABIC_SCRIPT.search(term):
            out.append(term)
            continue
        split = next(
            ([term[: len(p)], term[len(p) :]] for p in _PREFIXES if term.startswith(p) and len(term) > len(p) and folded.has(term[len(p) :])),
            None,
        ) or next(
            ([term[: -len(s)], term[-len(s) :]] for s in _SUFFIXES if term.endswith(s) and len(term) > len(s) and folded.has(term[: -len(s)])),
            None,
        )
        out.extend(split or [term])
    return out


def lexical_scores(exact: "CollectionBM25", folded: "CollectionBM25", query: str) -> np.ndarray:
    """A query's lexical score: BM25 on the exact field plus BM25 on the
    folded field (the query folded the same way)."""
    return exact.scores(query) + folded.term_scores(folded_query_terms(query, folded))


# Words a question is asked with, not about (issue 40): folded, matched as
# whole runs of a query's terms (``như thế nào`` and ``nhu the nao`` alike);
# single words only as written with accents (folded, ``toi`` is also ``tội``).
QUESTION_PHRASES = tuple(
    tuple(p.split())
    for p in (
        "quy dinh gi", "quy dinh nhu the nao", "nhu the nao", "the nao", "ra sao", "khi nao", "tu khi nao", "la gi",
        "lam sao", "phai lam gi", "lam gi", "co duoc khong", "duoc khong", "hay khong", "co phai", "bao gio",
    )
)
QUESTION_WORDS = frozenset({"tôi", "gì", "không", "nào", "sao", "ạ", "nhỉ", "nhé"})


def without_question_words(query: str) -> str:
    """``query``'s terms but the words it is asked with (:data:`QUESTION_PHRASES`,
    :data:`QUESTION_WORDS`); the query itself when nothing else is left."""
    exact = terms(query)
    folded = [fold_term(t) for t in exact]
    keep = [t not in QUESTION_WORDS for t in exact]
    for phrase in QUESTION_PHRASES:
        n = len(phrase)
        for i in range(len(folded) - n + 1):
            if tuple(folded[i : i + n]) == phrase:
                keep[i : i + n] = [False] * n
    kept = [t for t, k in zip(exact, keep) if k]
    return " ".join(kept) if kept and len(kept) < len(exact) else query


def term_counts(text: str) -> tuple[list[str], list[int], int]:
    """The distinct terms of ``text`` (sorted), how often each occurs, and
    how many terms it has in all."""
    counter = Counter(terms(text))
    keys = sorted(counter)
    return keys, [counter[k] for k in keys], sum(counter.values())


def lexical_table(doc_ids: Sequence[str], chunk_indexes: Sequence[int], documents: Sequence[str]) -> pa.Table:
    """One row per chunk: its doc_id, chunk_index and :func:`term_counts` of
    its lexical text (see ``document_rows.lexical_documents``)."""
    analyzed = [term_counts(d) for d in documents]
    return pa.Table.from_arrays(
        [
            pa.array(list(doc_ids), pa.string()),
            pa.array(list(chunk_indexes), pa.int32()),
            pa.array([a[0] for a in analyzed], pa.list_(pa.string())),
            pa.array([a[1] for a in analyzed], pa.list_(pa.int32())),
            pa.array([a[2] for a in analyzed], pa.int32()),
            pa.array([SCHEMA_VERSION] * len(analyzed), pa.int32()),
        ],
        schema=LEXICAL_SCHEMA,
    )
