"""Each stage's work for one document, Dagster-free: the assets are thin loops
over their partitions that call these and hand tables to the IO manager."""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from .runtime.isolation import Outcome, run_isolated
from .model import SCHEMA_VERSION, Format, ParsedDocument, ParseStatus, SourceStatus
from .parse.errors import DocumentRejected, ParseFailed
from .parse import parse_document
from .rows import _plain, block_from_row, segment_from_row, to_row
from .settings import Settings
from .runtime.step_failures import StepFailed
from .schemas import table_from_rows
from .warehouse import Warehouse

OK, FAILED, REJECTED = ParseStatus.OK, ParseStatus.FAILED, ParseStatus.REJECTED


@dataclass(frozen=True)
class ParseJob:
    doc_id: str
    warehouse_root: str
    sha256: str
    fmt: str
    settings: Settings
    pages: int = 0  # the PDF's pages (raw_documents.page_count): each may need OCR

    @property
    def timeout_s(self) -> float:
        """``parse_timeout_s``, and for a PDF read with OCR on, ``ocr_page_budget_s``
        more for each of its pages (a scan of 900 pages reads for an hour)."""
        extra = self.pages * self.settings.pdf.ocr_page_budget_s if self.fmt == Format.PDF.value and self.settings.pdf.ocr else 0.0
        return self.settings.parse_timeout_s + extra


def _parse_stored(job: ParseJob) -> ParsedDocument:
    warehouse = Warehouse(job.warehouse_root)
    data = warehouse.read_source(job.sha256)
    cache = warehouse.path(OCR_CACHE)
    local = getattr(cache, "protocol", "") in ("", "file", "local")  # a warehouse in object storage keeps no OCR cache
    return parse_document(data, Format(job.fmt), job.settings, ocr_cache=str(cache.path if hasattr(cache, "path") else cache) if local else None)


OCR_CACHE = "ocr_cache"  # the warehouse's folder of pages read by OCR, by page-image hash (parse/pdf/read/ocr_pages.py)
PARSE_JOBS_PER_CHILD = 16  # then a fresh child: whatever a parser kept in memory goes with it


def parse_many(jobs: list[ParseJob], workers: int = 2) -> dict[str, Outcome]:
    """Parse documents in child processes (both cores), each within its own
    settings' time limit; one document's crash or hang ends only itself."""
    outcomes: dict[str, Outcome] = {}
    by_limits: dict[tuple[float, int], list[ParseJob]] = {}
    for job in jobs:
        by_limits.setdefault((job.timeout_s, job.settings.memory_budget_mb), []).append(job)
    for (timeout, memory_mb), group in by_limits.items():
        outcomes.update(run_isolated(_parse_stored, [(j.doc_id, (j,)) for j in group], timeout, workers,
                                     jobs_per_child=PARSE_JOBS_PER_CHILD, memory_mb=memory_mb))
    return outcomes


def run_step_isolated(fn, jobs: dict[str, tuple], settings: dict[str, Settings], what: str, workers: int = 1) -> dict[str, Outcome]:
    """``fn(*args)`` per document in child processes, each document within its
    settings' ``step_timeout_s`` and ``memory_budget_mb``: a document whose
    crop or chunking hangs, crashes the process or needs too much memory
    fails alone (see step_failures)."""
    outcomes: dict[str, Outcome] = {}
    groups: dict[tuple[float, int], list[str]] = {}
    for doc_id in jobs:
        groups.setdefault((settings[doc_id].step_timeout_s, settings[doc_id].memory_budget_mb), []).append(doc_id)
    for (timeout, memory_mb), keys in groups.items():
        outcomes.update(run_isolated(fn, [(k, jobs[k]) for k in keys], timeout, workers,
                                     jobs_per_child=len(keys), memory_mb=memory_mb, what=what))
    return outcomes


