"""XLSX → segments (ADR 0018 §4, §6) with openpyxl.

Each worksheet with content is an entry: a level-1 HEADING with the sheet's
name, then its tables. Values are the cached results Excel saved, never the
formulas (a formula cell saved without a result is counted in a warning, as
its value is not in the file). Merged ranges are forward-filled, so every row
carries the value of a merge it sits under. A sheet's tables are the blocks of
cells that blank rows and blank columns separate (:func:`tabular.split_regions`);
each is read by :mod:`.tabular`: banner rows become paragraphs, the header is
row 0 or nothing, and every row is one TABLE_ROW (``Sheet1!A5`` names the
row's first cell). Empty sheets are skipped with a warning; a workbook
whose sheets are all empty is rejected (there is nothing to index). ``page_count`` is
the number of worksheets.
"""

from __future__ import annotations

import datetime as dt
import io
import re

from ...model import ParsedDocument, Segment, SegmentKind
from ...settings import Settings
from ...textnorm import normalize_block
from . import tabular
from ..errors import DocumentRejected, ParseFailed
from ..inline_marks import struck as marked_struck
from ..inline_marks import written
from .ooxml_safety import open_package, read_xml


_XDR_SHAPE = "{http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing}sp"
_A_TEXT = "{http://schemas.openxmlformats.org/drawingml/2006/main}t"
_FORMULA_TAG = re.compile(rb"<(?:\w+:)?f[ >/]")


def cell_text(value: object) -> tuple[str, tabular.ValueKind]:
    """A cached cell value as the text a reader expects, and its kind.
    Floats keep Excel's 15 significant digits (0.1+0.2 is 0.3, as Excel shows)."""
    if value is None:
        return "", tabular.ValueKind.EMPTY
    if isinstance(value, bool):
        return ("TRUE" if value else "FALSE"), tabular.ValueKind.BOOL
    if isinstance(value, int):
        return str(value), tabular.ValueKind.NUMBER
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value)), tabular.ValueKind.NUMBER
        return format(value, ".15g"), tabular.ValueKind.NUMBER
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0, 0):
            return value.date().isoformat(), tabular.ValueKind.DATE
        return value.isoformat(sep=" "), tabular.ValueKind.DATE
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat(), tabular.ValueKind.DATE
    if isinstance(value, dt.timedelta):
        return str(value), tabular.ValueKind.DATE
    text = str(value)
    return text, tabular.text_kind(text)


def quote_sheet(name: str) -> str:
    """A sheet name as Excel writes it in a reference: quoted when it is not a
    plain word."""
    if name.replace("_", "").isalnum() and not name[0].isdigit():
        return name
    return "'" + name.replace("'", "''") + "'"


def _kept(indexes: set[int]) -> list[int | None]:
    """The populated row (or column) numbers in order, with one ``None`` (a
    blank separator) wherever a gap was: as many blank rows as there were
    tell :func:`tabular.split_regions` what one blank row tells it."""
    out: list[int | None] = []
    for n in sorted(indexes):
        if out and out[-1] is not None and n != out[-1] + 1:
            out.append(None)
        out.append(n)
    return out


