"""PDF → segments and lifted blocks (ADR 0006): :class:`PdfReader` runs the
steps in order over the pages and keeps each one's result.

    read_pages           every page read (read/page.py), its annotations, the PDF's labels
    detect_furniture     running headers/footers, printed page numbers  (furniture/)
    layout_page          blocks lifted, the rest in reading order        (layout/page.py, blocks/)
    with_paragraphs      paragraphs, once the document's line spacing is known
    assemble             headings, segment ids, block ids, anchors, continued tables (assemble.py)
    account_page         where every character of each page went       (accounting.py)
    page_warnings        what was left out or read doubtfully           (warnings.py)

Pages without a usable text layer are read by OCR (read/ocr_pages.py,
read/scan_page.py) and laid out again, unless the collection turns OCR off;
those OCR cannot read, and all of them when OCR is off or not installed, are
reported in ``pages_needing_ocr``. Encrypted files that need a password are refused with
:class:`..errors.DocumentRejected`; unreadable ones fail with :class:`ParseFailed`.
"""

from __future__ import annotations

import dataclasses
import time
from typing import NamedTuple

from ...model import Furniture, OcrProvenance, PageAccount, ParsedDocument
from ...settings import Settings
from ...settings.pdf import PdfSettings, resolve_pdf_settings
from ..errors import ParseFailed
from .accounting import account_page
from .assemble import assemble
from .engine import open_pdf, take_stream_errors
from .furniture.detect import detect_furniture
from .furniture.labels import own_page_labels
from .layout.paragraphs import line_gaps, typical_line_gap
from .layout.page import layout_page, with_paragraphs
from .read.annotations import embedded_files, page_annotations
from .read.page import body_font_size, read_page
from .read.pictures import repeated_images
from .read.ocr import tesseract_available
from .read.ocr_pages import OcrCache, Progress, read_scans
from .read.scan_page import scan_content
from .records import PageContent
from .warnings import (
    annotation_comments,
    ocr_missing,
    ocr_read,
    attached_files,
    page_warnings,
    recovered_stream,
    strike_out_annotations,
)


class ReadPages(NamedTuple):
    """What one pass over an open PDF gives: every page's content, the page
    count, the PDF's own page labels (None when it declares none) and the
    warnings written while reading."""

    pages: list[PageContent]
    page_count: int
    own_labels: list[str] | None
    warnings: list[str]


def read_pages(data: bytes, settings: PdfSettings) -> ReadPages:
    """Every page of the PDF read, with its annotations (file attachments,
    comments, strike-outs) read while the page is open; images repeated on
    several pages (a letterhead, a banner) dropped as decoration. Raises
    :class:`ParseFailed` on a page that cannot be read, content streams that
    lose text, or a repaired file with nothing left on any page."""
    doc = open_pdf(data)
    try:
        pages: list[PageContent] = []
        damaged: list[str] = []
        warnings: list[str] = []
        attachments: list[str] = []  # the pages' file-attachment annotations, read while each page is open
        comments: dict[int, list[str]] = {}  # page → its annotations' comments
        struck: dict[int, int] = {}  # page → its strike-out annotations
        annotations_readable = True  # until one page's annotations fail to read: the pages after it are not asked
        for page in doc:
            try:
                content = read_page(page, settings)
            except Exception as exc:  # noqa: BLE001 - MuPDF errors are plain exceptions
                raise ParseFailed(f"page {page.number + 1} cannot be read: {exc}") from exc
            errors, notes = take_stream_errors()
            if errors:
                damaged.append(f"page {page.number + 1}: {errors[0]}")
            if notes:
                warnings.append(recovered_stream(page.number + 1, notes[0]))
            pages.append(content)
            if annotations_readable:
                found = page_annotations(page)
                attachments += found.attachments
                annotations_readable = found.readable
                if found.comments:
                    comments[page.number + 1] = found.comments
                if found.struck:
                    struck[page.number + 1] = found.struck
                take_stream_errors()  # what reading annotations made MuPDF say is not the next page's
        page_count = doc.page_count
        repaired = bool(getattr(doc, "is_repaired", False))
        said = (attached_files(embedded_files(doc, attachments)), annotation_comments(comments), strike_out_annotations(struck))
        warnings += [w for w in said if w]
        own_labels = own_page_labels(doc)
    finally:
        doc.close()
    if damaged:
        raise ParseFailed("damaged PDF: content streams cannot be read, text is missing — " + "; ".join(damaged[:5]) + " — the file's bytes are kept; repair or re-export the file")
    if repaired and not any(p.words for p in pages) and not any(p.image_cover for p in pages):
        raise ParseFailed(
            "damaged PDF: it had to be repaired (truncated or corrupt) and no page has any text or image left "
            "— download or export the file again"
        )
    return ReadPages(without_decoration(pages), page_count, own_labels, warnings)


def without_decoration(pages: list[PageContent]) -> list[PageContent]:
    """The pages without the pictures of an image drawn on several of them
    (a letterhead, a banner): the pages' decoration, not their content."""
    decoration = repeated_images([p.pictures for p in pages])
    if not decoration:
        return pages
    return [dataclasses.replace(p, pictures=tuple(x for x in p.pictures if not (x.images and x.images <= decoration))) for p in pages]


