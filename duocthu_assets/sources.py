"""Describe a source file for ``raw_documents``: bytes kept in the
content-addressed store, format detected from content, page or sheet count,
status and the reason a user can act on. Dagster-free."""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from pathlib import Path
from typing import Any

from .formats import OLE2_MAGIC, PDF_MAGIC, detect_format, is_macro_enabled, refusal_reason
from .model import SCHEMA_VERSION, DocumentIdentity, Format, SourceStatus
from .inbox.registration import file_sha256
from .inbox.registry import DocumentRecord
from .settings import Settings
from .warehouse import Warehouse

ACCEPTED, REJECTED, REMOVED = SourceStatus.ACCEPTED, SourceStatus.REJECTED, SourceStatus.REMOVED
MiB = 1024 * 1024
MACRO_REASON = (
    "macro-enabled Office file (.docm/.xlsm) — macros are never run here; save a copy as .docx/.xlsx without macros"
)

# Every derived output the project writes for a document, cleaned up when the
# document is removed (its raw_documents row and source bytes are kept).
DERIVED_ASSETS = ("parsed_documents", "segments", "lifted_blocks", "crops", "chunks", "embeddings")


def count_pages(data: bytes, fmt: Format) -> int:
    """Pages of a PDF, sheets of a workbook, 0 for other formats (and for a
    file too damaged to count: the parse stage says why)."""
    if fmt is Format.PDF:
        try:
            import pymupdf

            with pymupdf.open(stream=data, filetype="pdf") as doc:
                return doc.page_count
        except Exception:  # noqa: BLE001 - a damaged PDF is reported by the parser
            return 0
    if fmt is Format.XLSX:
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                info = zf.getinfo("xl/workbook.xml")
                if info.file_size > 16 * 1024 * 1024:
                    return 0
                return len(re.findall(rb"<(?:\w+:)?sheet\b", zf.read(info)))
        except (KeyError, zipfile.BadZipFile, OSError):
            return 0
    return 0


def describe_source(warehouse: Warehouse, record: DocumentRecord | None, doc_id: str) -> dict[str, Any]:
    """The raw_documents row for one document; the file's bytes are stored
    before anything can fail on them."""
    settings = record.resolved_settings() if record else Settings()
    row: dict[str, Any] = {
        "doc_id": doc_id,
        "source_name": record.source_name if record else "",
        "collection": record.collection if record else "",
        "profile": settings.profile.value if record else "",
        "normalization": settings.normalization.value if record else "",
        "sha256": "",
        "size_bytes": 0,
        "format": "",
        "page_count": 0,
        "status": REMOVED,
        "reason": "",
        "stored_path": "",
        "settings": settings.as_record(),
        "identity": DocumentIdentity().as_record(),
        "profile_evidence": [],
        "schema_version": SCHEMA_VERSION,
    }
    if record is None or record.status == REMOVED:
        row["reason"] = "removed from the inbox"
        return row
    path = Path(record.path)
    if record.refused:
        # refused before reading: a link out of the inbox is never read; the
        # bytes of a file refused for its folder's collection.toml are kept
        row.update(status=REJECTED, reason=record.refused)
        if not path.is_symlink():
            try:
                if path.stat().st_size <= settings.max_file_bytes:
                    data = path.read_bytes()
                    sha256 = hashlib.sha256(data).hexdigest()
                    row.update(sha256=sha256, size_bytes=len(data), stored_path=warehouse.keep_source(sha256, data))
            except OSError:
                pass
        return row
    if not path.is_file():
        row["reason"] = f"file not found: {record.source_name}"
        return row
    limit = settings.max_file_bytes
    try:
        if path.stat().st_size > limit:
            return _too_large(warehouse, row, path, limit)
        data = path.read_bytes()
    except FileNotFoundError:
        row["reason"] = f"file not found: {record.source_name} (it vanished while being ingested)"
        return row
    except OSError as exc:
        row.update(status=REJECTED, reason=f"cannot read the file: {exc.strerror or exc} — check its permissions and ingest again")
        return row
    sha256 = hashlib.sha256(data).hexdigest()
    row.update(sha256=sha256, size_bytes=len(data), stored_path=warehouse.keep_source(sha256, data))
    fmt = detect_format(data)
    row["format"] = fmt.value
    reason = refusal_reason(fmt, data)
    if reason is None and fmt in (Format.DOCX, Format.XLSX) and is_macro_enabled(data):
        reason = MACRO_REASON
    if reason is not None:
        row.update(status=REJECTED, reason=reason)
        return row
    row.update(status=ACCEPTED, page_count=count_pages(data, fmt))
    row.update(read_head(data, fmt, settings))
    return row


def read_head(data: bytes, fmt: Format, settings: Settings) -> dict[str, Any]:
    """The columns read from the document's own head before it is parsed:
    its identity (parse/identity.py), and the profile it is read with when
    nothing named one, with the evidence (parse/profiles/detect.py)."""
    from .parse.identity import read_identity
    from .parse.preview import read_preview
    from .parse.profiles.detect import apply_detection

    preview = read_preview(data, fmt, settings)
    identity = read_identity(preview.lines, preview.properties)
    chosen, evidence = apply_detection(settings, preview.lines)
    return {"identity": identity.as_record(), "profile_evidence": list(evidence),
            "profile": chosen.profile.value, "settings": chosen.as_record()}


def refused_on_sight(record: DocumentRecord) -> bool:
    """True when :func:`describe_source` will reject this file from its size
    or its first bytes alone: empty, over ``max_file_bytes``, or an OLE2
    container (legacy .doc/.xls, a password-protected Office file). A guess
    for planning only (``duocthu ingest`` gives such files runs of their own,
    so their failing check does not cut short the good documents' runs); the
    asset still decides, so a wrong guess costs time, never a result."""
    if record.refused:
        return True
    path = Path(record.path)
    try:
        size = path.stat().st_size
        if size == 0 or size > record.resolved_settings().max_file_bytes:
            return True
        with path.open("rb") as fh:
            head = fh.read(1024)
    except OSError:
        return False
    return head.startswith(OLE2_MAGIC) and PDF_MAGIC not in head


def _too_large(warehouse: Warehouse, row: dict[str, Any], path: Path, limit: int) -> dict[str, Any]:
    """Refuse a file over ``max_file_bytes`` without ever holding it in memory;
    its bytes are still kept (copied in blocks)."""
    sha256, size = file_sha256(path), path.stat().st_size
    with path.open("rb") as fh:
        head = fh.read(64 * 1024)
    row.update(
        sha256=sha256,
        size_bytes=size,
        stored_path=warehouse.keep_source_file(sha256, path),
        format=detect_format(head).value,
        status=REJECTED,
        reason=f"file is {_size(size)}, over the {_size(limit)} limit (max_file_bytes) — "
        "split it, or raise max_file_bytes in its collection.toml if the file is genuine",
    )
    return row


def _size(n: int) -> str:
    return f"{n / MiB:,.1f} MiB" if n >= MiB else f"{n:,} bytes"


def retire_derived(warehouse: Warehouse, doc_id: str) -> list[str]:
    """Remove every derived output of a removed document; returns what went."""
    removed = [asset for asset in DERIVED_ASSETS if warehouse.remove(asset, doc_id)]
    crop_dir = warehouse.path("crops", doc_id)
    if crop_dir.exists():
        for png in crop_dir.iterdir():
            png.unlink()
        crop_dir.rmdir()
        removed.append("crops/*.png")
    return removed