def sheet_grid(
    ws, settings: Settings, struck: frozenset[tuple[int, int]] = frozenset(), rich: bool = False
) -> tuple[tabular.Grid, list[int | None], list[int | None]]:
    """The sheet's used cells as a normalized grid, merges forward-filled, and
    for each grid row and column the sheet's row and column number (1-based,
    as Excel counts; ``None`` for a blank separator). Work and memory follow
    the populated cells, never the declared extent: rows and columns with no
    value (nor a merge over one) are collapsed, a run of them to one blank
    separator, so cells in A1 and XFD1048576 make a 3 × 3 grid, not 17
    billion positions. A sheet that still needs more than ``max_sheet_cells``
    positions (about 240 bytes each) is refused with the numbers, where a
    dense grid over the declared extent ran out of memory. A cell in
    ``struck`` (row, column) is written ``~~crossed out~~``
    (:func:`struck_cells`), and with ``rich`` (the workbook read with its
    rich text) a cell's struck runs (:func:`written_value`)."""
    max_cells = settings.max_sheet_cells
    values = {key: cell.value for key, cell in ws._cells.items() if cell.value is not None and str(cell.value).strip() != ""}
    if rich:
        from openpyxl.cell.rich_text import CellRichText

        values = {key: written_value(v) if isinstance(v, CellRichText) else v for key, v in values.items()}
    if not values:
        return [], [], []
    rows, cols = {r for r, _ in values}, {c for _, c in values}
    top, bottom, left, right = min(rows), max(rows), min(cols), max(cols)
    merges = []
    for merged in ws.merged_cells.ranges:
        if (merged.min_row, merged.min_col) not in values:
            continue
        r0, r1 = max(merged.min_row, top), min(merged.max_row, bottom)
        c0, c1 = max(merged.min_col, left), min(merged.max_col, right)
        if (r1 - r0 + 1) * (c1 - c0 + 1) > max_cells:
            raise DocumentRejected(_too_many(ws.title, (r1 - r0 + 1) * (c1 - c0 + 1), max_cells, "one merged range covers"))
        merges.append((merged.min_row, merged.min_col, r0, r1, c0, c1))
        rows.update(range(r0, r1 + 1))
        cols.update(range(c0, c1 + 1))
    row_numbers, col_numbers = _kept(rows), _kept(cols)
    if len(row_numbers) * len(col_numbers) > max_cells:
        raise DocumentRejected(_too_many(ws.title, len(row_numbers) * len(col_numbers), max_cells, "its populated rows × columns make"))
    row_at = {n: i for i, n in enumerate(row_numbers) if n is not None}
    col_at = {n: i for i, n in enumerate(col_numbers) if n is not None}
    grid: tabular.Grid = []
    for i, r in enumerate(row_numbers):
        line = []
        for j, c in enumerate(col_numbers):
            value = values.get((r, c)) if r is not None and c is not None else None
            text, kind = cell_text(value)
            text = " ".join(normalize_block(text, settings.normalization).split()) if text else ""
            if text and (r, c) in struck:
                text = written(marked_struck(text))
            line.append(tabular.Cell(text, (i, j), kind if text else tabular.ValueKind.EMPTY))
        grid.append(line)
    for origin_row, origin_col, r0, r1, c0, c1 in merges:
        source = grid[row_at[origin_row]][col_at[origin_col]]
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                grid[row_at[r]][col_at[c]] = source
    return grid, row_numbers, col_numbers


def _too_many(sheet: str, cells: int, limit: int, what: str) -> str:
    return (f"sheet '{sheet}': {what} {cells:,} cells, over the {limit:,} a sheet may have (max_sheet_cells) — "
            "split the sheet, remove stray cells far from the table, or raise max_sheet_cells in its collection.toml")


def _col_letter(col: int) -> str:
    from openpyxl.utils import get_column_letter

    return get_column_letter(col)


def _formulas_without_values(data: bytes) -> dict[str, list[str]]:
    """Per sheet, coordinates of formula cells with no cached result."""
    import openpyxl

    missing: dict[str, list[str]] = {}
    formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    cached = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        for ws in formulas.worksheets:
            values = cached[ws.title]
            for row, cached_row in zip(ws.iter_rows(), values.iter_rows()):
                for cell, cached_cell in zip(row, cached_row):
                    if getattr(cell, "data_type", None) == "f" and getattr(cached_cell, "value", None) is None:
                        missing.setdefault(ws.title, []).append(cell.coordinate)
    finally:
        formulas.close()
        cached.close()
    return missing


def hidden_rows_and_columns(ws, row_numbers: list[int | None], col_numbers: list[int | None]) -> str:
    """The rows and columns holding values that Excel does not show (hidden
    by hand, grouped and collapsed, or filtered out), said for a warning
    (``2 row(s) (5, 9) and 1 column(s) (D)``), or ``""``: read as data like
    the rest, a discontinued drug's hidden row reads as listed."""
    rows = [r for r in row_numbers if r is not None and (dim := ws.row_dimensions.get(r)) is not None and dim.hidden]
    hidden_cols = {c for dim in ws.column_dimensions.values() if dim.hidden for c in range(dim.min or 0, (dim.max or 0) + 1)}
    cols = [c for c in col_numbers if c is not None and c in hidden_cols]
    said = []
    if rows:
        said.append(f"{len(rows)} row(s) ({', '.join(map(str, rows[:10]))}{' …' if len(rows) > 10 else ''})")
    if cols:
        said.append(f"{len(cols)} column(s) ({', '.join(_col_letter(c) for c in cols[:10])}{' …' if len(cols) > 10 else ''})")
    return " and ".join(said)


