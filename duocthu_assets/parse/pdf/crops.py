"""Render one lifted block of a PDF page to PNG: the crop that answers a
question about a table or a formula (ADR 0006).

Pure and deterministic: the same bytes, page, bbox and dpi give the same PNG
bytes (no timestamps, no metadata), so crops can be compared by sha256.
"""

from __future__ import annotations

from ..errors import ParseFailed
from .engine import open_pdf, pymupdf
from .geometry import BBox
from .read.orientation import reading_matrix, unrotated_size
from .read.page import TEXT_FLAGS

MIN_CROP_DPI = 150


def render_block_crop(data: bytes, page_no: int, bbox: BBox, dpi: int, margin_pt: float, doc=None) -> tuple[bytes, int, int]:
    """PNG bytes, width and height in pixels of ``bbox`` (top-left origin, PDF
    points, in the page's reading orientation as the parser reports it) on
    1-based ``page_no``, grown by ``margin_pt`` on every side and clipped to
    the page, at ``dpi``. The crop is shown the way the text reads: turned
    with the page when the page's text is set sideways, and turned on its
    own when only the block's text is (a table set sideways on an upright
    page). ``doc``, when given, is ``data`` already open (many crops of one
    file open it once)."""
    if dpi < MIN_CROP_DPI:
        raise ValueError(f"crop dpi {dpi} is below the {MIN_CROP_DPI} dpi a reader needs")
    if margin_pt < 0:
        raise ValueError(f"crop margin {margin_pt} must not be negative")
    own = doc is None
    doc = open_pdf(data) if own else doc
    try:
        if not 1 <= page_no <= doc.page_count:
            raise ParseFailed(f"page {page_no} is not in this PDF ({doc.page_count} pages)")
        page = doc[page_no - 1]
        wanted = pymupdf.Rect(crop_box(bbox, margin_pt))
        width, height = unrotated_size(page)
        page_dict = page.get_textpage(flags=TEXT_FLAGS).extractDICT()
        turn = reading_matrix(page_dict, width, height)
        # reading orientation → unrotated page → page as displayed (get_pixmap clips there)
        unrotated = wanted * ~turn if turn is not None else wanted
        shown = (unrotated * page.rotation_matrix if page.rotation else unrotated) & page.rect
        if shown.is_empty:
            raise ValueError(f"bbox {tuple(bbox)} lies outside page {page_no}")
        # turn the picture as the text reads: the reading turn (the page's, or
        # that of a region set sideways on an upright page), less the page's own /Rotate
        if turn is None:
            turn = reading_matrix(_text_within(page_dict, unrotated), width, height)
        degrees = _degrees(turn) - page.rotation
        matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(degrees % 360)
        pix = page.get_pixmap(matrix=matrix, clip=shown, alpha=False, annots=True)
        return pix.tobytes("png"), pix.width, pix.height
    finally:
        if own:
            doc.close()


def crop_box(bbox: BBox, margin_pt: float) -> BBox:
    """The region a crop shows, before clipping to the page (reading
    orientation, PDF points): the block's box (which holds every character
    and rule of the block, see :func:`.blocks.candidates.cover_fragments`) grown by
    ``margin_pt`` on every side, so titles, brackets and the rules above and
    below are inside."""
    x0, y0, x1, y1 = (float(v) for v in bbox)
    if not (x1 > x0 and y1 > y0):
        raise ValueError(f"empty bbox {tuple(bbox)}")
    return (x0 - margin_pt, y0 - margin_pt, x1 + margin_pt, y1 + margin_pt)


def _text_within(page_dict: dict, rect) -> dict:
    """The page's text lines whose middle lies in ``rect`` (unrotated page
    coordinates), as a page dict of one block."""
    lines = [
        line
        for block in page_dict["blocks"]
        if block.get("type", 0) == 0
        for line in block["lines"]
        if pymupdf.Point((line["bbox"][0] + line["bbox"][2]) / 2, (line["bbox"][1] + line["bbox"][3]) / 2) in rect
    ]
    return {"blocks": [{"type": 0, "lines": lines}]}


def _degrees(turn) -> int:
    """Clockwise degrees of a reading turn (0, 90, 180, 270)."""
    if turn is None:
        return 0
    if turn.b == -1:
        return 270
    if turn.b == 1:
        return 90
    return 180
