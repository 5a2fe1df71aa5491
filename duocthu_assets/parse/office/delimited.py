"""CSV → segments (ADR 0018 §4, §6) with the standard library's csv module.

Decoding never replaces a byte: UTF-8 (a BOM is dropped), UTF-16 when a
byte-order mark says so (FF FE little-endian, FE FF big-endian), else the
collection's ``csv_encoding``, else the encoding charset-normalizer detects,
which is named in a warning so a wrong guess is visible (set ``csv_encoding``
in ``collection.toml`` to override it). The dialect is sniffed from the first
64 KiB (delimiters , ; tab |), quoted fields may hold newlines, and a quote
left open to the end of the file is an error, not one giant field. The
document is the entry (no heading); tables separated by blank lines are read
as in a sheet, each row one TABLE_ROW (``csv:row7`` is the 7th record, as a
spreadsheet program numbers it). Ragged rows keep every field. ``page_count``
is 1.
"""

from __future__ import annotations

import codecs
import csv
import io

from ...model import ParsedDocument, Segment, SegmentKind
from ...settings import Settings
from ...textnorm import normalize_block
from . import tabular
from ..errors import DocumentRejected, ParseFailed

SNIFF_BYTES = 64 * 1024
DELIMITERS = ",;\t|"
LEGACY_ENCODINGS = ["cp1256", "cp1252", "cp1258", "cp1250", "cp1251", "cp1253", "cp1254", "cp1255", "cp1257", "iso8859_6"]
UTF16_BOMS = [
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 little-endian (with BOM)"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 big-endian (with BOM)"),
]
LEGACY_ORDER = [codecs.lookup(name).name for name in LEGACY_ENCODINGS]


def decode(data: bytes, settings: Settings) -> tuple[str, str | None]:
    """The text and, when the encoding was not UTF-8, a warning naming it."""
    if data.startswith(codecs.BOM_UTF8):
        return _strict(data[len(codecs.BOM_UTF8) :], "utf-8", "UTF-8 (with BOM)"), None
    for bom, encoding, described in UTF16_BOMS:
        if data.startswith(bom):  # the BOM names the encoding: nothing is guessed
            return _strict(data[len(bom) :], encoding, described), None
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    if settings.csv_encoding:
        text = _strict(data, settings.csv_encoding, f"{settings.csv_encoding} (csv_encoding of the collection)")
        return text, f"decoded as {settings.csv_encoding} (csv_encoding of the collection)"
    encoding, languages = detect_encoding(data)
    text = _strict(data, encoding, f"{encoding} (detected)")
    return text, (
        f"not UTF-8: decoded as {encoding} (detected; languages: {languages or 'unknown'}) — "
        "if the text looks wrong, set csv_encoding in collection.toml"
    )


