"""Finding hand-written anchors in a document's canonical text.

Gold is written by a person reading the document, not the pipeline's output,
so it cannot rely on the canonical text's exact characters: a heading may be
prefixed with ``#``, cells joined with `` | ``, lines broken differently, a
PDF may give decomposed diacritics. Everything is therefore compared in a
*normalized* space:

- NFKC per grapheme cluster (a base character and its combining marks), then
  ``casefold``;
- every decimal digit (Persian ``۴``, Arabic-Indic ``٤``) becomes ASCII;
  Arabic ``ي ى ك`` become Persian ``ی ی ک`` (ADR 0018 §5's folds);
- every character that is not a letter, digit or combining mark is a
  separator; runs of separators become one space; leading and trailing
  separators are dropped.

:class:`NormalizedText` keeps, for every normalized character, the offset of
the raw character it came from, so positions map both ways. Positions and
distances in the evaluation (boundary tolerance, bleed, relevance) are counted
in this space: punctuation, markup and whitespace never count.
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass

_FOLDS = {"\u064a": "\u06cc", "\u0649": "\u06cc", "\u0643": "\u06a9"}


def _clusters(text: str):
    """(raw offset, cluster) for each base character with its combining marks."""
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        while j < n and unicodedata.combining(text[j]):
            j += 1
        yield i, text[i:j]
        i = j


def _fold_char(ch: str) -> str:
    if ch in _FOLDS:
        return _FOLDS[ch]
    if ch.isdigit():
        try:
            return str(unicodedata.decimal(ch))
        except (TypeError, ValueError):
            return ch
    return ch


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or unicodedata.category(ch).startswith("M")


@dataclass(frozen=True)
class NormalizedText:
    """``text`` (normalized) and ``raw_offsets[i]``: the raw offset of ``text[i]``."""

    text: str
    raw_offsets: tuple[int, ...]
    raw_length: int

    @classmethod
    def of(cls, raw: str) -> "NormalizedText":
        out: list[str] = []
        offsets: list[int] = []
        space_at: int | None = None  # raw offset of the first separator of the current run
        for offset, cluster in _clusters(raw or ""):
            for ch in unicodedata.normalize("NFKC", cluster).casefold():
                ch = _fold_char(ch)
                if _is_word_char(ch):
                    if space_at is not None and out:
                        out.append(" ")
                        offsets.append(space_at)
                    space_at = None
                    out.append(ch)
                    offsets.append(offset)
                elif space_at is None:
                    space_at = offset
        return cls("".join(out), tuple(offsets), len(raw or ""))

    def __len__(self) -> int:
        return len(self.text)

    def to_norm(self, raw_offset: int) -> int:
        """The normalized position of the first normalized character at or
        after ``raw_offset`` (``len(self)`` past the end)."""
        return bisect.bisect_left(self.raw_offsets, raw_offset)

    def span_to_norm(self, offset: int, length: int) -> tuple[int, int]:
        """A raw ``[offset, offset+length)`` as a normalized ``[start, end)``."""
        return self.to_norm(offset), self.to_norm(offset + length)

    def to_raw(self, norm_pos: int) -> int:
        if norm_pos >= len(self.raw_offsets):
            return self.raw_length
        return self.raw_offsets[norm_pos]


def normalize(text: str) -> str:
    """The normalized form of ``text`` (see the module docstring)."""
    return NormalizedText.of(text).text


DEFAULT_CONTEXT_WINDOW = 0
"""How many normalized characters may separate an anchor from its
``prefix``/``suffix``: none, so a suffix is the words that directly follow
(a table-of-contents line ``GENTAMICIN ..... 3`` followed by the next entry
never passes for the heading ``GENTAMICIN`` followed by its first section)."""


def _at_word_boundary(text: str, start: int, end: int) -> bool:
    return (start == 0 or text[start - 1] == " ") and (end == len(text) or text[end] == " ")


def find_anchor(
    haystack: NormalizedText,
    anchor: str,
    *,
    prefix: str = "",
    suffix: str = "",
    start: int = 0,
    end: int | None = None,
    window: int = DEFAULT_CONTEXT_WINDOW,
) -> int | None:
    """The normalized position of the first occurrence of ``anchor`` in
    ``haystack`` at or after ``start`` (and before ``end``), on word
    boundaries, preceded by ``prefix`` and followed by ``suffix`` within
    ``window`` normalized characters when those are given; None if absent."""
    text = haystack.text
    needle = normalize(anchor)
    if not needle:
        raise ValueError(f"anchor {anchor!r} has no letters or digits")
    pre, suf = normalize(prefix), normalize(suffix)
    limit = len(text) if end is None else min(end, len(text))
    pos = text.find(needle, start)
    while pos != -1 and pos < limit:
        stop = pos + len(needle)
        ok = _at_word_boundary(text, pos, stop)
        if ok and suf:
            ok = text.find(suf, stop, stop + window + len(suf) + 1) != -1
        if ok and pre:
            ok = text.rfind(pre, max(0, pos - window - len(pre) - 1), pos) != -1
        if ok:
            return pos
        pos = text.find(needle, pos + 1)
    return None


def find_passage(haystack: NormalizedText, passage: str, ranges: list[tuple[int, int]] | None = None) -> tuple[int, int] | None:
    """Where ``passage`` lies in ``haystack`` (normalized ``[start, end)``):
    its first occurrence inside one of ``ranges`` if given and found there,
    else its first occurrence anywhere; None if absent."""
    needle = normalize(passage)
    if not needle:
        return None
    for lo, hi in ranges or []:
        pos = haystack.text.find(needle, lo)
        if pos != -1 and pos + len(needle) <= hi:
            return pos, pos + len(needle)
    pos = haystack.text.find(needle)
    return None if pos == -1 else (pos, pos + len(needle))
