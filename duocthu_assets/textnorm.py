"""Text normalization per collection, and the ASCII slugs used as keys.

``nfc`` is for Vietnamese and everything else: Unicode NFC and whitespace only.
``persian`` is ADR 0018 §5, applied per text block before assembly and never to
a language it was not written for.
"""

from __future__ import annotations

import re
import unicodedata

from .settings import Normalization

_PERSIAN_LETTER_FOLD = str.maketrans({"ك": "ک", "ي": "ی", "ى": "ی", "أ": "ا", "إ": "ا"})
# Harakat proper (fathatan..sukun, U+064B..U+0652), the rarer vowel signs
# U+0656..U+065E, superscript alef (U+0670) and tatweel (U+0640). Maddah and
# hamza above/below (U+0653..U+0655) and wavy hamza (U+065F) are *not*
# harakat: they are part of a letter (ئ written as ی + U+0654, the ezafe
# hamza of خانهٔ), and dropping them changes the word (مسئله → مسیله).
_HARAKAT_AND_TATWEEL = re.compile("[\u064b-\u0652\u0656-\u065e\u0670\u0640]")
_WHITESPACE_RUN = re.compile(r"\s+")
_SPACE_RUN = re.compile(r"[ \t\u00a0\u200b]+")


def normalize_persian(text: str) -> str:
    """ADR 0018 §5: NFKC, letter folding, harakat and tatweel removed, ¬ to a
    space, whitespace collapsed. Digits and Persian punctuation stay as written.

    NFKC runs *before* the letter folding: NFKC turns Arabic presentation forms
    (ﻛ U+FEDB, ﻳ U+FEF3, common in text from old PDFs and legacy encodings)
    into ك and ي, and composes a decomposed ي + hamza into ئ; folding first
    would let those ك/ي through, or fold ي to ی and then strip the hamza."""
    # NFKC has no mapping for Persian digits (U+06F0..) or punctuation (؛ ٬ ،),
    # so they stay as the author wrote them.
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_PERSIAN_LETTER_FOLD)
    text = _HARAKAT_AND_TATWEEL.sub("", text)
    text = text.replace("¬", " ")
    return _WHITESPACE_RUN.sub(" ", text).strip()


def normalize_nfc(text: str) -> str:
    """NFC and whitespace only: runs of spaces collapsed, line ends kept."""
    text = unicodedata.normalize("NFC", text)
    lines = [_SPACE_RUN.sub(" ", line).strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def normalize_block(text: str, normalization: Normalization) -> str:
    if normalization is Normalization.PERSIAN:
        return normalize_persian(text)
    return normalize_nfc(text)


# Search folding (issue 40): what a phone keyboard does to a word. Not a
# normalization of stored text: it only makes a second, looser lexical field.
_FOLD_LETTERS = str.maketrans({"đ": "d", "Đ": "d", "ك": "ک", "ي": "ی", "ى": "ی", "\u200c": " ", "\u200d": ""})


def fold(text: str) -> str:
    """``text`` as typed without accents: case folded, Latin diacritics
    stripped (``Điều`` → ``dieu``, ``đ`` → ``d``), Arabic-keyboard ``ك``/``ي``
    as Persian ``ک``/``ی``, a zero-width non-joiner as a space (``می‌خواهم``
    → ``می خواهم``, as the analyzer splits it), harakat and other combining
    marks dropped.
    Idempotent: ``fold(fold(t)) == fold(t)``."""
    text = unicodedata.normalize("NFKC", text).translate(_FOLD_LETTERS)
    decomposed = unicodedata.normalize("NFD", text.casefold())
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", stripped.translate(_FOLD_LETTERS))


_SLUG_DROP = re.compile(r"[^a-z0-9]+")


def ascii_slug(text: str, sep: str = "_", max_len: int = 64) -> str:
    """``Liều lượng và cách dùng`` → ``lieu_luong_va_cach_dung`` (đ becomes d)."""
    text = text.replace("đ", "d").replace("Đ", "D")
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_only = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    slug = _SLUG_DROP.sub(sep, ascii_only).strip(sep)
    return slug[:max_len].rstrip(sep)
