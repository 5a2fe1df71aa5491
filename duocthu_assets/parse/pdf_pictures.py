"""Pictures on a page of text: what a page shows that no text extractor
reads, kept as a lifted block so the chunk beside it says so.

A chart's values, a screenshot of a dialog or of a table, a diagram's
labels drawn into its image, a photograph: none is in the text layer, so
none reached any chunk, and nothing said a picture had been there
(redp5110 p. 14-15: screenshots of schema lists and an index advisor's
table; papermage p. 6: a bar chart whose percentages are only drawn). Each
such image is now a block of kind ``picture``: its crop is rendered, its
descriptor chunk names it, and the prose chunk it sits in carries the
attachment (``has_quarantined_content``), as a lifted table's does. Text
set over a picture is left where it is, in the prose: a picture block
lifts no words.

    picture_regions   the drawn images of a page, touching ones made one,
                      those large enough and with next to no text over them

A picture is an image drawn over :data:`PICTURE_MIN_FRAC` of the page or
more (images touching each other count as one: a diagram drawn in
pieces), under :data:`.pdf_scans.SCAN_PAGE_MIN_FRAC` of it (a page's
background or scan: judged by the OCR tests), with text over it no denser
than :data:`.pdf_scans.SCAN_REGION_MAX_TEXT_DENSITY` (denser, it is a
background the text is read on: a shaded box, a page's backdrop). A
scanned region (:func:`.pdf_scans.scanned_regions`) is no picture: its
page needs OCR.
"""

from __future__ import annotations

from typing import Sequence

from .pdf_geometry import BBox, merge_overlapping
from .pdf_scans import SCAN_PAGE_MIN_FRAC, SCAN_REGION_MAX_TEXT_DENSITY

PICTURE_MIN_FRAC = 0.05  # of the page's area: smaller, a logo, a seal, an author's portrait, an icon
PICTURE_MIN_PIXELS = 10_000  # an image of fewer pixels (a 100 × 100 icon, a bar stretched to a rule) is no picture
PIECE_MIN_FRAC = 0.002  # an image under this share of the page is not taken as a piece of a larger picture
TOUCH = 2.0  # points: images this close are pieces of one picture


def _overlaps(a: BBox, b: BBox) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def picture_regions(page, words: Sequence, scanned: Sequence[BBox] = ()) -> list[BBox]:
    """Boxes (page coordinates, top to bottom) of the pictures drawn on
    ``page`` (a PyMuPDF page, upright): its drawn images, pieces within
    :data:`TOUCH` of each other joined, of :data:`PICTURE_MIN_FRAC` of the
    page or more and under :data:`SCAN_PAGE_MIN_FRAC` of it, with next to
    no text of ``words`` (their middles) over them, none overlapping a
    ``scanned`` region. The drawn images are looked up (MuPDF's
    ``get_image_info``, a pass over the page) only when the page's
    resources hold an image of :data:`PICTURE_MIN_PIXELS` or more."""
    try:
        if not any(img[2] * img[3] >= PICTURE_MIN_PIXELS for img in page.get_images()):
            return []
        drawn = page.get_image_info()
    except Exception:  # noqa: BLE001 - a damaged image resource: nothing to say of it here
        return []
    rect = page.rect
    area = rect.width * rect.height
    if area <= 0:
        return []
    pieces: list[BBox] = []
    for info in drawn:
        if info.get("width", 0) * info.get("height", 0) < PICTURE_MIN_PIXELS:
            continue
        x0, y0, x1, y1 = info["bbox"]
        box = (max(x0, rect.x0), max(y0, rect.y0), min(x1, rect.x1), min(y1, rect.y1))
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        if (box[2] - box[0]) * (box[3] - box[1]) >= PIECE_MIN_FRAC * area:
            pieces.append(box)
    out: list[BBox] = []
    for box in merge_overlapping(pieces, TOUCH, TOUCH):
        size = (box[2] - box[0]) * (box[3] - box[1])
        if not PICTURE_MIN_FRAC * area <= size < SCAN_PAGE_MIN_FRAC * area:
            continue
        if any(_overlaps(box, s) for s in scanned):
            continue
        over = sum(len(w.source) for w in words if box[0] <= (w.bbox[0] + w.bbox[2]) / 2 <= box[2] and box[1] <= (w.bbox[1] + w.bbox[3]) / 2 <= box[3])
        if over * 1000 <= SCAN_REGION_MAX_TEXT_DENSITY * size:
            out.append(tuple(round(v, 2) for v in box))
    return out


def reading_position(items: Sequence, box: BBox, tol: float = 2.0) -> int:
    """Where a picture goes among a page's items in reading order (each
    with a ``bbox``): before the first item under it and across its width;
    else after the last item above it and across its width; else at the
    page's end."""
    def across(b: BBox) -> bool:
        return b[0] < box[2] and box[0] < b[2]

    for k, item in enumerate(items):
        if across(item.bbox) and item.bbox[1] >= box[3] - tol:
            return k
    above = [k for k, item in enumerate(items) if across(item.bbox) and item.bbox[3] <= box[1] + tol]
    return above[-1] + 1 if above else len(items)