def detect_encoding(data: bytes) -> tuple[str, str]:
    """The legacy encoding charset-normalizer finds most plausible, among the
    Windows code pages office files are saved in. Ties (a short file whose few
    non-ASCII bytes read cleanly in several) go to the earlier code page in
    :data:`LEGACY_ENCODINGS`: Windows-1256 first, as it is what Persian Excel
    exports and it keeps Western European accented letters where Latin-1 has them."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data, cp_isolation=LEGACY_ENCODINGS)) or list(from_bytes(data))
    if not matches:
        raise ParseFailed(
            "CSV is not UTF-8 and its encoding could not be detected — save it as UTF-8, "
            "or set csv_encoding in the collection's collection.toml"
        )

    def rank(match) -> tuple[float, float, int]:
        enc = codecs.lookup(match.encoding).name
        order = LEGACY_ORDER.index(enc) if enc in LEGACY_ORDER else len(LEGACY_ORDER)
        return (round(match.chaos, 3), -round(match.coherence, 3), order)

    best = min(matches, key=rank)
    return best.encoding, ", ".join(best.languages)


def _strict(data: bytes, encoding: str, described: str) -> str:
    try:
        text = data.decode(encoding)  # errors="strict": a bad byte fails loudly
    except LookupError as exc:
        raise DocumentRejected(f"unknown csv_encoding {encoding!r} — fix csv_encoding in collection.toml") from exc
    except UnicodeDecodeError as exc:
        raise ParseFailed(
            f"CSV is not valid {described}: byte {data[exc.start]:#04x} at offset {exc.start} — "
            "save it as UTF-8 or set the right csv_encoding in collection.toml"
        ) from exc
    return text[1:] if text.startswith("\ufeff") else text


def sniff(text: str) -> type[csv.Dialect] | csv.Dialect:
    """The file's dialect from a sample cut at a line end; excel (comma) when the
    sample has no consistent delimiter (a one-column file)."""
    sample = text[:SNIFF_BYTES]
    if len(text) > SNIFF_BYTES and "\n" in sample:
        sample = sample[: sample.rindex("\n") + 1]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=DELIMITERS)
    except csv.Error:
        return csv.excel
    dialect.doublequote = True  # the Sniffer guesses this from few quotes; RFC 4180 says doubled quotes
    return dialect


def read_records(text: str, dialect, settings: Settings) -> tuple[list[list[str]], list[str]]:
    """Every record, with any repair named in a warning. A field over
    ``max_csv_field_bytes`` characters, or a quote never closed, fails; so
    does a table whose rows × columns pass ``max_sheet_cells`` (as a sheet's
    do), found while reading, before any cell is normalized or laid out."""
    warnings: list[str] = []
    previous_limit = csv.field_size_limit()
    csv.field_size_limit(settings.max_csv_field_bytes)
    try:
        try:
            return _records(text, dialect, strict=True, max_cells=settings.max_sheet_cells), warnings
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                raise DocumentRejected(
                    f"CSV has a field over {settings.max_csv_field_bytes:,} characters (max_csv_field_bytes) — "
                    "often an unbalanced quote that swallowed the rest of the file; check the quoting"
                ) from exc
            if "unexpected end of data" in str(exc) or "EOF" in str(exc):
                raise ParseFailed(
                    "CSV has a quote that is never closed, so the rest of the file would read as one field — "
                    "fix the quoting and add the file again"
                ) from exc
            line = _error_line(text, dialect)
            warnings.append(f"CSV quoting is malformed near line {line} ({exc}); read leniently: check that row")
            return _records(text, dialect, strict=False, max_cells=settings.max_sheet_cells), warnings
    finally:
        csv.field_size_limit(previous_limit)


def _records(text: str, dialect, strict: bool, max_cells: int) -> list[list[str]]:
    records: list[list[str]] = []
    widest = 0
    for record in csv.reader(io.StringIO(text, newline=""), dialect=dialect, strict=strict):
        records.append(record)
        widest = max(widest, len(record))
        if len(records) * widest > max_cells:  # the grid every row is padded to
            raise DocumentRejected(
                f"CSV of at least {len(records):,} rows × {widest:,} columns = {len(records) * widest:,} cells, over the "
                f"{max_cells:,} a table may have (max_sheet_cells) — split the file, check its delimiter and line "
                "endings, or raise max_sheet_cells in its collection.toml"
            )
    return records


def _error_line(text: str, dialect) -> int:
    reader = csv.reader(io.StringIO(text, newline=""), dialect=dialect, strict=True)
    try:
        for _ in reader:
            pass
    except csv.Error:
        return reader.line_num
    return 0


def parse(data: bytes, settings: Settings) -> ParsedDocument:
    """Given CSV bytes, return one TABLE_ROW per record (banners as paragraphs)."""
    text, encoding_note = decode(data, settings)
    dialect = sniff(text)
    records, warnings = read_records(text, dialect, settings)
    if encoding_note:
        warnings.insert(0, encoding_note)
    rows = []
    for r, record in enumerate(records):
        cells = []
        for c, value in enumerate(record):
            value = " ".join(normalize_block(value, settings.normalization).split())
            cells.append(tabular.text_cell(value, r, c))
        rows.append(cells)
    grid = tabular.pad_grid(rows)
    segments: list[Segment] = []
    if grid and grid[0]:
        for reading in tabular.read_tables(grid, tabular.split_regions(grid, cut_columns=False)):
            for row in reading.rows:
                kind = SegmentKind.PARAGRAPH if row.banner else SegmentKind.TABLE_ROW
                segments.append(
                    Segment(segment_id=f"s{len(segments) + 1:05d}", kind=kind, text=row.text, source_ref=f"csv:row{row.row + 1}")
                )
    return ParsedDocument(segments=segments, page_count=1, warnings=warnings)
