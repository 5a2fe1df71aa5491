"""Detect a document's format from its bytes, never from its name.

Returns a :class:`Format` and, for refused formats, the reason a user can act
on. OOXML packages are told apart by their ``[Content_Types].xml`` main part;
OLE2 compound files by the stream names in their directory (an encrypted OOXML
file is an OLE2 container holding ``EncryptionInfo``).
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib

from .model import Format

PDF_MAGIC = b"%PDF-"
ZIP_MAGIC = b"PK\x03\x04"
OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

REFUSAL_REASONS: dict[Format, str] = {
    Format.DOC: "unsupported format: legacy Word .doc — open it in Word or LibreOffice and save as .docx",
    Format.XLS: "unsupported format: legacy Excel .xls — open it in Excel or LibreOffice and save as .xlsx",
    Format.OLE2: "unsupported format: legacy Office (OLE2) file — save it in a current format (.docx, .xlsx)",
    Format.ENCRYPTED_OOXML: "password-protected Office file — remove the password (File > Info > Protect) and save again",
    Format.PPTX: "unsupported format: PowerPoint — export it to PDF",
    Format.ZIP: "unsupported format: a zip archive that is not a Word or Excel document — unpack it and ingest its files",
    Format.EMPTY: "empty file (0 bytes) — the upload or copy did not finish; add the file again",
    Format.UNKNOWN: "unsupported format: not a PDF, DOCX, XLSX or CSV file (detected from its content)",
}

_OOXML_MAIN_TYPES = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml": Format.DOCX,
    "application/vnd.ms-word.document.macroEnabled.main+xml": Format.DOCX,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml": Format.DOCX,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml": Format.XLSX,
    "application/vnd.ms-excel.sheet.macroEnabled.main+xml": Format.XLSX,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml": Format.XLSX,
    "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml": Format.PPTX,
}


# A VBA project's content type, the macro-enabled main document types, and the
# relationship type that points at a VBA project part.
_MACRO_MARKERS = (
    b"application/vnd.ms-office.vbaProject",
    b"macroEnabled.main+xml",
    b"/relationships/vbaProject",
)

# Folders of the part names a package's local file headers carry in clear:
# enough to tell a damaged (truncated) DOCX/XLSX/PPTX from a zip archive when
# the central directory is gone.
_DAMAGED_OOXML_FOLDERS = (("word/", Format.DOCX), ("xl/", Format.XLSX), ("ppt/", Format.PPTX))
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature ... name length, extra length

UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
UTF16_REASON = (
    "unsupported encoding: UTF-16 text (what Excel's 'Unicode text' export writes) — "
    "save it as 'CSV UTF-8 (comma delimited)' and add it again"
)


MARKUP_REASON = (
    "unsupported format: {what}, not a CSV table — export the table as CSV or XLSX, or the document as PDF or DOCX"
)
_MARKUP_START = re.compile(rb"<(\?xml|!doctype|!--|[a-z][\w:.-]*[\s/>])", re.IGNORECASE)


def structured_text(data: bytes) -> str | None:
    """What a text file is when it is not a table of values: ``"XML or HTML
    markup"`` (it opens with a tag, a declaration or a comment) or
    ``"JSON"`` (it is an object or array, as a whole); None otherwise. Read
    as a CSV, such a file was cut at its commas into rows of tag fragments
    (an ICDAR ground-truth XML: 2,336 chunks of them) and ingested ok."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if _MARKUP_START.match(head):
        return "XML or HTML markup"
    if head[:1] in (b"{", b"["):
        try:
            value = json.loads(data)
        except ValueError:  # a CSV whose first field opens with a bracket
            return None
        if isinstance(value, (dict, list)):
            return "JSON"
    return None


def detect_format(data: bytes) -> Format:
    if not data:
        return Format.EMPTY
    head = data[:1024]
    if PDF_MAGIC in head:
        return Format.PDF
    if data.startswith(ZIP_MAGIC):
        return _detect_ooxml(data)
    if data.startswith(OLE2_MAGIC):
        return _detect_ole2(data)
    if _looks_like_text(data[:65536]) or _looks_like_utf16_text(data[:65536]):
        return Format.UNKNOWN if structured_text(data) else Format.CSV
    return Format.UNKNOWN


