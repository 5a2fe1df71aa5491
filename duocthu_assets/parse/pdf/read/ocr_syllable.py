"""Vietnamese syllables OCR cannot have read right: a word that no
Vietnamese syllable spells is certainly misread, however sure Tesseract
was of it. Such a word is marked uncertain (:mod:`.ocr_doubt`), never
corrected.

A word is judged only when it is written as Vietnamese (it carries a
Vietnamese tone or vowel mark, or ``đ``), holds no digit and has a vowel
(``đ``, ``ĐT`` are abbreviations); then it is impossible when

- its last consonant is ``p``, ``t``, ``c`` or ``ch`` and its tone is not
  sắc or nặng (``châp`` for ``chấp``, ``tât`` for ``tất``): a syllable
  closed by a stop takes only those two tones;
- it carries two tone marks, or a tone or vowel mark on a letter that is
  no vowel;
- it is not one syllable: an onset Vietnamese has (``b c ch d đ g gh gi h
  k kh l m n ng ngh nh p ph qu r s t th tr v x`` or none), one to three
  vowels, and an ending it has (``c ch m n ng nh p t`` or none).
"""

from __future__ import annotations

import re
import unicodedata

GRAVE, ACUTE, TILDE, HOOK, DOT = "\u0300", "\u0301", "\u0303", "\u0309", "\u0323"
TONES = frozenset((GRAVE, ACUTE, TILDE, HOOK, DOT))
VOWEL_MARKS = frozenset(("\u0302", "\u0306", "\u031b"))  # circumflex, breve, horn
STOP_TONES = frozenset((ACUTE, DOT))
_VOWELS = "aăâeêioôơuưy"
_SYLLABLE = re.compile(
    rf"(ngh|ng|nh|ch|gh|gi|kh|ph|qu|th|tr|[bcdđghklmnprstvx])?([{_VOWELS}]{{1,3}})(ch|ng|nh|[cmnpt])?"
)
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")


def _parts(word: str) -> tuple[str, list[str]] | None:
    """The word's letters with their tones taken off (NFC, lower case), and
    its tone marks; ``None`` when a mark stands on no vowel."""
    letters: list[str] = []
    tones: list[str] = []
    for ch in unicodedata.normalize("NFD", word.lower()):
        if ch in TONES:
            if not letters or letters[-1][0] not in "aeiouy":
                return None
            tones.append(ch)
        elif ch in VOWEL_MARKS:
            if not letters or letters[-1][0] not in "aeiouy":
                return None
            letters[-1] += ch
        else:
            letters.append(ch)
    return unicodedata.normalize("NFC", "".join(letters)), tones


def written_as_vietnamese(word: str) -> bool:
    """Whether the word carries a Vietnamese tone or vowel mark, or ``đ``."""
    return any(ch in TONES or ch in VOWEL_MARKS or ch in "đĐ" for ch in unicodedata.normalize("NFD", word))


def impossible(word: str) -> str:
    """Why no Vietnamese syllable is spelled ``word`` ("" when one may be,
    or the word is not judged: see the module docstring)."""
    word = _EDGE.sub("", word)
    if not word or any(c.isdigit() for c in word) or not written_as_vietnamese(word):
        return ""
    for part in re.split(r"[-/]", word):  # a hyphenated word (ml/phút) is judged part by part
        why = _impossible_syllable(part)
        if why:
            return why
    return ""


def _impossible_syllable(syllable: str) -> str:
    if not syllable or not written_as_vietnamese(syllable):
        return ""
    parts = _parts(syllable)
    if parts is None:
        return "a mark on a letter that is no vowel"
    letters, tones = parts
    if not any(c in _VOWELS for c in letters):
        return ""  # an abbreviation (đ for đồng, ĐT), not a syllable
    if len(tones) > 1:
        return "two tone marks"
    m = _SYLLABLE.fullmatch(letters)
    if m is None:
        return "not one Vietnamese syllable"
    coda = m.group(3) or ""
    if coda in ("p", "t", "c", "ch") and (not tones or tones[0] not in STOP_TONES):
        return f"ends in {coda!r} without the sắc or nặng tone"
    return ""
