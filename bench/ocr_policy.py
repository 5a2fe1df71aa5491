"""Which OCR words to mark uncertain: the confidence floor alone, and the
extra rules for numbers the bench measured beside it (a proposal for the
pipeline; the pipeline's own marks are what ``bench/ocr.py`` scores as
``pipeline``).

A policy is a name and a function from the page's words (tesseract's
order, each with ``conf`` 0-100, ``line`` and pixel ``bbox``) to one flag
per word. Rules, each adding to the floor's marks:

- ``number_floor``: a word holding a digit needs ``conf >= number_floor``
  (numbers are what must never be silently wrong, so they may need more
  certainty than words);
- ``neighbours``: a word holding a digit next to (same line, adjacent in
  order) an uncertain word holding a digit is uncertain too: tesseract
  splits a number it struggles with (``31/2024`` read ``3`` at 97 and
  ``1/2024QHI`` at 58) and the sure-looking half is as wrong as the other;
- ``split``: two adjacent words on a line that both hold digits, closer
  than a third of the line's height, are both uncertain (a number broken
  by a gap, ``11`` read ``1 1``);
- ``confusable``: a word where a digit touches a letter tesseract swaps
  with digits (``O o I l | S B Z``), or a lone digit stands inside or at
  the end of a short run of letters (``H6`` for ``Hồ``, ``g6m`` for
  ``gồm``), is uncertain;
- ``syllables``: a word written as Vietnamese that no Vietnamese syllable
  spells (``châp``: a syllable closed by p, t, c, ch takes only the sắc or
  nặng tone), ``duocthu_assets.parse.pdf.read.ocr_syllable``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_DIGIT = re.compile(r"[0-9]")
_CONFUSABLE = re.compile(
    r"[0-9][OoIl|SBZ]|[OoIl|SBZ][0-9]|[^\W\d_][0-9][^\W\d_]|^[^\W\d_]{1,2}[0-9]$"
)


def has_digit(text: str) -> bool:
    return bool(_DIGIT.search(text))


def floor_marks(words: list[dict], floor: float | None) -> list[bool]:
    return [
        floor is not None and w.get("conf") is not None and 0 <= w["conf"] < floor
        for w in words
    ]


def mark(
    words: list[dict],
    floor: float | None,
    number_floor: float | None = None,
    neighbours: bool = False,
    split: bool = False,
    confusable: bool = False,
    syllables: bool = False,
) -> list[bool]:
    """One uncertain flag per word under the given rules."""
    flags = floor_marks(words, floor)
    if syllables:
        from duocthu_assets.parse.pdf.read.ocr_syllable import impossible

        flags = [f or bool(impossible(w["text"])) for f, w in zip(flags, words)]
    digits = [has_digit(w["text"]) for w in words]
    if number_floor is not None:
        flags = [
            f or (d and w.get("conf") is not None and w["conf"] < number_floor)
            for f, d, w in zip(flags, digits, words)
        ]
    if confusable:
        flags = [
            f or (d and bool(_CONFUSABLE.search(w["text"].strip(".,;:()"))))
            for f, d, w in zip(flags, digits, words)
        ]
    if split:
        for i in range(len(words) - 1):
            a, b = words[i], words[i + 1]
            if digits[i] and digits[i + 1] and a["line"] == b["line"] and _close(a, b):
                flags[i] = flags[i + 1] = True
    if neighbours:
        base = list(flags)
        for i in range(len(words)):
            if not digits[i] or base[i]:
                continue
            for j in (i - 1, i + 1):
                if (
                    0 <= j < len(words)
                    and words[j]["line"] == words[i]["line"]
                    and digits[j]
                    and base[j]
                ):
                    flags[i] = True
    return flags


def _close(a: dict, b: dict) -> bool:
    if "bbox" not in a or "bbox" not in b:
        return False
    height = max(a["bbox"][3] - a["bbox"][1], b["bbox"][3] - b["bbox"][1], 1)
    return b["bbox"][0] - a["bbox"][2] < height / 3


def policies(floors) -> dict[str, Callable[[list[dict]], list[bool]]]:
    """The policies the sweep compares, by name."""
    out: dict[str, Callable] = {}
    for floor in floors:
        name = "none" if floor is None else str(floor)
        out[f"floor {name}"] = lambda ws, f=floor: mark(ws, f)
    for floor in (50, 60, 70, 80):
        for nf in (90, 93, 95):
            out[f"floor {floor}, numbers {nf}"] = lambda ws, f=floor, n=nf: mark(
                ws, f, n
            )
            out[f"floor {floor}, numbers {nf} + rules"] = lambda ws, f=floor, n=nf: (
                mark(ws, f, n, neighbours=True, split=True, confusable=True)
            )
        out[f"floor {floor} + rules"] = lambda ws, f=floor: mark(
            ws, f, None, True, True, True
        )
    return out
