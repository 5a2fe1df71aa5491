"""Text of a PDF page that no reader sees, though every text extractor reads
it. Three ways it gets there, each found from what MuPDF says the page draws:

- drawn invisibly (text render mode 3, or wholly transparent): what an OCR
  program lays over a scanned image (ocrmypdf, Tesseract's GlyphLessFont, a
  "searchable image" PDF) — :func:`invisible_chars`;
- drawn under an image of the whole page: the other way OCR programs do it
  (ABBYY FineReader's "text under the page image") — :func:`text_under_image`;
- painted over: an opaque shape drawn after the text and over it, a
  white-out edit or a redaction box over text that was left in —
  :func:`painted_over`, confirmed on the rendered page;
- drawn in the colour of what is under it: white text on a white page (a
  title set in white over a cover picture that is not there, a typesetter's
  slug on every page) — :func:`pale_words`, confirmed on the rendered page.

The first two make a page an OCR program's reading of a scan (the parse
says the page needs OCR unless the collection accepts OCR text); the words
of the last two are kept out of the text and recorded (furniture of kind
``hidden``).
"""

from __future__ import annotations

import bisect
import math
from typing import Callable, NamedTuple, Sequence

from ..engine import PageImages, pymupdf
from ..geometry import BBox

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


def text_under_image(page, images: PageImages | None = None) -> float:
    """The share of a page's drawn text (by area) that an image covering at
    least half the page is drawn over: a scan laid over an OCR program's
    reading of it (ABBYY FineReader's "text under the page image"), text
    that every extractor reads and no reader sees. MuPDF's drawing log
    (``get_bboxlog``: what is drawn, in order; 1.5 ms a page) is read only
    on a page whose resources hold an image of a scan's size
    (:data:`SCAN_MIN_PIXELS`)."""
    area = page.rect.width * page.rect.height
    images = images or PageImages(page)
    if area <= 0 or not images.any(lambda image: image[2] * image[3] >= SCAN_MIN_PIXELS):
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
UNSHOWN_TEXT = "character(s) of text the page does not show"
PAINT_PAD = 0.5  # points: a word this close inside an opaque shape is under it
# of a word's box (ascent to descent), the height a shape must cover: a
# white box over a heading's letters leaves the box's descent band below it
# uncovered (a twentieth of a large heading's box); the render decides
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
    blank = blank_boxes(page, [boxes[i] for i in sorted(under)])
    return sorted(candidates[i] for i, empty in zip(sorted(under), blank) if empty)


PALE = 240  # a colour whose red, green and blue are all this or more (of 255) is near white


class Fill(NamedTuple):
    """An opaque filled shape of the page (:func:`.rules.read_drawings`)."""

    bbox: BBox
    pale: bool  # near white (:func:`is_pale`): no ground for white text
    cover: bool = True  # a rectangle, which may cover words (a shape of curves counts only as a ground)


def is_pale(rgb) -> bool:
    """Whether a drawing's colour (0-1 components, PyMuPDF's) is near white."""
    return rgb is not None and len(rgb) >= 1 and all(c * 255 >= PALE for c in rgb)


def pale_words(words: Sequence, page_dict: dict, grounds: Sequence[BBox] = ()) -> list[int]:
    """Indices of ``words`` (anything with a ``bbox``) whose middle lies in
    a span drawn in a colour near white (:data:`PALE`) and on none of
    ``grounds`` (the boxes of the page's dark filled rectangles: a table's
    header row, a banner): white text with nothing dark under it, to be
    looked for on the rendered page (a photograph under it shows it)."""
    pale = [
        span["bbox"]
        for block in page_dict["blocks"]
        for line in block.get("lines", ())
        for span in line["spans"]
        if is_pale([((span.get("color", 0) >> shift) & 255) / 255 for shift in (16, 8, 0)]) and span["text"].strip()
    ]
    if not pale:
        return []
    out = []
    for k, word in enumerate(words):
        a, b, c, d = word.bbox
        mx, my = (a + c) / 2, (b + d) / 2
        if any(x0 <= mx <= x1 and y0 <= my <= y1 for x0, y0, x1, y1 in pale) and not any(
            x0 <= mx <= x1 and y0 <= my <= y1 for x0, y0, x1, y1 in grounds
        ):
            out.append(k)
    return out


BLANK_LEVELS = 8  # of 255 grey levels: a box whose darkest and lightest pixels differ by this or less shows nothing


def blank_boxes(page, boxes: Sequence[BBox]) -> list[bool]:
    """For each of ``boxes`` (page coordinates), whether the page rendered
    at 72 dpi (one pixel a point, in grey) is one colour all over it, to
    :data:`BLANK_LEVELS` (a white slug over a white page renders 254 and
    255): nothing of what is drawn there shows.
    One render, of the part of the page the boxes span (half a whole page's
    cost on the corpus's pages with white text)."""
    if not boxes:
        return []
    span = pymupdf.Rect(boxes[0])
    for box in boxes[1:]:
        span |= box
    span &= page.rect
    if span.is_empty:
        return [False] * len(boxes)
    pix = page.get_pixmap(dpi=72, colorspace=pymupdf.csGRAY, alpha=False, clip=span)
    samples, stride, width, height = pix.samples, pix.stride, pix.width, pix.height
    x_off, y_off = pix.x, pix.y  # the clip's top-left pixel on the page
    out = []
    for x0, y0, x1, y1 in boxes:
        c0, c1 = max(int(x0) - x_off, 0), min(math.ceil(x1) - x_off, width)
        r0, r1 = max(int(y0) - y_off, 0), min(math.ceil(y1) - y_off, height)
        if c0 >= c1 or r0 >= r1:
            out.append(False)  # off the page: not for this test to say
            continue
        levels = [level for row in range(r0, r1) for level in samples[row * stride + c0 : row * stride + c1]]
        out.append(max(levels) - min(levels) <= BLANK_LEVELS)
    return out


def line_runs(words: Sequence) -> list[list]:
    """Consecutive words of one line, grouped: the words kept out of the
    text as the lines they stood on (each recorded as one piece of
    furniture, quoted so in the parse's warning)."""
    runs: list[list] = []
    for w in words:
        if runs and runs[-1][-1].line_id == w.line_id:
            runs[-1].append(w)
        else:
            runs.append([w])
    return runs