def parsed_tables(doc_id: str, raw_row: dict[str, Any], outcome: Outcome | None) -> dict[str, pa.Table]:
    """segments, lifted_blocks and parsed_documents tables for one document."""
    status, reason = OK, ""
    parsed = ParsedDocument(segments=[])
    if raw_row["status"] != SourceStatus.ACCEPTED:
        status, reason = REJECTED if raw_row["status"] == SourceStatus.REJECTED else raw_row["status"], raw_row["reason"]
    elif outcome is None:
        status, reason = FAILED, "not parsed"
    elif outcome.error is not None:
        if isinstance(outcome.error, MemoryError):
            status, reason = FAILED, ("parsing needed more memory than its budget (memory_budget_mb) and was stopped — "
                                      "raise memory_budget_mb in its collection.toml if the machine has the memory")
        elif isinstance(outcome.error, DocumentRejected):
            status, reason = REJECTED, str(outcome.error)
        elif isinstance(outcome.error, ParseFailed) or outcome.error_kind in ("timeout", "crash"):
            status, reason = FAILED, str(outcome.error)
        else:
            status, reason = FAILED, f"parser error: {type(outcome.error).__name__}: {outcome.error}"
    else:
        parsed = outcome.value
    canonical = parsed.canonical_text
    summary = {
        "doc_id": doc_id,
        "status": status,
        "reason": reason,
        "format": raw_row.get("format", ""),
        "page_count": parsed.page_count or raw_row.get("page_count", 0),
        "pages_needing_ocr": list(parsed.pages_needing_ocr),
        "segment_count": len(parsed.segments),
        "block_count": len(parsed.blocks),
        "canonical_text": canonical,
        "canonical_sha256": hashlib.sha256(canonical.encode()).hexdigest(),
        "warnings": list(parsed.warnings),
        "chars_in": sum(a.chars_in for a in parsed.page_accounts),
        "chars_prose": sum(a.prose for a in parsed.page_accounts),
        "chars_blocks": sum(a.blocks for a in parsed.page_accounts),
        "chars_furniture": sum(a.furniture for a in parsed.page_accounts),
        "chars_unmapped": sum(a.unmapped for a in parsed.page_accounts),
        "page_accounts": [_plain(a) for a in parsed.page_accounts],
        "furniture": [_plain(f) for f in parsed.furniture],
        "page_labels": list(parsed.page_labels),
        **ocr_columns(parsed),
        "schema_version": SCHEMA_VERSION,
    }
    return {
        "segments": table_from_rows("segments", [to_row(s, doc_id) for s in parsed.segments]),
        "lifted_blocks": table_from_rows("lifted_blocks", [to_row(b, doc_id) for b in parsed.blocks]),
        "parsed_documents": table_from_rows("parsed_documents", [summary]),
    }


def ocr_columns(parsed: ParsedDocument) -> dict[str, Any]:
    """The parse record's OCR provenance: engine, version, languages, dpi, pages."""
    ocr = parsed.ocr
    if ocr is None:
        return {"ocr_engine": "", "ocr_version": "", "ocr_languages": "", "ocr_dpi": 0, "pages_ocr": []}
    return {"ocr_engine": ocr.engine, "ocr_version": ocr.version, "ocr_languages": ocr.languages, "ocr_dpi": ocr.dpi, "pages_ocr": list(ocr.pages)}


