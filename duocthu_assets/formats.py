"""Detect a document's format from its bytes, never from its name.

Returns a :class:`Format` and, for refused formats, the reason a user can act
on. OOXML packages are told apart by their ``[Content_Types].xml`` main part;
OLE2 compound files by the stream names in their directory (an encrypted OOXML
file is an OLE2 container holding ``EncryptionInfo``).
"""

from __future__ import annotations

import io
import zipfile

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
    if _looks_like_text(data[:65536]):
        return Format.CSV
    return Format.UNKNOWN


def refusal_reason(fmt: Format) -> str | None:
    return REFUSAL_REASONS.get(fmt)


def is_macro_enabled(data: bytes) -> bool:
    """True for .docm/.xlsm packages (they carry a vbaProject part)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return any(name.lower().endswith("vbaproject.bin") for name in zf.namelist())
    except zipfile.BadZipFile:
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
        return Format.ZIP
    for content_type, fmt in _OOXML_MAIN_TYPES.items():
        if content_type in content_types:
            return fmt
    if "word/document.xml" in names:
        return Format.DOCX
    if "xl/workbook.xml" in names:
        return Format.XLSX
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
        # UTF-16 text has NULs; we do not accept UTF-16 CSVs (rare, and ambiguous)
        return False
    control = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return control <= max(1, len(sample) // 200)