def refusal_reason(fmt: Format, data: bytes = b"") -> str | None:
    """What to tell the user about a refused format (None: not refused); with
    the file's bytes, an unknown format that is UTF-16 text, markup or JSON
    says so."""
    if fmt is Format.UNKNOWN and data.startswith(UTF16_BOMS):
        return UTF16_REASON
    what = structured_text(data) if fmt is Format.UNKNOWN and data else None
    if what:
        return MARKUP_REASON.format(what=what)
    return REFUSAL_REASONS.get(fmt)


def is_macro_enabled(data: bytes) -> bool:
    """True for .docm/.xlsm packages: a VBA project part, found by its name
    (vbaProject.bin), its content type or its relationship — Office finds it
    by the last two, so a renamed part is still a macro."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = zf.namelist()
            if any(name.lower().endswith("vbaproject.bin") for name in names):
                return True
            for name in names:
                if name == "[Content_Types].xml" or name.endswith(".rels"):
                    info = zf.getinfo(name)
                    if info.file_size <= 4 * 1024 * 1024 and any(m in zf.read(info) for m in _MACRO_MARKERS):
                        return True
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, EOFError, zlib.error):
        return False
    return False


def _detect_ooxml(data: bytes) -> Format:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
            if "[Content_Types].xml" not in names:
                return Format.ZIP
            info = zf.getinfo("[Content_Types].xml")
            if info.file_size > 4 * 1024 * 1024:
                return Format.ZIP
            content_types = zf.read("[Content_Types].xml").decode("utf-8", "replace")
    except (zipfile.BadZipFile, OSError, ValueError):
        # no readable central directory: a truncated download of an Office
        # file still names its parts in its local headers; the parser then
        # fails it as a damaged document (not "a zip archive")
        return _detect_damaged_ooxml(data)
    for content_type, fmt in _OOXML_MAIN_TYPES.items():
        if content_type in content_types:
            return fmt
    if "word/document.xml" in names:
        return Format.DOCX
    if "xl/workbook.xml" in names:
        return Format.XLSX
    return Format.ZIP


def _detect_damaged_ooxml(data: bytes) -> Format:
    """DOCX/XLSX/PPTX when the local headers of a zip with no readable central
    directory name a part of that kind (``word/``, ``xl/``, ``ppt/``), else ZIP."""
    names: list[str] = []
    position = data.find(ZIP_MAGIC)
    while position != -1 and position + _LOCAL_HEADER.size <= len(data) and len(names) < 10_000:
        _, name_length, _ = _LOCAL_HEADER.unpack_from(data, position)
        start = position + _LOCAL_HEADER.size
        names.append(data[start : start + name_length].decode("utf-8", "replace"))
        position = data.find(ZIP_MAGIC, start)
    for name in names:
        for folder, fmt in _DAMAGED_OOXML_FOLDERS:
            if name.startswith(folder):
                return fmt
    return Format.ZIP


def _detect_ole2(data: bytes) -> Format:
    # Stream names in the OLE2 directory are UTF-16LE; a scan is enough to tell
    # Word, Excel and an encrypted OOXML package apart without an OLE parser.
    def has(name: str) -> bool:
        return name.encode("utf-16-le") in data

    if has("EncryptionInfo") or has("EncryptedPackage"):
        return Format.ENCRYPTED_OOXML
    if has("WordDocument"):
        return Format.DOC
    if has("Workbook") or has("Book"):
        return Format.XLS
    return Format.OLE2


def _looks_like_text(sample: bytes) -> bool:
    if b"\x00" in sample:
        # UTF-16 text has NULs: only read when a byte-order mark says so (below)
        return False
    control = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return control <= max(1, len(sample) // 200)


def _looks_like_utf16_text(sample: bytes) -> bool:
    """UTF-16 text announced by its byte-order mark (Excel's "Unicode text"
    export, other tools' UTF-16 CSVs): the BOM names the byte order, so
    nothing is guessed; the decoded sample must still look like text."""
    for bom, encoding in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if sample.startswith(bom):
            body = sample[len(bom) :]
            body = body[: len(body) - len(body) % 2]
            text = body.decode(encoding, errors="ignore")  # a sample may end inside a surrogate pair
            control = sum(1 for ch in text if ord(ch) < 9 or 13 < ord(ch) < 32)
            return bool(text) and control <= max(1, len(text) // 200)
    return False
