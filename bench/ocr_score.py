"""Scoring OCR words against a truth text: word accuracy and numbers.

Tokens: the text in Unicode NFC, split on whitespace; each token loses the
punctuation around it (Unicode categories P* and S* at either end, so
``(2015),`` gives ``2015`` and ``“Tranh`` gives ``Tranh``); tokens left
empty are dropped. Case and tone marks count: ``châp`` for ``chấp`` is a
wrong word.

Alignment: word-level Levenshtein (unit costs for substitution, deletion,
insertion) between the truth tokens and the OCR tokens, with a backtrace;
then truth words left unmatched (deleted or substituted) are paired with
OCR words left unmatched that are equal to them, in order of appearance,
so a block read in another order (the two-column national header) counts
as read. Word accuracy = truth words matched / truth words (extra OCR words
are reported separately, as ``inserted``).

Numbers: a token containing an ASCII digit, compared by its digits and
the ASCII punctuation between them (:func:`number_core`: ``26Đ`` read
``26D`` is a wrong *word* but a correct *number*).

Tone-insensitive word accuracy (``folded_accuracy``) counts, on the same
alignment, the truth words read right or differing only in tone and vowel
marks, ``Đ``/``D`` or case (:func:`fold`). A truth number is
``correct`` when aligned to an OCR token saying the same number, ``wrong``
when aligned to (substituted by) an OCR token saying a different number, ``lost`` otherwise (deleted, or read as a token with no
digit). An OCR number aligned to no truth number (inserted, or read for a
word without digits) is ``invented``. A number whose OCR word is uncertain
(below the confidence floor) is ``withheld``: the pipeline shows it as
``[…]``; ``wrong_outside`` counts wrong and invented numbers that were
*not* uncertain, the ones a reader would take for true.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass

_EDGE = ("P", "S")


def fold(token: str) -> str:
    """A token without its tone and vowel marks, ``Đ``/``đ`` as ``D``/``d``,
    case folded: what the tone-insensitive word accuracy compares."""
    bare = "".join(ch for ch in unicodedata.normalize("NFD", token) if not unicodedata.combining(ch))
    return bare.replace("Đ", "D").replace("đ", "d").casefold()


def strip_token(token: str) -> str:
    start, end = 0, len(token)
    while start < end and unicodedata.category(token[start])[0] in _EDGE:
        start += 1
    while end > start and unicodedata.category(token[end - 1])[0] in _EDGE:
        end -= 1
    return token[start:end]


_RANGE = re.compile(r"(?<=[0-9])\s*([-–])\s*(?=[0-9])")


def tokens(text: str) -> list[str]:
    """The normalised word tokens of a text; a range written with spaces
    (``35 - 69``) is one token, as OCR often reads it (``35-69``)."""
    out = []
    for raw in _RANGE.sub(r"\1", unicodedata.normalize("NFC", text)).split():
        token = strip_token(raw)
        if token:
            out.append(token)
    return out


def ocr_tokens(
    words: list[dict], floor: float | None = None, flags: list[bool] | None = None
) -> tuple[list[str], list[bool]]:
    """Tokens of OCR words and, per token, whether its word is uncertain:
    ``flags`` (one per word) when given, else confidence below ``floor``
    (never when the reader gives no confidence)."""
    marks = []
    for i, word in enumerate(words):
        if flags is not None:
            marks.append(flags[i])
        else:
            conf = word.get("conf")
            marks.append(floor is not None and conf is not None and 0 <= conf < floor)
    toks, out = [], []
    for text, uncertain in _join_ranges([w["text"] for w in words], marks):
        for token in tokens(text):
            toks.append(token)
            out.append(uncertain)
    return toks, out


def _join_ranges(texts: list[str], marks: list[bool]) -> list[tuple[str, bool]]:
    """The words with a range read apart (``35`` ``-`` ``69``, ``35``
    ``-69``) joined into one word, uncertain when any part is."""
    chars: list[str] = []
    owner: list[int] = []
    for i, text in enumerate(texts):
        if i:
            chars.append(" ")
            owner.append(-1)
        chars += list(text)
        owner += [i] * len(text)
    joined = "".join(chars)
    drop = {k for m in _RANGE.finditer(joined) for k in range(m.start(), m.end()) if joined[k].isspace()}
    out: list[tuple[str, bool]] = []
    current, parts = [], set()
    for k, ch in enumerate(chars):
        if ch == " " and owner[k] == -1 and k not in drop:
            out.append(("".join(current), any(marks[i] for i in parts)))
            current, parts = [], set()
        elif k not in drop:
            current.append(ch)
            if owner[k] >= 0:
                parts.add(owner[k])
    if current or parts:
        out.append(("".join(current), any(marks[i] for i in parts)))
    return out


_ASCII_DIGITS = frozenset("0123456789")


def is_number(token: str) -> bool:
    """A token holding an ASCII digit (a superscript ``¹`` is not one)."""
    return any(ch in _ASCII_DIGITS for ch in token)


def number_core(token: str) -> str:
    """What a number says: its ASCII digits and the punctuation between
    them, letters and superscripts left out (``26Đ`` and ``26D`` say the
    same number; ``QH15`` and ``QHI5`` do not; ``1.180`` and ``1,180``
    do not)."""
    return "".join(
        ch
        for ch in token
        if ch in _ASCII_DIGITS
        or (ch.isascii() and unicodedata.category(ch)[0] in _EDGE)
    )


def align(truth: list[str], ocr: list[str]) -> list[tuple[int | None, int | None]]:
    """Levenshtein alignment: pairs (truth index, ocr index), None for a gap,
    then unmatched equal words paired across the sequence."""
    n, m = len(truth), len(ocr)
    prev = list(range(m + 1))
    back = [
        bytearray(m + 1) for _ in range(n + 1)
    ]  # 0 diag, 1 up (deletion), 2 left (insertion)
    for j in range(1, m + 1):
        back[0][j] = 2
    for i in range(1, n + 1):
        cur = [i] + [0] * m
        row = back[i]
        row[0] = 1
        t = truth[i - 1]
        for j in range(1, m + 1):
            diag = prev[j - 1] + (t != ocr[j - 1])
            up = prev[j] + 1
            left = cur[j - 1] + 1
            if diag <= up and diag <= left:
                cur[j] = diag
            elif up <= left:
                cur[j], row[j] = up, 1
            else:
                cur[j], row[j] = left, 2
        prev = cur
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i > 0 or j > 0:
        move = back[i][j]
        if i > 0 and j > 0 and move == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and (move == 1 or j == 0):
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    pairs.reverse()
    return _pair_moved(truth, ocr, pairs)


def _pair_moved(truth, ocr, pairs):
    """Pair truth words not matched with equal OCR words not matched."""
    matched_t = {
        t for t, o in pairs if t is not None and o is not None and truth[t] == ocr[o]
    }
    matched_o = {
        o for t, o in pairs if t is not None and o is not None and truth[t] == ocr[o]
    }
    free_o: dict[str, list[int]] = defaultdict(list)
    for o in range(len(ocr)):
        if o not in matched_o:
            free_o[ocr[o]].append(o)
    moved = {}
    for t in range(len(truth)):
        if t not in matched_t and free_o.get(truth[t]):
            moved[t] = free_o[truth[t]].pop(0)
    if not moved:
        return pairs
    taken = set(moved.values())
    out = []
    for t, o in pairs:
        if t in moved:
            out.append((t, moved[t]))
            if o is not None and o not in taken:
                out.append((None, o))
        elif o in taken:
            if t is not None:
                out.append((t, None))
        else:
            out.append((t, o))
    return out


@dataclass
class PageScore:
    truth_words: int = 0
    matched: int = 0
    matched_folded: int = 0  # matched, or differing only in tone/vowel marks, Đ/D or case
    inserted: int = 0
    ocr_words: int = 0
    uncertain_words: int = 0
    numbers: int = 0
    correct: int = 0
    correct_withheld: int = 0
    wrong: int = 0
    wrong_withheld: int = 0
    lost: int = 0
    invented: int = 0
    invented_withheld: int = 0

    @property
    def word_accuracy(self) -> float:
        return self.matched / self.truth_words if self.truth_words else 1.0

    @property
    def folded_accuracy(self) -> float:
        return self.matched_folded / self.truth_words if self.truth_words else 1.0

    @property
    def wrong_outside(self) -> int:
        return (self.wrong - self.wrong_withheld) + (
            self.invented - self.invented_withheld
        )

    @property
    def uncertain_share(self) -> float:
        return self.uncertain_words / self.ocr_words if self.ocr_words else 0.0

    def add(self, other: PageScore) -> PageScore:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self


def score(
    truth_text: str,
    ocr_toks: list[str],
    uncertain: list[bool],
    pairs=None,
    examples=None,
) -> PageScore:
    """Score OCR tokens against a truth text; ``pairs`` from :func:`align`
    may be passed to score several floors on one alignment. ``examples``,
    a list, receives ``(kind, truth, ocr, uncertain)`` for each number that
    is not plainly correct."""
    truth = tokens(truth_text)
    if pairs is None:
        pairs = align(truth, ocr_toks)
    s = PageScore(
        truth_words=len(truth), ocr_words=len(ocr_toks), uncertain_words=sum(uncertain)
    )
    s.numbers = sum(1 for t in truth if is_number(t))
    for t, o in pairs:
        tt = truth[t] if t is not None else None
        ot = ocr_toks[o] if o is not None else None
        unsure = uncertain[o] if o is not None else False
        if tt is not None and ot is not None and tt == ot:
            s.matched += 1
        if tt is not None and ot is not None and fold(tt) == fold(ot):
            s.matched_folded += 1
        if t is None:
            s.inserted += 1
        if tt is not None and is_number(tt):
            if ot is not None and is_number(ot) and number_core(ot) == number_core(tt):
                kind = "correct_withheld" if unsure else "correct"
            elif ot is not None and is_number(ot):
                kind = "wrong"
            else:
                kind = "lost"
            _count(s, kind, unsure)
            if examples is not None and kind not in ("correct",):
                examples.append((kind, tt, ot, unsure))
        elif ot is not None and is_number(ot):
            _count(s, "invented", unsure)
            if examples is not None:
                examples.append(("invented", tt, ot, unsure))
    return s


def _count(s: PageScore, kind: str, unsure: bool) -> None:
    if kind == "correct":
        s.correct += 1
    elif kind == "correct_withheld":
        s.correct_withheld += 1
    elif kind == "wrong":
        s.wrong += 1
        s.wrong_withheld += unsure
    elif kind == "lost":
        s.lost += 1
    elif kind == "invented":
        s.invented += 1
        s.invented_withheld += unsure
