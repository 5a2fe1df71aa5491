"""Which words OCR read are uncertain: below the confidence floor, and for
numbers — which must never be silently wrong — more (the rules the OCR
bench measured, bench/ocr.py; on its development scans the floor alone
left 22 numbers read wrong outside an uncertain span, these rules none):

- a word holding a digit needs ``ocr_number_confidence_floor`` (93);
- two words holding digits side by side on a line, closer than a third of
  the line's height, are both uncertain: a number broken by a gap (``11``
  read ``1 1``);
- a word where a digit touches a letter Tesseract swaps with digits
  (``O o I l | S B Z``), or a lone digit stands inside or at the end of a
  short run of letters (``H6`` for ``Hồ``, ``g6m`` for ``gồm``);
- a word holding a digit next to an uncertain word holding a digit on its
  line: Tesseract splits a number it struggles with (``31/2024`` read
  ``3`` at 97 and ``1/2024QHI`` at 58), and the sure-looking half is as
  wrong as the other;
- a word holding a digit whose second reading (:mod:`.ocr_recheck`: the
  word's crop at another scale, binarised, read by another model) does not
  say the same number: Tesseract is sometimes sure of a wrong number;
- a word written as Vietnamese that no Vietnamese syllable spells
  (:mod:`.ocr_syllable`: ``châp``, a syllable closed by p, t, c or ch
  without the sắc or nặng tone), when the page is read as Vietnamese.

Doubt only: a word is never corrected.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .ocr import OcrWord
from .ocr_recheck import disagrees
from .ocr_syllable import impossible

_DIGIT = re.compile(r"[0-9]")
_CONFUSABLE = re.compile(r"[0-9][OoIl|SBZ]|[OoIl|SBZ][0-9]|[^\W\d_][0-9][^\W\d_]|^[^\W\d_]{1,2}[0-9]$")


def _line(w: OcrWord) -> tuple[int, int, int]:
    return w.block, w.paragraph, w.line


def _close(a: OcrWord, b: OcrWord) -> bool:
    height = max(a.bbox[3] - a.bbox[1], b.bbox[3] - b.bbox[1], 1e-6)
    return b.bbox[0] - a.bbox[2] < height / 3


def uncertain_words(words: Sequence[OcrWord], floor: float, number_floor: float, syllables: bool = False) -> list[bool]:
    """One flag per word, in the page's order: uncertain (see the module
    docstring); ``syllables``: the page is read as Vietnamese."""
    digits = [bool(_DIGIT.search(w.text)) for w in words]
    flags = [
        w.confidence < floor
        or (d and (w.confidence < number_floor or bool(_CONFUSABLE.search(w.text.strip(".,;:()"))) or disagrees(w.text, w.second)))
        or (syllables and not d and bool(impossible(w.text)))
        for w, d in zip(words, digits)
    ]
    for i in range(len(words) - 1):
        a, b = words[i], words[i + 1]
        if digits[i] and digits[i + 1] and _line(a) == _line(b) and _close(a, b):
            flags[i] = flags[i + 1] = True
    base = list(flags)
    for i, w in enumerate(words):
        if digits[i] and not base[i]:
            flags[i] = any(0 <= j < len(words) and digits[j] and base[j] and _line(words[j]) == _line(w) for j in (i - 1, i + 1))
    return flags