def crop_rows(warehouse: Warehouse, doc_id: str, raw_row: dict[str, Any], block_rows: list[dict[str, Any]], settings: Settings) -> list[dict[str, Any]]:
    """Render every block of a PDF to ``crops/<doc_id>/<block_id>.png`` and
    return the crops rows; stale PNGs of earlier versions are removed."""
    rows = []
    folder = warehouse.path("crops", doc_id)
    keep: set[str] = set()
    if block_rows:
        from .parse.pdf.crops import render_block_crop
        from .parse.pdf.engine import open_pdf

        data = warehouse.read_source(raw_row["sha256"])
        doc = open_pdf(data)  # once for all the document's crops
        for block in block_rows:
            try:
                png, width, height = render_block_crop(
                    data, block["page_no"], tuple(block["bbox"]), settings.crop_dpi, settings.crop_margin_pt, doc
                )
            except Exception as exc:  # noqa: BLE001 - this document's crop fails, said with its size
                for name in keep:  # no PNG of a document without crops rows stays behind
                    (folder / name).unlink(missing_ok=True)
                raise StepFailed(crop_failure(block, settings, exc)) from exc
            name = f"{block['block_id']}.png"
            warehouse.write_bytes_atomic(folder / name, png)
            keep.add(name)
            rows.append(
                {
                    "doc_id": doc_id,
                    "block_id": block["block_id"],
                    "path": f"crops/{doc_id}/{name}",
                    "sha256": hashlib.sha256(png).hexdigest(),
                    "width_px": width,
                    "height_px": height,
                    "dpi": settings.crop_dpi,
                    "page_no": block["page_no"],
                    "printed_page": block["printed_page"],
                    "printed_label": block.get("printed_label") or "",
                    "schema_version": SCHEMA_VERSION,
                }
            )
        doc.close()
    if folder.exists():
        for stale in folder.iterdir():
            # only PNGs of earlier versions: a hidden temporary file is another
            # writer's crop in flight (a concurrent ingest), never this one's to delete
            if stale.name not in keep and stale.name.endswith(".png") and not stale.name.startswith("."):
                with contextlib.suppress(FileNotFoundError):  # another writer removed it first
                    stale.unlink()
    return rows


def scan_regions(segment_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The segments read by OCR as regions to crop (issue 39: the scan is the
    authority, an answer offers its crop), named by segment id."""
    return [
        {"block_id": s["segment_id"], "page_no": s["page_no"], "bbox": s["bbox"], "printed_page": s.get("printed_page"),
         "printed_label": s.get("printed_label") or ""}
        for s in segment_rows
        if s.get("text_source") == "ocr" and s.get("page_no") and s.get("bbox")
    ]


def crop_rows_at(warehouse_root: str, doc_id: str, raw_row: dict[str, Any], block_rows: list[dict[str, Any]], settings: Settings) -> list[dict[str, Any]]:
    """:func:`crop_rows` in a child process (see run_step_isolated)."""
    return crop_rows(Warehouse(warehouse_root), doc_id, raw_row, block_rows, settings)


def crop_failure(block: dict[str, Any], settings: Settings, exc: BaseException) -> str:
    """Why a block's crop could not be rendered, with the picture's size."""
    x0, y0, x1, y1 = (float(v) for v in block["bbox"])
    grow = 2 * settings.crop_margin_pt
    scale = settings.crop_dpi / 72
    width, height = round((x1 - x0 + grow) * scale), round((y1 - y0 + grow) * scale)
    where = f"block {block['block_id']} on page {block['page_no']}"
    detail = str(exc).removeprefix("code=5: ").strip() or type(exc).__name__
    if type(exc).__module__.startswith(("pymupdf", "fitz")):
        return (f"crop failed: MuPDF refused an image of {width}×{height} px ({where}, {settings.crop_dpi} dpi): {detail} "
                "— the block is too large to render as one picture; its text is kept, but the document is not indexed "
                "without the crop (split the page or the table and add the file again)")
    return f"crop failed: {where} ({width}×{height} px at {settings.crop_dpi} dpi): {type(exc).__name__}: {detail}"


def chunk_rows(doc_id: str, segment_rows: list[dict], block_rows: list[dict], crop_rows_: list[dict], settings: Settings) -> list[dict]:
    from .chunking import build_chunks
    from .chunking.packing import TooManyChunks

    segments = [segment_from_row(r) for r in segment_rows]
    blocks = [block_from_row(r) for r in block_rows]
    crop_paths = {r["block_id"]: r["path"] for r in crop_rows_}
    try:
        built = build_chunks(doc_id, segments, blocks, crop_paths, settings)
    except TooManyChunks as exc:  # refused before packing: a one-line 47 MB CSV fails in seconds
        raise StepFailed(f"chunking failed: {exc}") from exc
    if len(built) > settings.max_chunks_per_document:
        raise StepFailed(
            f"chunking failed: {len(built):,} chunks, over the {settings.max_chunks_per_document:,} a document may have "
            "(max_chunks_per_document) — embedding them would take hours; split the document, or raise the limit in "
            "its collection.toml"
        )
    return [to_row(c, doc_id) for c in built]
