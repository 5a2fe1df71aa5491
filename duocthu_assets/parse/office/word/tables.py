"""A Word table's geometry: its rows and cells (through content controls
and other wrappers) and the grid of merged cells (gridSpan, vMerge, hMerge)."""

from __future__ import annotations

from lxml import etree

from .package import W_CUSTOMXML, W_SDT, W_SDTCONTENT, W_TBL, W_TC, W_TR, W_VAL, int_or_none, w

_WRAPPERS = {W_SDT, W_SDTCONTENT, W_CUSTOMXML, w("smartTag"), w("ins"), w("moveTo")}


def table_rows(tbl: etree._Element) -> list[etree._Element]:
    rows = []
    for child in tbl:
        if child.tag == W_TR:
            rows.append(child)
        elif child.tag in _WRAPPERS:
            rows += [tr for tr in child.iter(W_TR) if owner_table(tr) is tbl]
    return rows


def owner_table(el: etree._Element) -> etree._Element | None:
    parent = el.getparent()
    while parent is not None and parent.tag != W_TBL:
        parent = parent.getparent()
    return parent


def row_cells(tr: etree._Element) -> list[etree._Element]:
    cells = []
    for child in tr:
        if child.tag == W_TC:
            cells.append(child)
        elif child.tag in _WRAPPERS:
            cells += [tc for tc in child.iter(W_TC) if tc.getparent() is not None and owner_row(tc) is tr]
    return cells


def owner_row(tc: etree._Element) -> etree._Element | None:
    parent = tc.getparent()
    while parent is not None and parent.tag != W_TR:
        parent = parent.getparent()
    return parent


def cell_positions(rows: list[etree._Element]) -> list[list[tuple[etree._Element | None, tuple[int, int]]]]:
    """The table as a grid: per position, the ``w:tc`` holding its content and
    the origin of the merge covering it (gridSpan across, vMerge down, and the
    legacy hMerge), or (None, own position) where a row starts late or ends early."""
    grid: list[list[tuple[etree._Element | None, tuple[int, int]]]] = []
    for r, tr in enumerate(rows):
        row: list[tuple[etree._Element | None, tuple[int, int]]] = []
        before = tr.find(f"{w('trPr')}/{w('gridBefore')}")
        for _ in range((int_or_none(before.get(W_VAL)) or 0) if before is not None else 0):
            row.append((None, (r, len(row))))
        for tc in row_cells(tr):
            tcpr = tc.find(w("tcPr"))
            span_el = tcpr.find(w("gridSpan")) if tcpr is not None else None
            span = max(int_or_none(span_el.get(W_VAL)) or 1, 1) if span_el is not None else 1
            vmerge = tcpr.find(w("vMerge")) if tcpr is not None else None
            hmerge = tcpr.find(w("hMerge")) if tcpr is not None else None
            col = len(row)
            origin = (r, col)
            owner: etree._Element | None = tc
            if vmerge is not None and vmerge.get(W_VAL, "continue") != "restart" and r > 0 and col < len(grid[r - 1]):
                owner, origin = grid[r - 1][col]
            elif hmerge is not None and hmerge.get(W_VAL, "continue") != "restart" and row and row[-1][0] is not None:
                owner, origin = row[-1]
            for _ in range(span):
                row.append((owner, origin))
        grid.append(row)
    width = max((len(row) for row in grid), default=0)
    for r, row in enumerate(grid):
        while len(row) < width:
            row.append((None, (r, len(row))))
    return grid if width else []


def unique_cells(positions) -> list[tuple[etree._Element, tuple[int, int]]]:
    seen: set[tuple[int, int]] = set()
    out = []
    for row in positions:
        for tc, origin in row:
            if tc is not None and origin not in seen:
                seen.add(origin)
                out.append((tc, origin))
    return out
