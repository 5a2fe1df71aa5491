"""A document's first lines and own properties, read cheaply before it is parsed.

``raw_documents`` needs to know who a document is and whether it reads as a
law before the parser runs (the profile decides how it is parsed), so this
reads only the head of the file: a PDF's first pages as PyMuPDF's plain text,
a DOCX's first body paragraphs (table cells included, line breaks kept), and
the title property of each. What it cannot read it leaves empty: the parser,
not this, reports a damaged file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Format
from ..settings import Settings

PREVIEW_PAGES = 3  # a law's header, type line and first articles fit in its first pages
PREVIEW_PARAGRAPHS = 250
PREVIEW_CHARS = 40_000
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
CORE_MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class Preview:
    lines: tuple[str, ...] = ()  # paragraphs or text lines, in reading order
    properties: dict[str, str] = field(default_factory=dict)  # {"title": ...} when the file has one
    pages: int = 0  # pages read (PDF), 0 for a DOCX


def read_preview(data: bytes, fmt: Format, settings: Settings) -> Preview:
    """The head of a PDF or DOCX; an empty preview for other formats or a
    file that cannot be opened."""
    try:
        if fmt is Format.PDF:
            return _pdf_preview(data)
        if fmt is Format.DOCX:
            return _docx_preview(data, settings)
    except Exception:  # noqa: BLE001 - the parser reports a damaged file with its reason
        return Preview()
    return Preview()


def _pdf_preview(data: bytes) -> Preview:
    from .pdf.engine import open_pdf

    doc = open_pdf(data)
    try:
        lines: list[str] = []
        size = 0
        pages = min(doc.page_count, PREVIEW_PAGES)
        for page_no in range(pages):
            for line in doc[page_no].get_text("text").splitlines():
                if line.strip():
                    lines.append(line)
                    size += len(line)
            if size > PREVIEW_CHARS:
                break
        title = (doc.metadata or {}).get("title") or ""
    finally:
        doc.close()
    return Preview(tuple(lines), {"title": title.strip()} if title.strip() else {}, pages)


def _docx_preview(data: bytes, settings: Settings) -> Preview:
    """The first body paragraphs, read as a stream and stopped early: the
    whole package is checked by the parser (ooxml_safety) later; here only
    the two parts read are bounded, and their XML parsed with no entity
    resolved and no DTD loaded."""
    import io
    import zipfile

    from lxml import etree

    lines: list[str] = []
    title = ""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        main = "word/document.xml"
        if main in names and zf.getinfo(main).file_size <= settings.max_uncompressed_bytes:
            with zf.open(main) as fh:
                lines = _paragraphs(etree.iterparse(fh, events=("end",), tag=f"{_W}p", resolve_entities=False,
                                                    load_dtd=False, no_network=True, huge_tree=False))
        core = "docProps/core.xml"
        if core in names and zf.getinfo(core).file_size <= CORE_MAX_BYTES:
            root = etree.fromstring(zf.read(core), etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True))
            node = root.find(_DC_TITLE)
            title = (node.text or "").strip() if node is not None else ""
    return Preview(tuple(lines), {"title": title} if title else {})


def _paragraphs(events) -> list[str]:
    lines: list[str] = []
    size = 0
    for _, p in events:
        if p.find(f".//{_W}p") is not None:
            continue  # a paragraph holding others (a text box): its own paragraphs were read
        parts: list[str] = []
        for node in p.iter(f"{_W}t", f"{_W}br", f"{_W}cr", f"{_W}tab"):
            if node.tag == f"{_W}t":
                parts.append(node.text or "")
            else:
                parts.append("\t" if node.tag == f"{_W}tab" else "\n")
        text = "".join(parts)
        if text.strip():
            lines.append(text)
            size += len(text)
        if len(lines) >= PREVIEW_PARAGRAPHS or size > PREVIEW_CHARS:
            break
    return lines
