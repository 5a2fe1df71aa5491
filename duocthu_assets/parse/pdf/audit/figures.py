"""A figure's labels: a run of tokens leak_02 flagged that lies over or
beside a raster image on its page, read as printed, not flattened math.
"""

from __future__ import annotations

from ....settings.pdf import resolve_pdf_settings
from ..geometry import BBox
from ..read.page import read_page
from ..records import Fragment
from .pages import pages_where

FIGURE_LABEL_GAP = 12.0  # points: a label this close to a figure's raster image belongs to it
FIGURE_MIN_SIDE = 4.0  # points: a raster image thinner than this is a rule, not a figure


def figure_labels(fragments: list[Fragment], images: list[BBox], window: list[str]) -> bool:
    """Whether the run of tokens ``window`` is a figure's labels: the lines
    that spell it (every word of the line is one of the window's) cover most
    of it, and each lies over or within :data:`FIGURE_LABEL_GAP` of a raster
    image on the page (``s1 s2 s3`` over a grid of scans). Pure."""
    if not images:
        return False
    wanted = set(window)
    covered = 0
    for fragment in fragments:
        words = fragment.text.split()
        if not words or not set(words) <= wanted:
            continue
        g = FIGURE_LABEL_GAP
        x0, y0, x1, y1 = fragment.bbox
        if any(x0 < i[2] + g and x1 > i[0] - g and y0 < i[3] + g and y1 > i[1] - g for i in images):
            covered += len(words)
    return covered * 2 > len(window)


def figure_labels_in(data: bytes, page_nos: list[int], window: list[str]) -> list[int]:
    """The pages among ``page_nos`` of the PDF ``data`` where ``window`` is
    a figure's labels (:func:`figure_labels`), read with the parser's own
    page reader."""
    settings = resolve_pdf_settings(None)

    def labels_on(page) -> bool:
        images = [tuple(i["bbox"]) for i in page.get_image_info()]
        return bool(images) and figure_labels(list(read_page(page, settings).fragments), images, window)

    return pages_where(data, page_nos, labels_on)

