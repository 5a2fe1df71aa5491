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

Persisted (issue 20/21): :func:`lexical_table` is each chunk's analyzed
terms and their counts, stored with the chunk's row in its index part
(``search_index/parts/part-NN.parquet``, see :mod:`.layout`) when a
document's rows are built; a document whose chunks and embeddings files did
not change keeps its rows, so only the changed documents are analyzed again.
:meth:`LexicalIndex.from_counts` turns every part's terms into the same
bm25s index :meth:`LexicalIndex.build` makes from the texts — document
frequencies and the average length over the whole collection, so scores do
not depend on the partitioning — with array operations only (no analyzer,
no per-chunk Python loop).

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
from ..textnorm import normalize_persian

_DIGITS = str.maketrans({**{chr(0x06F0 + i): str(i) for i in range(10)}, **{chr(0x0660 + i): str(i) for i in range(10)}})
_TERM = re.compile(r"\w+")
_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")

K1 = 1.2
B = 0.75

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
    """BM25 (Lucene's variant, k1=1.2, b=0.75) over ``size`` documents."""

    size: int
    _bm25: Any  # bm25s.BM25, or None for an empty corpus

    @classmethod
    def from_counts(cls, table: pa.Table) -> "LexicalIndex":
        """The index :meth:`build` makes from the same chunks, from their
        :func:`lexical_table` (terms and counts) with array operations only:
        document frequencies, Lucene's IDF and term-frequency component as
        bm25s computes them, laid out as bm25s's term-major sparse matrix."""
        n = table.num_rows
        terms_col = table.column("terms").combine_chunks() if n else pa.array([], pa.list_(pa.string()))
        flat = pc.list_flatten(terms_col)
        if len(flat) == 0:
            return cls(n, None)
        encoded = pc.dictionary_encode(flat)
        term_ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        vocab = {term: i for i, term in enumerate(encoded.dictionary.to_pylist())}
        tf = pc.list_flatten(table.column("counts").combine_chunks()).to_numpy(zero_copy_only=False).astype(np.float32)
        per_row = pc.list_value_length(terms_col).to_numpy(zero_copy_only=False).astype(np.int64)
        rows = np.repeat(np.arange(n, dtype=np.int64), per_row)
        lengths = table.column("length").to_numpy().astype(np.int64)
        avg = np.array(lengths).mean()
        df = np.bincount(term_ids, minlength=len(vocab))
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5)).astype(np.float32)  # bm25s: float64 math, float32 array
        tfc = tf / (K1 * ((1 - B) + B * lengths[rows] / avg) + tf)
        data = (idf[term_ids] * tfc).astype(np.float32)
        order = np.argsort(term_ids, kind="stable")  # term-major; rows ascend already, and a stable sort keeps them so
        indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        import bm25s

        bm25 = bm25s.BM25(k1=K1, b=B, method="lucene", backend="numpy", csc_backend="numpy")
        bm25.scores = {"data": data[order], "indices": rows[order].astype(np.int32), "indptr": indptr, "num_docs": n}
        bm25.vocab_dict = vocab
        bm25.unique_token_ids_set = set(vocab.values())
        bm25.nonoccurrence_array = None
        return cls(n, bm25)

    @classmethod
    def build(cls, documents: Sequence[str]) -> "LexicalIndex":
        """Analyze ``documents`` straight into term ids (no per-document
        lists of strings kept: at 100,000 chunks that is gigabytes) and hand
        them to bm25s with the vocabulary."""
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in terms(d)] for d in documents]
        if not vocab:  # no document has a single term: nothing can match
            return cls(len(documents), None)
        import bm25s

        bm25 = bm25s.BM25(k1=K1, b=B, method="lucene", backend="numpy", csc_backend="numpy")
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


def term_counts(text: str) -> tuple[list[str], list[int], int]:
    """The distinct terms of ``text`` (sorted), how often each occurs, and
    how many terms it has in all."""
    counter = Counter(terms(text))
    keys = sorted(counter)
    return keys, [counter[k] for k in keys], sum(counter.values())


def lexical_table(doc_ids: Sequence[str], chunk_indexes: Sequence[int], documents: Sequence[str]) -> pa.Table:
    """One row per chunk: its doc_id, chunk_index and :func:`term_counts` of
    its lexical text (see ``index.lexical_documents``)."""
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
