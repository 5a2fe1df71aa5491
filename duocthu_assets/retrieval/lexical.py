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

Nothing here imports Dagster.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..textnorm import normalize_persian

_DIGITS = str.maketrans({**{chr(0x06F0 + i): str(i) for i in range(10)}, **{chr(0x0660 + i): str(i) for i in range(10)}})
_TERM = re.compile(r"\w+")
_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")

K1 = 1.2
B = 0.75


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
