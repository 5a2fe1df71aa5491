"""Tables to row units, the same way for DOCX data tables, XLSX and CSV (ADR 0018 §4, §6).

A table arrives as a :data:`Grid`: rows of :class:`Cell`, already normalized,
with merged cells forward-filled (every grid position a merge covers holds its
text, and ``origin`` names the merge's top-left position). From there the chain is:

``split_regions`` (spreadsheets and CSV only: blank rows, and for sheets blank
columns, separate tables) → ``leading_banners`` (merged title rows are not
data) → ``header_candidate`` (row 0, plus the rows a vertical merge ties to
it) → ``header_votes`` (the ``csv.Sniffer.has_header`` test: is the candidate
inconsistent with the columns beneath it?) → ``render_labeled`` /
``render_unlabeled``.

The rules, and why:

- A header is row 0 or nothing; nothing ever scans further down for a
  header-shaped row (that is how a 30-row compensation table came to read
  ``80: 70`` on every row).
- Row 0 is a header only when the columns beneath contradict it: a label above
  numbers, dates or booleans, a label of another length above fixed-length
  codes, or a short label above values at least three times longer. Length
  evidence needs two values beneath; one value proves nothing.
- Unprovable → cells joined with ``" | "``: unlabeled, never mislabeled.
- A cell merged across columns is rendered once; its label is what the spanned
  columns' labels share (the merged header above it), else all their labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

UNLABELED_SEPARATOR = " | "
LABEL_SEPARATOR = ": "
FIELD_SEPARATOR = "\n"
LEVEL_SEPARATOR = " / "  # levels of a header merged vertically over two rows
HEADER_SAMPLE_ROWS = 50  # rows beneath row 0 the header test looks at (Sniffer: 20)
LONG_VALUE_FACTOR = 3  # "a short label above much longer values"
MIN_LENGTH_EVIDENCE = 2  # values beneath needed before lengths say anything


class ValueKind(StrEnum):
    EMPTY = "empty"
    NUMBER = "number"
    DATE = "date"
    BOOL = "bool"
    TEXT = "text"


@dataclass(frozen=True)
class Cell:
    """One grid position. ``origin`` is (row, col) of the cell that owns the
    text: the position itself, or the top-left of the merge covering it."""

    text: str
    origin: tuple[int, int]
    kind: ValueKind = ValueKind.TEXT

    @property
    def empty(self) -> bool:
        return not self.text


Grid = list[list[Cell]]


@dataclass(frozen=True)
class Region:
    """Rows ``top..bottom`` and columns ``left..right`` (inclusive) of a grid."""

    top: int
    bottom: int
    left: int
    right: int

    @property
    def width(self) -> int:
        return self.right - self.left + 1


@dataclass(frozen=True)
class RenderedRow:
    row: int  # index in the grid
    col: int  # first column of the table (for a source reference)
    text: str
    banner: bool = False  # a title row: not data, emitted as a paragraph


@dataclass
class TableReading:
    """Everything decided about one table, kept so a reader can see each step."""

    region: Region
    banner_rows: list[int] = field(default_factory=list)
    header_rows: list[int] = field(default_factory=list)  # empty: no provable header
    labels: list[tuple[str, ...]] = field(default_factory=list)  # per column, when labeled
    votes: int = 0
    inherited: bool = False  # the header was proven on the table above (same columns)
    rows: list[RenderedRow] = field(default_factory=list)


# ---------------------------------------------------------------- value kinds

_NUMBER = re.compile(
    r"^[(]?[+\-−]?[$€£¥]?\s?(\d{1,3}([,٬']\d{3})+|\d+)([.٫]\d+)?\s?[%٪]?[)]?$"
)
_DATE = re.compile(
    r"^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})"
    r"([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?$"
)
_TIME = re.compile(r"^\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?$")
_BOOL = {"true", "false"}


def text_kind(text: str) -> ValueKind:
    """Classify a cell's text (Persian and Arabic-Indic digits count as digits)."""
    value = text.strip()
    if not value:
        return ValueKind.EMPTY
    if value.lower() in _BOOL:
        return ValueKind.BOOL
    if _DATE.match(value) or _TIME.match(value):
        return ValueKind.DATE
    if _NUMBER.match(value):
        return ValueKind.NUMBER
    try:
        float(value)
    except ValueError:
        return ValueKind.TEXT
    return ValueKind.NUMBER if value.lower() not in {"nan", "inf", "-inf", "infinity"} else ValueKind.TEXT


