"""The tables and formulas of a PDF checked page by page: each page that
holds one read with the parser's own page reader, then the table and
formula detectors run on its fragments.
"""

from __future__ import annotations

from dataclasses import dataclass

from ....settings.pdf import resolve_pdf_settings
from ..geometry import BBox
from ..read.page import read_page
from .formulas import formula_goes_on, loose_cell_lines
from .pages import each_page
from .tables import Leak, leaked_rows, prose_lines_in


@dataclass(frozen=True)
class Inspection:
    leaks: tuple[Leak, ...]
    prose_in_blocks: tuple[tuple[int, str], ...]  # (page_no, text) of running-text lines inside a table


def inspect_tables(data: bytes, tables: list[tuple[int, BBox]], blocks: list[tuple[int, BBox]] = (), formulas: list[tuple[int, BBox]] = ()) -> Inspection:
    """:func:`.tables.leaked_rows` and :func:`.tables.prose_lines_in` on
    every page of the PDF ``data`` that holds one of ``tables``
    (``(page_no, bbox)`` in the parser's coordinates); ``blocks`` are every lifted block (formulas too),
    whose text is not free; :func:`.formulas.loose_cell_lines` and
    :func:`.formulas.formula_goes_on` on every page that holds one of
    ``formulas``."""
    by_page: dict[int, list[BBox]] = {}
    for page_no, bbox in tables:
        by_page.setdefault(page_no, []).append(tuple(bbox))
    by_formula: dict[int, list[BBox]] = {}
    for page_no, bbox in formulas:
        by_formula.setdefault(page_no, []).append(tuple(bbox))
    others: dict[int, list[BBox]] = {}
    for page_no, bbox in blocks:
        others.setdefault(page_no, []).append(tuple(bbox))
    settings = resolve_pdf_settings(None)
    leaks: list[Leak] = []
    prose: list[tuple[int, str]] = []
    for page_no, page in each_page(data, set(by_page) | set(by_formula)):
        content = read_page(page, settings)
        frags = list(content.fragments)
        boxes = by_page.get(page_no, [])
        extra = [b for b in others.get(page_no, []) if b not in boxes]
        leaks += leaked_rows(page_no, frags, boxes, extra)
        for box in boxes:
            prose += [(page_no, f.text) for f in prose_lines_in(box, frags, list(content.rules))]
        cells = by_formula.get(page_no, [])
        if cells:
            rest = [b for b in others.get(page_no, []) + boxes if b not in cells]
            leaks += loose_cell_lines(page_no, frags, cells, rest) + formula_goes_on(page_no, frags, cells, rest)
    return Inspection(tuple(leaks), tuple(prose))

