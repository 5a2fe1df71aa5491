"""Every number OCR read, read a second time, differently: Tesseract is
sometimes sure of a wrong number (a chart tick ``0.4`` read ``04`` at 95,
``tháng 5`` read ``tháng 3``), and no confidence floor catches that. So
each word holding a digit is cut from the page image, scaled to a fixed
height (another x-height than the page's), binarised (Otsu), and set on a
line of its own in one strip image; Tesseract reads the strip once per
page with another model (``eng``, one text line per crop). When the second
reading of a word does not say the same number (:func:`number_core`), the
word is uncertain (:mod:`.ocr_doubt`). Nothing is ever corrected: the
second reading only casts doubt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CROP_HEIGHT_PX = 44  # each word's crop is scaled to this height
PAD_FRAC = 0.15  # of the word's height, added around its box
GAP_PX = 28  # white between two crops in the strip, and around them
_DIGIT = re.compile(r"[0-9]")
_EDGES = re.compile(r"^[^0-9]+|[^0-9]+$")


def number_core(text: str) -> str:
    """What a word says as a number: its ASCII digits and the ASCII
    punctuation between them (``(5),`` says ``5``, ``0.4`` and ``04`` do not
    say the same)."""
    kept = "".join(ch for ch in text if ch.isascii() and (ch.isdigit() or not ch.isalnum()) and not ch.isspace())
    return _EDGES.sub("", kept)


def holds_digit(text: str) -> bool:
    return bool(_DIGIT.search(text))


def strip_image(grey, boxes: Sequence[tuple[int, int, int, int]]):
    """The crops of ``boxes`` (pixels of ``grey``) one under the other, each
    scaled to :data:`CROP_HEIGHT_PX` and binarised, and each crop's band of
    rows in the strip."""
    import cv2
    import numpy as np

    crops = []
    for x0, y0, x1, y1 in boxes:
        pad = max(int((y1 - y0) * PAD_FRAC), 2)
        h, w = grey.shape
        crop = grey[max(y0 - pad, 0) : min(y1 + pad, h), max(x0 - pad, 0) : min(x1 + pad, w)]
        if crop.size == 0:
            crop = np.full((4, 4), 255, np.uint8)
        factor = CROP_HEIGHT_PX / max(crop.shape[0], 1)
        crop = cv2.resize(crop, (max(round(crop.shape[1] * factor), 1), CROP_HEIGHT_PX), interpolation=cv2.INTER_CUBIC)
        _, crop = cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        crops.append(crop)
    width = max((c.shape[1] for c in crops), default=1) + 2 * GAP_PX
    height = GAP_PX + sum(c.shape[0] + GAP_PX for c in crops)
    strip = np.full((height, width), 255, np.uint8)
    bands, y = [], GAP_PX
    for c in crops:
        strip[y : y + c.shape[0], GAP_PX : GAP_PX + c.shape[1]] = c
        bands.append((y - GAP_PX // 2, y + c.shape[0] + GAP_PX // 2))
        y += c.shape[0] + GAP_PX
    return strip, bands


def second_readings(grey, boxes: Sequence[tuple[int, int, int, int]], languages: str, dpi: int) -> list[str]:
    """What Tesseract reads in each box of ``grey`` the second time (see the
    module docstring): one string per box, ``""`` where it read nothing."""
    import pytesseract
    from PIL import Image

    if not boxes:
        return []
    strip, bands = strip_image(grey, boxes)
    data = pytesseract.image_to_data(Image.fromarray(strip), lang=languages, config=f"--psm 6 --dpi {dpi}",
                                     output_type=pytesseract.Output.DICT)
    found: list[list[tuple[int, str]]] = [[] for _ in boxes]
    for k, text in enumerate(data["text"]):
        text = (text or "").strip()
        if not text or float(data["conf"][k]) < 0:
            continue
        mid = data["top"][k] + data["height"][k] / 2
        for i, (top, bottom) in enumerate(bands):
            if top <= mid < bottom:
                found[i].append((data["left"][k], text))
                break
    return ["".join(t for _, t in sorted(f)) for f in found]


def disagrees(first: str, second: str | None) -> bool:
    """Whether a second reading casts doubt on a word read first as ``first``:
    it was re-read (``second`` is not ``None``) and does not say the same number."""
    return second is not None and number_core(first) != number_core(second)
