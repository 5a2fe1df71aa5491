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
from typing import Sequence

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


def covered_words(words: Sequence, fills: Sequence[BBox]) -> list[int]:
    """Indices of ``words`` (anything with a ``bbox``) lying inside one of
    ``fills`` (the boxes of the page's opaque filled shapes): the words a
    shape could have been painted over, whichever was drawn first."""
    if not fills or not words:
        return []
    order = sorted(range(len(words)), key=lambda k: words[k].bbox[1])
    tops = [words[k].bbox[1] for k in order]
    out: set[int] = set()
    for x0, y0, x1, y1 in fills:
        for k in order[bisect.bisect_left(tops, y0 - PAINT_PAD) : bisect.bisect_right(tops, y1 + PAINT_PAD)]:
            a, b, c, d = words[k].bbox
            if a >= x0 - PAINT_PAD and c <= x1 + PAINT_PAD and d <= y1 + PAINT_PAD:
                out.add(k)
    return sorted(out)


def painted_over(page, words: Sequence, candidates: Sequence[int]) -> list[int]:
    """Of ``candidates`` (indices of ``words`` inside an opaque shape, page
    coordinates), those the page does not show: their text was drawn before
    a filled shape that covers them (MuPDF's drawing log, ``get_bboxlog``:
    what is drawn, in order), and their box is one colour on the rendered
    page (a shape drawn later may be a mask's, not paint: a figure's labels
    under a soft mask's black fill are seen)."""
    if not candidates:
        return []
    boxes = [words[k].bbox for k in candidates]
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][1])
    tops = [boxes[i][1] for i in order]
    texts: list[tuple] = []  # the text drawn so far, as boxes
    under: set[int] = set()
    for kind, (x0, y0, x1, y1) in page.get_bboxlog():
        if kind in ("fill-text", "stroke-text"):
            texts.append((x0, y0, x1, y1))
            continue
        if kind != "fill-path" or not texts or x1 - x0 <= 2 or y1 - y0 <= 2:
            continue
        for i in order[bisect.bisect_left(tops, y0 - PAINT_PAD) : bisect.bisect_right(tops, y1 + PAINT_PAD)]:
            a, b, c, d = boxes[i]
            if i in under or a < x0 - PAINT_PAD or c > x1 + PAINT_PAD or d > y1 + PAINT_PAD:
                continue
            mx, my = (a + c) / 2, (b + d) / 2
            if any(t[0] <= mx <= t[2] and t[1] <= my <= t[3] for t in texts):
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