def text_cell(text: str, row: int, col: int) -> Cell:
    return Cell(text=text, origin=(row, col), kind=text_kind(text))


# ------------------------------------------------------------------- regions


def _row_empty(grid: Grid, r: int, left: int, right: int) -> bool:
    return all(grid[r][c].empty for c in range(left, right + 1))


def _col_empty(grid: Grid, c: int, top: int, bottom: int) -> bool:
    return all(grid[r][c].empty for r in range(top, bottom + 1))


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """Runs of False (occupied) between True (empty) flags, as (start, end)."""
    runs, start = [], None
    for i, is_empty in enumerate(flags):
        if not is_empty and start is None:
            start = i
        elif is_empty and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(flags) - 1))
    return runs


def _populated_rows(grid: Grid, top: int, bottom: int, left: int, right: int) -> set[int]:
    return {r for r in range(top, bottom + 1) if not _row_empty(grid, r, left, right)}


def _join_spacer_columns(grid: Grid, top: int, bottom: int, runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Blank columns inside one table are spacers, not a boundary: neighbouring
    blocks are one table when every row populated in one is populated in the
    other (a form's label column beside its values). Blocks whose rows differ
    both ways are side-by-side tables."""
    groups: list[tuple[int, int, set[int]]] = []
    for a, b in runs:
        rows = _populated_rows(grid, top, bottom, a, b)
        if groups and (rows <= groups[-1][2] or groups[-1][2] <= rows):
            start, _, seen = groups[-1]
            groups[-1] = (start, b, seen | rows)
        else:
            groups.append((a, b, rows))
    return [(a, b) for a, b, _ in groups]


def split_regions(grid: Grid, cut_columns: bool = True) -> list[Region]:
    """Given a padded grid, return its tables in reading order: blocks of cells
    separated by fully blank rows and (when ``cut_columns``) by fully blank
    columns that are not mere spacers, cut recursively (an XY cut). A structural
    fact about where cells are, not a reading of what they say."""
    if not grid or not grid[0]:
        return []
    out: list[Region] = []
    stack = [Region(0, len(grid) - 1, 0, len(grid[0]) - 1)]
    while stack:
        region = stack.pop(0)
        row_runs = _runs([_row_empty(grid, r, region.left, region.right) for r in range(region.top, region.bottom + 1)])
        if not row_runs:
            continue
        if len(row_runs) > 1:
            stack[0:0] = [Region(region.top + a, region.top + b, region.left, region.right) for a, b in row_runs]
            continue
        top, bottom = region.top + row_runs[0][0], region.top + row_runs[0][1]
        col_runs = _runs([_col_empty(grid, c, top, bottom) for c in range(region.left, region.right + 1)])
        col_runs = [(region.left + a, region.left + b) for a, b in col_runs]
        if cut_columns:
            col_runs = _join_spacer_columns(grid, top, bottom, col_runs)
        else:
            col_runs = [(col_runs[0][0], col_runs[-1][1])]
        if len(col_runs) > 1:
            stack[0:0] = [Region(top, bottom, a, b) for a, b in col_runs]
            continue
        left, right = col_runs[0]
        if (top, bottom, left, right) != (region.top, region.bottom, region.left, region.right):
            stack.insert(0, Region(top, bottom, left, right))  # trimmed: blank rows may now split it
            continue
        out.append(region)
    return out


# ------------------------------------------------------------ banners, header


def _cells(grid: Grid, region: Region, r: int) -> list[Cell]:
    return grid[r][region.left : region.right + 1]


def is_banner_row(cells: list[Cell]) -> bool:
    """Fewer than two populated cells, or one value repeated across the row
    (a merge forward-filled, or a title typed into every column)."""
    return len({c.text for c in cells if not c.empty}) <= 1


def is_continuation_row(cells: list[Cell], r: int) -> bool:
    """Every populated cell is a vertical merge from a row above: the row repeats
    what is already there and has no content of its own."""
    populated = [c for c in cells if not c.empty]
    return bool(populated) and all(c.origin[0] < r for c in populated)


def leading_banners(grid: Grid, region: Region) -> list[int]:
    """Rows at the top of a table that are structurally a merged banner. Only a
    table at least two columns wide has banners (in a one-column table every row
    would qualify)."""
    if region.width < 2:
        # in a one-column table every row would qualify; only a lone cell is a title
        single = region.top == region.bottom and not all(c.empty for c in _cells(grid, region, region.top))
        return [region.top] if single else []
    banners = []
    for r in range(region.top, region.bottom + 1):
        cells = _cells(grid, region, r)
        if all(c.empty for c in cells):
            continue
        if not is_banner_row(cells):
            break
        banners.append(r)
    return banners


def header_candidate(grid: Grid, region: Region, first: int) -> list[int]:
    """Row ``first`` (row 0 of the table after its banners) and the rows below it
    that a vertical merge starting in it reaches: a header merged over two rows
    (its duplicate in the row below is not data)."""
    rows = [first]
    r = first + 1
    while r <= region.bottom:
        cells = _cells(grid, region, r)
        if not any(not c.empty and c.origin[0] in rows for c in cells):
            break
        rows.append(r)
        r += 1
    return rows


def header_labels(grid: Grid, region: Region, rows: list[int]) -> list[tuple[str, ...]]:
    """Per column, the distinct texts of the header rows top-down (a merged
    header's repeats collapse): ``("header", "second")``."""
    labels = []
    for c in range(region.left, region.right + 1):
        levels: list[str] = []
        seen: set[tuple[int, int]] = set()
        for r in rows:
            cell = grid[r][c]
            if cell.empty or cell.origin in seen:
                continue
            seen.add(cell.origin)
            if not levels or levels[-1] != cell.text:
                levels.append(cell.text)
        labels.append(tuple(levels))
    return labels


def header_votes(labels: list[tuple[str, ...]], columns: list[list[Cell]]) -> int:
    """The ``csv.Sniffer.has_header`` vote, one column at a time: +1 when the
    label is inconsistent with the values beneath, -1 when it looks like one of
    them, 0 when the column says nothing (mixed kinds, free text, no label)."""
    votes = 0
    for label_levels, values in zip(labels, columns):
        label = LEVEL_SEPARATOR.join(label_levels)
        values = [v for v in values if not v.empty]
        if not label or not values:
            continue
        kinds = {v.kind for v in values}
        if len(kinds) != 1:
            continue
        kind = kinds.pop()
        label_kind = text_kind(label)
        if kind is not ValueKind.TEXT:
            votes += 1 if label_kind is not kind else -1
            continue
        if len(values) < MIN_LENGTH_EVIDENCE:
            continue
        lengths = {len(v.text) for v in values}
        if len(lengths) == 1:
            votes += 1 if len(label) not in lengths else -1
        elif label_kind is ValueKind.TEXT and len(label) * LONG_VALUE_FACTOR <= min(lengths):
            votes += 1
    return votes


def _data_columns(grid: Grid, region: Region, rows: list[int]) -> list[list[Cell]]:
    sample = rows[:HEADER_SAMPLE_ROWS]
    return [[grid[r][c] for r in sample] for c in range(region.left, region.right + 1)]


# ------------------------------------------------------------------ rendering


def _spans(cells: list[Cell]) -> list[tuple[int, int, Cell]]:
    """Consecutive positions holding the same merged cell, as (first, last, cell)
    with indices relative to the row: a horizontal merge is reported once."""
    spans: list[tuple[int, int, Cell]] = []
    for i, cell in enumerate(cells):
        if spans and not cell.empty and spans[-1][2].origin == cell.origin:
            spans[-1] = (spans[-1][0], i, cell)
        else:
            spans.append((i, i, cell))
    return spans


def render_unlabeled(cells: list[Cell]) -> str:
    """Cells joined with ``" | "``; a merged cell once; empty cells keep their
    place except at the end of the row."""
    parts = [cell.text for _, _, cell in _spans(cells)]
    while parts and not parts[-1]:
        parts.pop()
    return UNLABELED_SEPARATOR.join(parts).strip()


def _span_label(labels: list[tuple[str, ...]], first: int, last: int) -> str:
    spanned = labels[first : last + 1]
    if len(spanned) == 1:
        return LEVEL_SEPARATOR.join(spanned[0])
    common: list[str] = []
    for levels in zip(*spanned):
        if len(set(levels)) != 1:
            break
        common.append(levels[0])
    if common:
        return LEVEL_SEPARATOR.join(common)
    distinct = list(dict.fromkeys(LEVEL_SEPARATOR.join(levels) for levels in spanned if levels))
    return ", ".join(distinct)


def render_labeled(cells: list[Cell], labels: list[tuple[str, ...]]) -> str:
    """``header: value`` per populated cell, one per line. A cell with no label
    above it (a column the header leaves blank, a ragged extra field) is written
    bare; a cell merged across the whole row is a divider, written bare too."""
    lines = []
    width = len(cells)
    for first, last, cell in _spans(cells):
        if cell.empty:
            continue
        whole_row = width > 1 and first == 0 and last == width - 1
        label = "" if whole_row or first >= len(labels) else _span_label(labels, first, min(last, len(labels) - 1))
        if not label:
            lines.append(cell.text)
        elif label.endswith((":", "：")):  # "Package no.:" reads "Package no.: 13156456"
            lines.append(f"{label} {cell.text}")
        else:
            lines.append(f"{label}{LABEL_SEPARATOR}{cell.text}")
    return FIELD_SEPARATOR.join(lines)


# ------------------------------------------------------------------- reading


def read_table(grid: Grid, region: Region, inherit: TableReading | None = None) -> TableReading:
    """Given a grid and one table's region, return the table's banners, header
    (when provable) and rendered rows. ``inherit`` is the table just above with
    the same columns: when this table has no header of its own, the one above is
    used if the same test proves it against these rows (a table interrupted by a
    blank row)."""
    reading = TableReading(region=region)
    reading.banner_rows = leading_banners(grid, region)
    banners = set(reading.banner_rows)
    rows = [r for r in range(region.top, region.bottom + 1) if r not in banners]
    rows = [r for r in rows if not all(c.empty for c in _cells(grid, region, r))]
    for r in reading.banner_rows:
        reading.rows.append(RenderedRow(r, region.left, render_unlabeled(_cells(grid, region, r)), banner=True))
    if not rows:
        return reading

    candidate = header_candidate(grid, region, rows[0])
    data_rows = [r for r in rows if r not in set(candidate)]
    labels = header_labels(grid, region, candidate)
    votes = header_votes(labels, _data_columns(grid, region, data_rows)) if data_rows else 0
    reading.votes = votes
    if votes > 0:
        reading.header_rows, reading.labels = candidate, labels
    elif inherit is not None and inherit.labels and inherit.region.left == region.left and inherit.region.right == region.right:
        inherited_votes = header_votes(inherit.labels, _data_columns(grid, region, rows))
        if inherited_votes > 0:
            reading.labels, reading.inherited, reading.votes = inherit.labels, True, inherited_votes
            data_rows = rows
    if not reading.labels:
        data_rows = rows

    present = set(rows)
    for r in data_rows:
        cells = _cells(grid, region, r)
        if is_continuation_row(cells, r) and r - 1 in present:
            continue  # a vertical merge's repeat of the row above: nothing new
        text = render_labeled(cells, reading.labels) if reading.labels else render_unlabeled(cells)
        if text:
            reading.rows.append(RenderedRow(r, region.left, text))
    reading.rows.sort(key=lambda row: row.row)
    return reading


def read_tables(grid: Grid, regions: list[Region]) -> list[TableReading]:
    """Read each region in order; a region with the same columns as the table
    just above it may inherit that table's header (see :func:`read_table`)."""
    readings: list[TableReading] = []
    for region in regions:
        previous = readings[-1] if readings else None
        readings.append(read_table(grid, region, inherit=previous))
    return readings


def pad_grid(rows: list[list[Cell]]) -> Grid:
    """Make every row as wide as the widest, with empty cells at their own origin."""
    width = max((len(r) for r in rows), default=0)
    return [row + [Cell("", (i, c), ValueKind.EMPTY) for c in range(len(row), width)] for i, row in enumerate(rows)]
