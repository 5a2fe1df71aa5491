"""Text of a PDF page that no reader sees, though every text extractor reads
it. Three ways it gets there, each found from what MuPDF says the page draws:

- drawn invisibly (text render mode 3, or wholly transparent): what an OCR
  program lays over a scanned image (ocrmypdf, Tesseract's GlyphLessFont, a
  "searchable image" PDF) — :func:`invisible_chars`;
- drawn under an image of the whole page: the other way OCR programs do it
  (ABBYY FineReader's "text under the page image") — :func:`text_under_image`;
- painted over: an opaque shape drawn after the text and over it, a
  white-out edit or a redaction box over text that was left in —
  :func:`painted_over`, confirmed on the rendered page.

The first two make a page an OCR program's reading of a scan (the parse
says the page needs OCR unless the collection accepts OCR text); painted-over
words are kept out of the text and recorded (furniture of kind ``hidden``).
"""

from __future__ import annotations

import bisect
from typing import Callable, Sequence

from .pdf_engine import pymupdf
from .pdf_geometry import BBox

# the parse warning that counts them, which no_pages_need_ocr repeats
INVISIBLE_TEXT = "character(s) of text no reader sees"

# MuPDF's flags of a span's characters (PyMuPDF's ``char_flags``): drawn filled, drawn stroked
FILLED, STROKED = 16, 32


def invisible_chars(page_dict: dict) -> int:
    """Characters of a page's text layer drawn neither filled nor stroked
    (text render mode 3) or wholly transparent: read by every text
    extractor, seen by no reader. It is what an OCR program lays over a
    scanned image (ocrmypdf and Tesseract's ``GlyphLessFont``, a
    "searchable image" PDF): its reading of the scan, errors and all."""
    n = 0
    for block in page_dict["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                if span.get("alpha", 255) == 0 or not span.get("char_flags", FILLED) & (FILLED | STROKED):
                    n += len("".join(span["text"].split()))
    return n


SCAN_MIN_PIXELS = 500_000  # an image this many pixels or more may be a scan of the page (an A4 page at 100 dpi: 967,000)


def text_under_image(page) -> float:
    """The share of a page's drawn text (by area) that an image covering at
    least half the page is drawn over: a scan laid over an OCR program's
    reading of it (ABBYY FineReader's "text under the page image"), text
    that every extractor reads and no reader sees. MuPDF's drawing log
    (``get_bboxlog``: what is drawn, in order; 1.5 ms a page) is read only
    on a page whose resources hold an image of a scan's size
    (:data:`SCAN_MIN_PIXELS`)."""
    area = page.rect.width * page.rect.height
    try:
        scan = area > 0 and any(image[2] * image[3] >= SCAN_MIN_PIXELS for image in page.get_images())
    except Exception:  # noqa: BLE001 - a damaged image resource: the page's text was read; nothing to say of it
        scan = False
    if not scan:
        return 0.0
    texts: list = []
    under: set[int] = set()
    for kind, box in page.get_bboxlog():
        r = pymupdf.Rect(box)
        if kind in ("fill-text", "stroke-text"):
            texts.append(r)
        elif kind == "fill-image" and abs(r & page.rect) * 2 >= area:
            under.update(k for k, t in enumerate(texts) if k not in under and r.contains(t))
    total = sum(abs(t) for t in texts)
    return sum(abs(texts[k]) for k in under) / total if total > 0 else 0.0


# the parse warning that names them
PAINTED_TEXT = "character(s) of text the page does not show"
PAINT_PAD = 0.5  # points: a word this close inside an opaque shape is under it
# of a word's box (ascent to descent), the height a shape must cover: a
# white box over a heading's letters leaves the box's descent band below it
# uncovered (redp5110's "Back cover": 1.2 of 24 pt); the render decides
PAINT_COVER = 0.6


def _covers(shape: BBox, word: BBox) -> bool:
    """Whether ``shape`` could hide ``word``: across its whole width and most
    of its height."""
    x0, y0, x1, y1 = shape
    a, b, c, d = word
    return a >= x0 - PAINT_PAD and c <= x1 + PAINT_PAD and min(d, y1) - max(b, y0) >= PAINT_COVER * (d - b)


def covered_words(words: Sequence, fills: Sequence[BBox]) -> list[int]:
    """Indices of ``words`` (anything with a ``bbox``) one of ``fills`` (the
    boxes of the page's opaque filled shapes) covers: the words a shape could
    have been painted over, whichever was drawn first."""
    if not fills or not words:
        return []
    covered_by = _cover_index([w.bbox for w in words])
    return sorted({k for shape in fills for k in covered_by(shape)})


def _cover_index(boxes: Sequence[BBox]) -> Callable[[BBox], list[int]]:
    """A lookup: the indices of ``boxes`` a shape covers (:func:`_covers`)."""
    order = sorted(range(len(boxes)), key=lambda k: boxes[k][1])
    tops = [boxes[k][1] for k in order]
    tallest = max((d - b for _, b, _, d in boxes), default=0.0)

    def covered_by(shape: BBox) -> list[int]:
        # a covered box's top lies at most its own height above the shape's
        near = order[bisect.bisect_left(tops, shape[1] - tallest) : bisect.bisect_right(tops, shape[3])]
        return [k for k in near if _covers(shape, boxes[k])]

    return covered_by


def painted_over(page, words: Sequence, candidates: Sequence[int]) -> list[int]:
    """Of ``candidates`` (indices of ``words`` an opaque shape covers, page
    coordinates), those the page does not show: their text was drawn before
    a filled shape that covers them (MuPDF's drawing log, ``get_bboxlog``:
    what is drawn, in order), and their box is one colour on the rendered
    page (a shape drawn later may be a mask's, not paint: a figure's labels
    under a soft mask's black fill are seen)."""
    if not candidates:
        return []
    boxes = [words[k].bbox for k in candidates]
    covered_by = _cover_index(boxes)
    texts: list[tuple] = []  # the text drawn so far, as boxes
    under: set[int] = set()
    for kind, shape in page.get_bboxlog():
        if kind in ("fill-text", "stroke-text"):
            texts.append(shape)
            continue
        if kind != "fill-path" or not texts or shape[2] - shape[0] <= 2 or shape[3] - shape[1] <= 2:
            continue
        for i in covered_by(shape):
            a, b, c, d = boxes[i]
            mx, my = (a + c) / 2, (b + d) / 2
            if i not in under and any(t[0] <= mx <= t[2] and t[1] <= my <= t[3] for t in texts):
                under.add(i)
    out: list[int] = []
    for i in sorted(under):
        clip = pymupdf.Rect(boxes[i]) & page.rect
        if clip.is_empty:
            continue
        pixels = page.get_pixmap(clip=clip, dpi=72, colorspace=pymupdf.csGRAY, alpha=False).samples
        if len(set(pixels)) <= 1:
            out.append(candidates[i])
    return sorted(out)
