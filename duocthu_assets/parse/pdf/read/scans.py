"""Scanned pictures inside a page that has a text layer: what no text
extractor reads and the page-level OCR test (little text on a page images
cover) does not see. A directive may print its procedures as scanned
figures between lines of text, which were in no chunk, with nothing
said. A scan's image is 1 bit a pixel (CCITT fax, JBIG2, a
bilevel Flate); a photograph or a chart is not — except as a whole page:
a page scanned in colour (to keep a red seal) and signed, the signature's
text over it, reads as nothing but that text."""

from __future__ import annotations

from typing import Sequence

from ..engine import PageImages
from ..geometry import BBox
from .hidden import SCAN_MIN_PIXELS

# the parse warning that names them, which no_pages_need_ocr repeats
SCANNED_REGION = "scanned region(s) with no text over them"
SCAN_REGION_MIN_FRAC = 0.05  # of the page's area: a bilevel image this large is a scanned region, not a stamp or a rule
SCAN_REGION_MIN_PIXELS = 100_000  # a 5 % region of a letter page scanned at 150 dpi: 105,000
# an image of more bits a pixel is a scan only as the whole page (a colour scan keeps a red seal):
# this share of the page and a scan's size in pixels (read/hidden.SCAN_MIN_PIXELS)
SCAN_PAGE_MIN_FRAC = 0.9
# characters of the text layer over it per 1,000 square points (a page of prose holds 5-8): more, and
# the image is a background the text is read on; fewer, and the text is a stamp on the scan (the
# chinhphu.vn signature, 126 characters on a scanned page of 507,000 square points: 0.25)
SCAN_REGION_MAX_TEXT_DENSITY = 1.0


def scanned_regions(page, words: Sequence, transform=None, images: PageImages | None = None) -> list[tuple[BBox, float]]:
    """Boxes (page coordinates) of the bilevel images drawn over
    :data:`SCAN_REGION_MIN_FRAC` of ``page`` or more, and of the images of
    a scan's size drawn over the whole page (:data:`SCAN_PAGE_MIN_FRAC`,
    whatever their bits a pixel), with next to no text over them (:data:`SCAN_REGION_MAX_TEXT_DENSITY`; ``words``' middles, in
    the frame ``transform`` maps page boxes to),
    each with the share of the page it covers. The drawn images are looked
    up (MuPDF's ``get_image_info``, a pass over the page) only when the
    page's resources hold an image that could be one."""
    images = images or PageImages(page)
    if not images.any(lambda img: (img[4] == 1 and img[2] * img[3] >= SCAN_REGION_MIN_PIXELS) or img[2] * img[3] >= SCAN_MIN_PIXELS):
        return []
    drawn = images.drawn()
    area = page.rect.width * page.rect.height
    out: list[tuple[BBox, float]] = []
    for info in drawn:
        if area <= 0:
            continue
        x0, y0, x1, y1 = info["bbox"]
        px0, py0 = max(x0, page.rect.x0), max(y0, page.rect.y0)
        px1, py1 = min(x1, page.rect.x1), min(y1, page.rect.y1)
        share = max(px1 - px0, 0) * max(py1 - py0, 0) / area
        if share < (SCAN_REGION_MIN_FRAC if info.get("bpc") == 1 else SCAN_PAGE_MIN_FRAC):
            continue
        if info.get("bpc") != 1 and info.get("width", 0) * info.get("height", 0) < SCAN_MIN_PIXELS:
            continue
        box = (px0, py0, px1, py1)
        a, b, c, d = transform(box) if transform is not None else box
        over = sum(
            len(w.source)
            for w in words
            if a <= (w.bbox[0] + w.bbox[2]) / 2 <= c and b <= (w.bbox[1] + w.bbox[3]) / 2 <= d
        )
        if over * 1000 <= SCAN_REGION_MAX_TEXT_DENSITY * (px1 - px0) * (py1 - py0):
            out.append((box, share))
    return out
