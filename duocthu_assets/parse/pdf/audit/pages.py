"""The pages of a PDF opened for the audit: the pages asked for, each read
as MuPDF's page dict with the page reader's flags, and that dict's lines
in the page reader's order.

The audit re-reads a page on its own, independently of the finders, so
that its second opinion does not share their mistakes.
"""

from __future__ import annotations

from ..engine import open_pdf
from ..read.page import TEXT_FLAGS
from ..read.orientation import reading_direction


def each_page(data: bytes, page_nos: list[int]):
    """``(page_no, page)`` for each of the pages ``page_nos`` of the PDF
    ``data`` (numbered from 1; numbers outside the document skipped), in
    order; the document is closed when the caller is done."""
    doc = open_pdf(data)
    try:
        for page_no in sorted(set(page_nos)):
            if 1 <= page_no <= doc.page_count:
                yield page_no, doc[page_no - 1]
    finally:
        doc.close()


def pages_where(data: bytes, page_nos: list[int], holds) -> list[int]:
    """The pages among ``page_nos`` of the PDF ``data`` for which
    ``holds(page)`` is true (:func:`each_page`)."""
    return [page_no for page_no, page in each_page(data, page_nos) if holds(page)]


def page_dicts(data: bytes, page_nos: list[int]):
    """``(page_no, page, page dict)`` for each page of :func:`each_page`, the
    dict read with the page reader's flags."""
    for page_no, page in each_page(data, page_nos):
        yield page_no, page, page.get_textpage(flags=TEXT_FLAGS).extractDICT(sort=False)


def reading_lines(page_dict: dict) -> tuple[list[dict | None], tuple[int, int]]:
    """A page dict's lines in the order the page reader numbers them, each
    running in the page's reading direction with no slant (None for the
    others), and that direction."""
    direction = reading_direction(page_dict)
    lines: list[dict | None] = []
    for block in page_dict["blocks"]:
        if block.get("type", 0) != 0:
            continue
        for line in block["lines"]:
            dx, dy = line.get("dir", (1, 0))
            flat = (dx == 0 or dy == 0) and (round(dx), round(dy)) == direction
            lines.append(line if flat else None)
    return lines, direction
