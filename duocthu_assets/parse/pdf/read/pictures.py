"""Pictures on a page of text: what a page shows that no text extractor
reads, kept as a lifted block so the chunk beside it says so.

A chart's values, a screenshot of a dialog or of a table, a diagram's
labels drawn into its image, a photograph, a plot drawn in vector graphics
with its labels set as outlines: none is in the text layer, so none
reached any chunk, and nothing said a picture had been there. Each is now a
block of kind ``picture``: its crop is rendered, its descriptor chunk
names it, and the prose chunk it is read in carries the attachment
(``has_quarantined_content``), as a lifted table's does.

    picture_regions   the images of a page, touching ones made one, those
                      large enough and with next to no text over them
    repeated_images   images drawn on two pages or more: decoration
    drawn_figures     clusters of stroked curves grown by the paths and
                      tick labels around them, with little text over them
    with_figures      an image a drawn figure overlaps made part of it
    reading_position  where among a page's items an image's block is read

An image (:func:`picture_regions`) lifts no words: text set over it (a
cover's names, a caption) stays in the prose. A drawn figure
(:func:`drawn_figures`) is lifted as a table is and holds the words over it
(tick labels, a legend: read as prose they were lines of numbers between
a paragraph's halves). A scanned region (:func:`.scans.scanned_regions`)
is no picture: its page needs OCR.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..engine import PageImages
from ..geometry import BBox, area, center, contains_point, intersection, merge_overlapping, overlaps, rounded, union
from .scans import SCAN_PAGE_MIN_FRAC, SCAN_REGION_MAX_TEXT_DENSITY
from ..records import Picture

PICTURE_MIN_FRAC = 0.05  # of the page's area: smaller, a logo, a seal, an author's portrait, an icon
PICTURE_MIN_PIXELS = 10_000  # an image of fewer pixels (a 100 × 100 icon, a bar stretched to a rule) is no picture
PIECE_MIN_FRAC = 0.002  # an image under this share of the page is not taken as a piece of a larger picture
TOUCH = 2.0  # points: images this close are pieces of one picture
FIGURE_MIN_FRAC = 0.03  # of the page: a drawn figure this large (a chart a column wide covers under 5 %)
FIGURE_SEED_FRAC = 0.01  # of the page: curves and slanted lines clustered this large may be a drawn figure's plot
FIGURE_REACH = 10.0  # points: a drawn path this close to a figure is part of it (an axis, a tick, a label set as outlines)
MARK_MAX_FRAC = 0.25  # of the page: a larger path (a frame around the page's text) is no part of a figure
# share of a drawn figure's box the boxes of the words over it cover: a chart's tick labels and
# legend set as text (a seventh of its box or so) are read on it; running text in a frame with
# rounded corners covers over half of it
FIGURE_MAX_TEXT_COVER = 0.3
_TICK = re.compile(r"[-+−]?(?:\d+(?:[.,]\d+)?|[.,]\d+)(?:e[-+−]?\d+)?%?")  # a tick label: 0.6, 100, -1e-06, 25%


def picture_regions(page, words: Sequence, scanned: Sequence[BBox] = (), images: PageImages | None = None) -> list[Picture]:
    """The pictures on ``page`` (a PyMuPDF page, upright; boxes in page
    coordinates, top to bottom): its drawn images, pieces within
    :data:`TOUCH` of each other joined (a diagram drawn in strips), of
    :data:`PICTURE_MIN_FRAC` of the page or more and under
    :data:`SCAN_PAGE_MIN_FRAC` of it (a page's background or scan: judged by
    the OCR tests), with text of ``words`` (their middles) over them no
    denser than :data:`SCAN_REGION_MAX_TEXT_DENSITY` (denser, it is a
    background the text is read on: a shaded box), none overlapping a
    ``scanned`` region. The drawn images are looked up (MuPDF's
    ``get_image_info``, a pass over the page) only when the page's
    resources hold an image of :data:`PICTURE_MIN_PIXELS` or more."""
    rect = page.rect
    page_area = rect.width * rect.height
    out: list[Picture] = []
    images = images or PageImages(page)
    drawn = images.drawn() if page_area > 0 and images.any(lambda img: img[2] * img[3] >= PICTURE_MIN_PIXELS) else []
    # an image drawn is known by its size in pixels and bits: its xref when one listed image has them
    by_size: dict[tuple, list[int]] = {}
    for img in images.listed:
        by_size.setdefault((img[2], img[3], img[4]), []).append(img[0])
    pieces: list[tuple[BBox, int]] = []
    for info in drawn:
        if info.get("width", 0) * info.get("height", 0) < PICTURE_MIN_PIXELS:
            continue
        x0, y0, x1, y1 = info["bbox"]
        box = (max(x0, rect.x0), max(y0, rect.y0), min(x1, rect.x1), min(y1, rect.y1))
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        if area(box) >= PIECE_MIN_FRAC * page_area:
            xrefs = by_size.get((info.get("width"), info.get("height"), info.get("bpc")), [])
            pieces.append((box, xrefs[0] if len(xrefs) == 1 else 0))
    for box in merge_overlapping([b for b, _ in pieces], TOUCH, TOUCH):
        if not PICTURE_MIN_FRAC * page_area <= area(box) < SCAN_PAGE_MIN_FRAC * page_area:
            continue
        if any(overlaps(box, s, 0.0) for s in scanned):
            continue
        if _chars_over(words, box) * 1000 <= SCAN_REGION_MAX_TEXT_DENSITY * area(box):
            inside = [x for b, x in pieces if overlaps(b, box, 0.0)]
            out.append(Picture(rounded(box), frozenset(inside) if all(inside) else frozenset()))
    return out


def repeated_images(pictures: Sequence[Sequence[Picture]]) -> frozenset[int]:
    """The images (xrefs) pictures are drawn from on two pages or more of a
    document (``pictures``: each page's): a letterhead, a banner, a logo
    drawn large — the page's decoration, not its content (a report's
    charts are images of their own, even where two are set at the same
    place on two pages). Pure."""
    pages: dict[int, set[int]] = {}
    for k, page in enumerate(pictures):
        for picture in page:
            for xref in picture.images:
                pages.setdefault(xref, set()).add(k)
    return frozenset(x for x, seen in pages.items() if len(seen) >= 2)


def with_figures(pictures: Sequence[Picture], figures: Sequence[BBox]) -> tuple[list[Picture], list[BBox]]:
    """``pictures`` and drawn ``figures`` with each picture a figure
    overlaps made part of it (a figure of images and drawn arrows is one):
    the pictures left, and the figures."""
    figures = list(figures)
    left: list[Picture] = []
    for pic in pictures:
        hit = [k for k, f in enumerate(figures) if overlaps(pic.bbox, f, 0.0)]
        if not hit:
            left.append(pic)
            continue
        figures[hit[0]] = union([figures[hit[0]], pic.bbox])
    return left, [rounded(f) for f in merge_overlapping(figures, 0.0, 0.0)]


def _chars_over(words: Sequence, box: BBox) -> int:
    return sum(len(w.source) for w in words if contains_point(box, *center(w.bbox)))


def _text_cover(words: Sequence, box: BBox) -> float:
    """Square points of ``box`` the words whose middles lie in it cover."""
    return sum(intersection(w.bbox, box) for w in words if contains_point(box, *center(w.bbox)))


def _near(a: BBox, b: BBox, reach: float) -> bool:
    return a[0] - reach <= b[2] and b[0] - reach <= a[2] and a[1] - reach <= b[3] and b[1] - reach <= a[3]


def _grow(grown: list[BBox], boxes: Sequence[BBox], reach: float) -> None:
    """Each of ``boxes`` within ``reach`` of a box of ``grown`` made part of
    the first such box, until none is left within reach (a box reached
    brings the next into reach: a row of tick labels)."""
    pending = list(boxes)
    changed = True
    while changed and pending:
        changed = False
        rest: list[BBox] = []
        for b in pending:
            for k, box in enumerate(grown):
                if _near(b, box, reach):
                    grown[k] = union([box, b])
                    changed = True
                    break
            else:
                rest.append(b)
        pending = rest


def drawn_figures(strokes: Sequence[BBox], marks: Sequence[BBox], words: Sequence, width: float, height: float) -> list[BBox]:
    """Figures drawn in vector graphics: a cluster of stroked curves and
    slanted lines (``strokes``: a plot's lines, a diagram's arrows; a
    banner's filled shape is none) of
    :data:`FIGURE_SEED_FRAC` of the page or more, grown by every drawn path
    (``marks``) within :data:`FIGURE_REACH` of it — its axes, ticks, and
    labels set as outlines (no character of them in the text layer) — and
    by the numbers within reach (tick labels set as text),
    kept when it covers :data:`FIGURE_MIN_FRAC` of the page or more, under :data:`SCAN_PAGE_MIN_FRAC`, with words covering at most
    :data:`FIGURE_MAX_TEXT_COVER` of it (a chart's legend and tick labels
    set as text are read, and stay in the prose; a frame of running text
    with rounded corners is no figure). Pure."""
    page_area = width * height
    if page_area <= 0 or not strokes:
        return []
    grown = [box for box in merge_overlapping(strokes, 6.0, 6.0) if area(box) >= FIGURE_SEED_FRAC * page_area]
    if not grown:
        return []
    _grow(grown, [m for m in marks if area(m) <= MARK_MAX_FRAC * page_area], FIGURE_REACH)
    _grow(grown, [w.bbox for w in words if _TICK.fullmatch(w.source)], FIGURE_REACH)  # its tick labels set as text
    out: list[BBox] = []
    for box in merge_overlapping(grown, 0.0, 0.0):
        size = area(box)
        if FIGURE_MIN_FRAC * page_area <= size < SCAN_PAGE_MIN_FRAC * page_area and _text_cover(words, box) <= FIGURE_MAX_TEXT_COVER * size:
            out.append(box)
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