class PdfReader:
    """One PDF read through every step, each step's result kept (the way
    pdfplumber's ``TableFinder`` keeps its edges, intersections and cells),
    so a test, the bench or a debug view can look at any of them:

    ``pages``            each page's :class:`PageContent`, decoration dropped
    ``furniture``        each page's running headers, footers, printed page number
    ``layouts``          each page's :class:`.layout.page.PageLayout`: blocks lifted, paragraphs in reading order
    ``segments``         the prose, as the parse's segments
    ``blocks``           the lifted tables, formulas and pictures
    ``accounts``         each page's :class:`PageAccount`; ``recorded`` the furniture recorded
    ``warnings``         every warning, in the order the steps wrote them
    ``pages_needing_ocr``  the pages without a text layer worth the name

    Constructing it runs the steps (errors as :func:`parse` raises them);
    :attr:`document` is the parse's :class:`ParsedDocument`.
    """

    def __init__(self, data: bytes, settings: Settings, pdf_settings: PdfSettings | dict | None = None,
                 ocr_cache: OcrCache | None = None, progress: Progress | None = None):
        self.settings = settings
        self.pdf_settings = ps = resolve_pdf_settings(pdf_settings)
        started = time.perf_counter()
        read = read_pages(data, ps)
        self.read_seconds = time.perf_counter() - started
        self.pages = read.pages
        self.page_count = read.page_count
        self.own_labels = read.own_labels
        self.ocr: OcrProvenance | None = None
        ocr_warnings: list[str] = []
        laid_out = self.lay_out()
        needing = [lay.page_no for lay in laid_out if lay.needs_ocr]
        if needing and ps.ocr and not tesseract_available():
            ocr_warnings.append(ocr_missing(needing))
        elif needing and ps.ocr:
            started = time.perf_counter()
            scans = read_scans(data, needing, ps, ocr_cache, progress)
            self.ocr_seconds = time.perf_counter() - started
            self.pages = [scan_content(p, scans[p.page_no], ps) if p.page_no in scans else p for p in self.pages]
            laid_out = self.lay_out()
            some = next(iter(scans.values())).ocr
            self.ocr = OcrProvenance(some.engine, some.version, some.languages, some.dpi, tuple(needing))
            ocr_warnings += ocr_read(self.pages, ps)
        self.line_gap = typical_line_gap([g for lay in laid_out for g in line_gaps(list(lay.leaves), self.body_size)], self.body_size)
        self.layouts = [with_paragraphs(lay, ps, self.line_gap) for lay in laid_out]
        self.segments, self.blocks = assemble(self.layouts, settings, ps, self.body_size)
        self.accounts, self.recorded = self.account()
        self.warnings = read.warnings + page_warnings(self.pages, ps) + ocr_warnings

    ocr_seconds = 0.0

    def lay_out(self) -> list:
        """The pages' furniture found and each page laid out (run again once
        the scanned pages are read)."""
        ps = self.pdf_settings
        self.body_size = body_font_size(self.pages)
        self.furniture = detect_furniture(self.pages, ps, self.body_size, self.own_labels)
        started = time.perf_counter()
        laid_out = [layout_page(p, f, ps, self.body_size) for p, f in zip(self.pages, self.furniture)]
        self.layout_seconds = time.perf_counter() - started
        return laid_out

    def account(self) -> tuple[list[PageAccount], list[Furniture]]:
        """Each page's account, and the furniture recorded on all of them."""
        accounts: list[PageAccount] = []
        recorded: list[Furniture] = []
        for content, fur, lay in zip(self.pages, self.furniture, self.layouts):
            account, lines = account_page(content, fur, lay)
            accounts.append(account)
            recorded += lines
        return accounts, recorded

    @property
    def pages_needing_ocr(self) -> list[int]:
        return [lay.page_no for lay in self.layouts if lay.needs_ocr]

    @property
    def page_labels(self) -> list[str]:
        """The printed label of each physical page ("" when none)."""
        return [f.printed_label for f in self.furniture]

    @property
    def document(self) -> ParsedDocument:
        return ParsedDocument(
            segments=list(self.segments),
            blocks=list(self.blocks),
            page_count=self.page_count,
            pages_needing_ocr=self.pages_needing_ocr,
            warnings=list(self.warnings),
            furniture=list(self.recorded),
            page_accounts=list(self.accounts),
            page_labels=self.page_labels,
            ocr=self.ocr,
        )

    def stats(self) -> dict:
        """What ran where and how long, for the bench: pages scanned by the
        rule-based finders, column regions scanned for borderless tables,
        seconds per stage."""
        leaves = [leaf for lay in self.layouts for leaf in lay.leaves]
        rule_seconds = sum(lay.rule_seconds for lay in self.layouts)
        return dict(
            pages=len(self.layouts),
            pages_rule_finders=sum(lay.rule_scan for lay in self.layouts),
            pages_with_blocks=len({b.page_no for b in self.blocks}),
            column_regions=len(leaves),
            column_regions_borderless_finder=sum(leaf.scanned for leaf in leaves),
            seconds_read=self.read_seconds,
            seconds_rule_finders=rule_seconds,
            seconds_layout_and_borderless=self.layout_seconds - rule_seconds,
            pages_ocr=len(self.ocr.pages) if self.ocr else 0,
            seconds_ocr=self.ocr_seconds,
        )


def parse(data: bytes, settings: Settings, pdf_settings: PdfSettings | dict | None = None, stats: dict | None = None,
          ocr_cache: str | None = None, progress: Progress | None = None) -> ParsedDocument:
    """The PDF's segments, lifted blocks, furniture, page accounts and
    warnings (:class:`PdfReader`); its scanned pages read by OCR, cached in
    the folder ``ocr_cache`` when given. ``stats``, when given, receives what ran
    where and how long (for the bench: :meth:`PdfReader.stats`)."""
    reader = PdfReader(data, settings, pdf_settings, OcrCache(ocr_cache), progress)
    if stats is not None:
        stats.update(reader.stats())
    return reader.document
