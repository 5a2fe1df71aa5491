"""Pure parsers: bytes in, the canonical document out. No Dagster here.

:func:`parse_document` dispatches on the detected format; each format module
exposes ``parse(data: bytes, settings: Settings) -> ParsedDocument`` whose
segments carry kind, level, text, page and source reference. This module then
assigns heading trails, entries and sections (``structure``), places blocks
in their sections, and assembles the canonical text (``canonical``).
"""

from __future__ import annotations

import importlib
import sys

from .. import progress
from ..model import Format, ParsedDocument
from ..settings import Settings
from .canonical import assemble
from .errors import DocumentRejected, ParseFailed
from .structure import assign_sections, place_blocks

PARSER_MODULES: dict[Format, str] = {
    Format.PDF: "duocthu_assets.parse.pdf.reader",
    Format.DOCX: "duocthu_assets.parse.office.word",
    Format.XLSX: "duocthu_assets.parse.office.sheet",
    Format.CSV: "duocthu_assets.parse.office.delimited",
}

def ocr_progress(done: int, total: int, rate: float, left: float) -> None:
    """OCR's progress on stderr, where ``duocthu ingest`` shows progress."""
    if progress.enabled() and (done == total or done % max(1, total // 20) == 0):
        print(f"  [ocr] {done}/{total} pages, {rate:.2f} pages/s, {left:.0f} s left", file=sys.stderr, flush=True)


__all__ = ["parse_document", "DocumentRejected", "ParseFailed", "PARSER_MODULES"]


def parse_document(data: bytes, fmt: Format, settings: Settings, ocr_cache: str | None = None) -> ParsedDocument:
    """The document parsed by its format's reader; a PDF's scanned pages
    read by OCR, cached in the folder ``ocr_cache`` when given."""
    module_name = PARSER_MODULES.get(fmt)
    if module_name is None:
        raise DocumentRejected(f"no parser for format {fmt.value}")
    parser = importlib.import_module(module_name)
    if fmt is Format.PDF:  # the PDF stage's own settings, nested in the document's
        parsed: ParsedDocument = parser.parse(data, settings, settings.pdf, ocr_cache=ocr_cache, progress=ocr_progress)
    else:
        parsed = parser.parse(data, settings)
    segments = assign_sections(parsed.segments)
    canonical, segments = assemble(segments)
    parsed.segments = segments
    parsed.blocks = place_blocks(parsed.blocks, segments)
    parsed.canonical_text = canonical
    return parsed