def written_value(value) -> str:
    """A rich-text cell value (openpyxl's ``CellRichText``: runs of their own
    fonts, read only when a run may be struck) as its text with the struck
    runs written ``~~like this~~``: ``~~1.200~~ 1.100`` in one cell."""
    return written("".join(marked_struck(b.text) if _struck_run(b) else b if isinstance(b, str) else b.text for b in value))


def _struck_run(block) -> bool:
    """A run of a rich-text cell (a plain ``str``, or a ``TextBlock`` with
    its own font) is struck through."""
    return not isinstance(block, str) and block.font is not None and bool(block.font.strike)


def struck_cells(ws) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The cells with a value whose font is struck through (row, column),
    and the cells part of whose text is (a rich-text run struck), in reading
    order: a price or a dose crossed out and the new one beside it read as
    two values. Kept, written ``~~12.000~~``
    (:mod:`duocthu_assets.parse.inline_marks`), and named in a warning."""
    from openpyxl.cell.rich_text import CellRichText

    whole, part = [], []
    for key, cell in sorted(ws._cells.items()):
        value = cell.value
        if value is None or str(value).strip() == "":
            continue
        if isinstance(value, CellRichText):
            if any(_struck_run(b) for b in value):
                part.append(key)
        elif cell.has_style and cell.font.strike:
            whole.append(key)
    return whole, part


def shape_texts(zf, names: list[str]) -> list[str]:
    """The text of each shape drawn over a sheet (a text box, a callout:
    ``xdr:sp`` in the drawing parts ``names``), blanks left out: text set
    over the cells is no cell value, and openpyxl drops it."""
    out: list[str] = []
    for name in names:
        root = read_xml(zf, name)
        if root is None:
            continue
        for shape in root.iter(_XDR_SHAPE):
            text = " ".join(t.text.strip() for t in shape.iter(_A_TEXT) if t.text and t.text.strip())
            if text:
                out.append(text)
    return out


def cell_comments(ws) -> list[tuple[str, str]]:
    """The notes set on a sheet's cells (``A1``, the note's text, its
    author's name line dropped), in reading order: a reviewer's
    ``giảm liều khi Clcr < 30`` on a dose cell is no cell value and was
    dropped with nothing said. (Excel writes a threaded comment's text as
    a note too, for older readers.)"""
    out: list[tuple[str, str]] = []
    for row in ws.iter_rows():
        for cell in row:
            comment = cell.comment
            if comment is not None and comment.text and comment.text.strip():
                text = comment.text.strip()
                author = (comment.author or "").strip()
                if author and text.startswith(author + ":"):
                    text = text[len(author) + 1 :].strip()
                out.append((cell.coordinate, " ".join(text.split())))
    return out


def parse(data: bytes, settings: Settings) -> ParsedDocument:
    """Given an XLSX package, return one entry per non-empty sheet."""
    import openpyxl

    with open_package(data, settings) as zf:
        names = zf.namelist()
        has_comments = any(n.startswith("xl/comments") or n.startswith("xl/threadedComments/") for n in names)
        has_formulas = struck_runs = False
        for name in names:  # each sheet's XML read once, for both
            if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                xml = zf.read(name)
                has_formulas = has_formulas or bool(_FORMULA_TAG.search(xml))
                struck_runs = struck_runs or b"<strike" in xml  # a rich-text run of an inline string
        struck_runs = struck_runs or b"<strike" in (zf.read("xl/sharedStrings.xml") if "xl/sharedStrings.xml" in names else b"")
        has_struck = struck_runs or b"<strike" in (zf.read("xl/styles.xml") if "xl/styles.xml" in names else b"")
        shapes = shape_texts(zf, sorted(n for n in names if n.startswith("xl/drawings/drawing") and n.endswith(".xml")))
    try:
        # rich text (runs with fonts of their own) only when a run may be struck: else a cell's text is all
        wb = openpyxl.load_workbook(io.BytesIO(data), data_only=True, read_only=False, rich_text=struck_runs)
    except Exception as exc:  # openpyxl raises many types for a damaged package
        raise ParseFailed(f"Excel workbook could not be read ({type(exc).__name__}: {exc}) — re-save it from Excel") from exc
    warnings: list[str] = []
    units: list[tuple[SegmentKind, str, str, int]] = []
    for ws in wb.worksheets:
        struck, partly = struck_cells(ws) if has_struck else ([], [])
        grid, row_numbers, col_numbers = sheet_grid(ws, settings, frozenset(struck), struck_runs)
        if not grid:
            warnings.append(f"sheet '{ws.title}' is empty: skipped")
            continue
        name = quote_sheet(ws.title)
        title = " ".join(normalize_block(ws.title, settings.normalization).split()) or ws.title
        top, left = row_numbers[0], col_numbers[0]
        last = f"{_col_letter(col_numbers[-1])}{row_numbers[-1]}"
        units.append((SegmentKind.HEADING, title, f"{name}!{_col_letter(left)}{top}:{last}", 1))
        if ws.sheet_state != "visible":
            warnings.append(f"sheet '{ws.title}' is hidden in Excel; its content is included")
        hidden = hidden_rows_and_columns(ws, row_numbers, col_numbers)
        if hidden:
            warnings.append(f"sheet '{ws.title}': {hidden} hidden in Excel (hidden or filtered out); their content is included")
        if struck or partly:
            r, c = min(struck + partly)
            warnings.append(
                f"sheet '{ws.title}': {len(struck) + len(partly)} cell(s) struck through, {len(partly)} of them in part "
                f"(shown crossed out: deleted, not in force) kept and marked ~~like this~~, the first on "
                f"{_col_letter(c)}{r}: {(written_value(ws.cell(r, c).value) if (r, c) in partly else str(ws.cell(r, c).value))[:160]!r}"
            )
        if has_comments:
            noted = cell_comments(ws)
            if noted:
                ref, text = noted[0]
                warnings.append(
                    f"sheet '{ws.title}': {len(noted)} cell comment(s) not read (a note on a cell is not its value; "
                    f"a reader sees it on hovering), the first on {ref}: {text[:160]!r}"
                )
        for reading in tabular.read_tables(grid, tabular.split_regions(grid)):
            for row in reading.rows:
                ref = f"{name}!{_col_letter(col_numbers[row.col])}{row_numbers[row.row]}"
                units.append((SegmentKind.PARAGRAPH if row.banner else SegmentKind.TABLE_ROW, row.text, ref, 0))
    for chart in getattr(wb, "chartsheets", []):
        warnings.append(f"chart sheet '{chart.title}' not extracted (charts are not text)")
    charts = sum(1 for n in names if n.startswith("xl/charts/chart") and n.endswith(".xml"))
    images = sum(1 for n in names if n.startswith("xl/media/"))
    if charts or images:
        warnings.append(f"{charts} charts and {images} images not extracted (only cell values are read)")
    if shapes:
        warnings.append(
            f"{len(shapes)} text box(es) or shape(s) with text drawn over the sheets not read (text set over the cells "
            f"is no cell value), the first: {shapes[0][:160]!r} — if it is content, type it into a cell"
        )
    page_count = len(wb.worksheets)
    wb.close()
    if not units:
        raise DocumentRejected(
            f"the workbook has no data: its {page_count} sheet(s) have no cell with a value — nothing to index"
        )
    try:
        missing = _formulas_without_values(data) if has_formulas else {}
    except Exception:  # the main read succeeded; this check is best effort
        missing = {}
    for sheet, cells in missing.items():
        shown = ", ".join(cells[:5]) + (" …" if len(cells) > 5 else "")
        warnings.append(
            f"sheet '{sheet}': {len(cells)} formula cells have no saved result ({shown}) and read as empty — "
            "open the file in Excel or LibreOffice and save it to store the results"
        )
    segments = [
        Segment(segment_id=f"s{n:05d}", kind=kind, text=text, level=level, source_ref=ref)
        for n, (kind, text, ref, level) in enumerate(units, start=1)
    ]
    return ParsedDocument(segments=segments, page_count=page_count, warnings=warnings)
