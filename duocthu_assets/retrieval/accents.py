"""Accents put back (issue 40): a query typed without diacritics
(``the chap co hieu luc khi nao``) restored to the accented words the index
itself holds (``thế chấp có hiệu lực khi nào``), so it is searched as the
accented query would be.

Folding alone makes Vietnamese syllables collide: ``họ`` (a rotating-credit
group) and ``hộ`` (a household), ``có`` and ``cơ``, are one folded term, and
the folded field cannot tell which the person meant. The index can: each
folded syllable's accented forms are the index's own terms that fold to it,
and which of them follows which is counted in the index's own text.

:class:`AccentRestorer` is built once per loaded index from its chunks'
lexical text (heading trail and text, as :func:`.lexical.terms` analyzes
them): each term's count, each adjacent pair's count, and each folded form's
accented candidates. :meth:`AccentRestorer.restore` runs a Viterbi search
over the query's syllables: a candidate sequence scores the sum of
``log P(w_i | w_{i-1})``, the index's bigram estimate interpolated with the
unigram one (Jelinek-Mercer, :data:`BACKOFF`), so a pair the index never
holds still prefers the more frequent words. Only a query with no non-ASCII
character at all is restored (one typed with any accent is taken as
written); a syllable the index does not know is kept as typed and starts a
new chain.

An index of laws rarely writes how people ask: ``tôi``, ``muốn``, ``đang``
are absent or rare there, so ``toi muon`` came back ``tối mượn``. The
language at large fills that gap (:func:`general_frequencies`, ``wordfreq``'s
Vietnamese list, shipped in the package): its words join the candidates of a
syllable the index itself writes with accents (an English index gets none),
with :data:`GENERAL_WEIGHT` times their general probability as their unigram
estimate; a word the index holds keeps its own count, so the index's pairs
still decide among its words (``cho mượn``, ``tối đa``).

Nothing is stored: the counts come from the rows the index already holds,
and the index layout is unchanged. Nothing here imports Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .lexical import fold_term, terms

BACKOFF = 0.2  # the unigram estimate's share of a bigram one (Jelinek-Mercer): a pair the index never holds still weighs its words' frequency
GENERAL_WEIGHT = 0.5  # a word the index lacks: this times its probability in the language at large is its unigram estimate
MAX_CANDIDATES = 16  # accented forms of one folded syllable kept (the most frequent)
MAX_TOKENS = 5_000_000  # the counts are read from the first chunks holding this many terms (bounded load work)
_TERM = re.compile(r"\w+")


@dataclass(frozen=True)
class AccentRestorer:
    """Counts of the index's terms and adjacent pairs, and each folded
    syllable's accented forms (term ids, most frequent first)."""

    vocab: dict[str, int]
    words: list[str]
    unigram: np.ndarray  # int64 count of each term
    pair_keys: np.ndarray  # sorted int64 a * len(words) + b of each adjacent pair seen
    pair_counts: np.ndarray  # int64 count of each
    candidates: dict[str, np.ndarray]  # folded syllable -> term ids
    general: np.ndarray | None = None  # float64 probability of each term in the general language (None: no prior)
    pair_base: int = 0  # the index's own terms (ids below it): a pair's key is a * pair_base + b

    @classmethod
    def build(cls, texts: Iterable[str], max_tokens: int = MAX_TOKENS, general: Mapping[str, float] | None = None) -> AccentRestorer:
        """From the chunks' lexical texts, in index order (the first
        ``max_tokens`` terms' worth of chunks); ``general``: each word's
        probability in the language at large (:func:`general_frequencies`),
        whose words join the candidates with no count in the index."""
        analyzed: list[list[str]] = []
        total = 0
        for text in texts:
            found = terms(text) if text else []
            analyzed.append(found)
            total += len(found)
            if total >= max_tokens:
                break
        flat = pa.array(analyzed, pa.list_(pa.string()))
        encoded = pc.dictionary_encode(pc.list_flatten(flat))
        words = encoded.dictionary.to_pylist()
        ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        v = max(len(words), 1)
        unigram = np.bincount(ids, minlength=len(words)).astype(np.int64)
        same_chunk = np.ones(max(len(ids) - 1, 0), dtype=bool)
        ends = np.cumsum([len(a) for a in analyzed], dtype=np.int64)[:-1]
        same_chunk[ends[(ends > 0) & (ends < len(ids))] - 1] = False  # no pair across two chunks
        keys = (ids[:-1] * v + ids[1:])[same_chunk] if len(ids) > 1 else np.zeros(0, dtype=np.int64)
        pair_keys, pair_counts = np.unique(keys, return_counts=True)
        own = len(words)
        by_fold: dict[str, list[int]] = {}
        for i, word in enumerate(words):
            if word.isascii() and not word.isalpha():
                continue
            by_fold.setdefault(fold_term(word), []).append(i)
        prior = None
        if general and words:
            # a general word joins only a syllable the index itself writes with accents (so an English index gets none)
            accented = {f for f, members in by_fold.items() if any(not words[i].isascii() for i in members)}
            known = set(words)
            extra = sorted(w for w in general if w not in known and w.isalpha() and fold_term(w) in accented)
            for i, word in enumerate(extra, start=own):
                by_fold[fold_term(word)].append(i)
            words = words + extra  # after the index's own: their ids unchanged
            unigram = np.concatenate([unigram, np.zeros(len(extra), dtype=np.int64)])
            prior = np.array([general.get(w, 0.0) for w in words], dtype=np.float64)
        weight = unigram / max(float(unigram.sum()), 1.0) + (prior if prior is not None else 0.0)
        candidates = {
            f: np.array(sorted(members, key=lambda i: (-weight[i], words[i]))[:MAX_CANDIDATES], dtype=np.int64)
            for f, members in by_fold.items()
            if f.isascii()
        }
        return cls({w: i for i, w in enumerate(words)}, words, unigram, pair_keys, pair_counts.astype(np.int64), candidates, prior, own)

    def _pair_counts(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        base = max(self.pair_base, 1)
        keys = (a[:, None] * base + b[None, :]).ravel()
        own = ((a[:, None] < base) & (b[None, :] < base)).ravel()  # a general word (:func:`general_frequencies`) has no pairs
        at = np.searchsorted(self.pair_keys, keys)
        at = np.minimum(at, max(len(self.pair_keys) - 1, 0))
        found = (self.pair_keys[at] == keys) & own if len(self.pair_keys) else np.zeros(len(keys), dtype=bool)
        return np.where(found, self.pair_counts[at] if len(self.pair_counts) else 0, 0).reshape(len(a), len(b))

    def restore_terms(self, typed: Sequence[str]) -> list[str]:
        """The most likely accented form of each of ``typed`` (analyzed,
        folded terms); a term with no form in the index stays as typed."""
        total = float(self.unigram.sum()) or 1.0
        general = self.general

        def p_uni(ids: np.ndarray) -> np.ndarray:
            own = (self.unigram[ids] + 0.5) / (total + 0.5 * len(self.words))
            return own if general is None else np.where(ids < self.pair_base, own, GENERAL_WEIGHT * general[ids])

        out = list(typed)
        chain: list[tuple[int, np.ndarray]] = []
        for position, term in enumerate([*typed, ""]):
            cands = self.candidates.get(term) if term.isalpha() else None
            if cands is not None and len(cands):
                chain.append((position, cands))
                continue
            if chain:
                for (p, cands), best in zip(chain, self._viterbi([c for _, c in chain], p_uni)):
                    out[p] = self.words[int(cands[best])]
                chain = []
        return out

    def _viterbi(self, steps: list[np.ndarray], p_uni) -> list[int]:
        score = np.log(p_uni(steps[0]))
        back: list[np.ndarray] = []
        for prev, cur in pairwise(steps):
            pairs = self._pair_counts(prev, cur).astype(np.float64)
            seen = pairs / np.maximum(self.unigram[prev], 1)[:, None]  # c(prev, cur) / c(prev)
            cond = np.log((1 - BACKOFF) * seen + BACKOFF * p_uni(cur)[None, :])
            total = score[:, None] + cond
            back.append(np.argmax(total, axis=0))
            score = total.max(axis=0)
        best = [int(np.argmax(score))]
        for pointers in reversed(back):
            best.append(int(pointers[best[-1]]))
        return best[::-1]

    def restore(self, query: str) -> str:
        """``query`` with its syllables accented as the index most likely
        writes them; the query unchanged when it holds any non-ASCII
        character (typed with accents, or not Latin script)."""
        if not query.isascii() or not self.words:
            return query
        spans = list(_TERM.finditer(query))
        typed = [m.group().casefold() for m in spans]
        restored = self.restore_terms(typed)
        if restored == typed:
            return query
        pieces, last = [], 0
        for m, word, was in zip(spans, restored, typed):
            pieces.append(query[last : m.start()])
            pieces.append(word if word == was or not m.group()[:1].isupper() else word[:1].upper() + word[1:])
            last = m.end()
        pieces.append(query[last:])
        return "".join(pieces)


def has_no_accents(query: str) -> bool:
    """A query a restorer would restore: ASCII only, with a letter."""
    return query.isascii() and any(c.isalpha() for c in query)


def general_frequencies(language: str = "vi") -> dict[str, float]:
    """Each word's probability in ``language`` at large (``wordfreq``'s
    list, shipped inside the package: no download); empty when it is not
    installed."""
    try:
        from wordfreq import get_frequency_dict
    except ImportError:
        return {}
    return {w: p for w, p in get_frequency_dict(language, "small").items() if w.isalpha()}
