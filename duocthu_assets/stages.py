"""Each stage's work for one document, Dagster-free: the assets are thin loops
over their partitions that call these and hand tables to the IO manager."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from .isolation import Outcome, run_isolated
from .model import SCHEMA_VERSION, Format, ParsedDocument
from .parse import DocumentRejected, ParseFailed, parse_document
from .rows import _plain, block_from_row, segment_from_row, to_row
from .settings import Settings
from .storage import Warehouse, table_from_rows

OK, FAILED, REJECTED = "ok", "failed", "rejected"


@dataclass(frozen=True)
class ParseJob:
    doc_id: str
    warehouse_root: str
    sha256: str
    fmt: str
    settings: Settings


def _parse_stored(job: ParseJob) -> ParsedDocument:
    data = Warehouse(job.warehouse_root).read_source(job.sha256)
    return parse_document(data, Format(job.fmt), job.settings)


PARSE_JOBS_PER_CHILD = 16  # then a fresh child: whatever a parser kept in memory goes with it


def parse_many(jobs: list[ParseJob], workers: int = 2) -> dict[str, Outcome]:
    """Parse documents in child processes (both cores), each within its own
    settings' time limit; one document's crash or hang ends only itself."""
    outcomes: dict[str, Outcome] = {}
    by_timeout: dict[float, list[ParseJob]] = {}
    for job in jobs:
        by_timeout.setdefault(job.settings.parse_timeout_s, []).append(job)
    for timeout, group in by_timeout.items():
        outcomes.update(run_isolated(_parse_stored, [(j.doc_id, (j,)) for j in group], timeout, workers, jobs_per_child=PARSE_JOBS_PER_CHILD))
    return outcomes


def parsed_tables(doc_id: str, raw_row: dict[str, Any], outcome: Outcome | None) -> dict[str, pa.Table]:
    """segments, lifted_blocks and parsed_documents tables for one document."""
    status, reason = OK, ""
    parsed = ParsedDocument(segments=[])
    if raw_row["status"] != "accepted":
        status, reason = REJECTED if raw_row["status"] == "rejected" else raw_row["status"], raw_row["reason"]
    elif outcome is None:
        status, reason = FAILED, "not parsed"
    elif outcome.error is not None:
        if isinstance(outcome.error, DocumentRejected):
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
        "schema_version": SCHEMA_VERSION,
    }
    return {
        "segments": table_from_rows("segments", [to_row(s, doc_id) for s in parsed.segments]),
        "lifted_blocks": table_from_rows("lifted_blocks", [to_row(b, doc_id) for b in parsed.blocks]),
        "parsed_documents": table_from_rows("parsed_documents", [summary]),
    }


def crop_rows(warehouse: Warehouse, doc_id: str, raw_row: dict[str, Any], block_rows: list[dict[str, Any]], settings: Settings) -> list[dict[str, Any]]:
    """Render every block of a PDF to ``crops/<doc_id>/<block_id>.png`` and
    return the crops rows; stale PNGs of earlier versions are removed."""
    rows = []
    folder = warehouse.path("crops", doc_id)
    keep: set[str] = set()
    if block_rows:
        from .parse.pdf_crops import render_block_crop

        data = warehouse.read_source(raw_row["sha256"])
        for block in block_rows:
            png, width, height = render_block_crop(
                data, block["page_no"], tuple(block["bbox"]), settings.crop_dpi, settings.crop_margin_pt
            )
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
    if folder.exists():
        for stale in folder.iterdir():
            if stale.name not in keep:
                stale.unlink()
    return rows


def chunk_rows(doc_id: str, segment_rows: list[dict], block_rows: list[dict], crop_rows_: list[dict], settings: Settings) -> list[dict]:
    from .chunking import build_chunks

    segments = [segment_from_row(r) for r in segment_rows]
    blocks = [block_from_row(r) for r in block_rows]
    crop_paths = {r["block_id"]: r["path"] for r in crop_rows_}
    return [to_row(c, doc_id) for c in build_chunks(doc_id, segments, blocks, crop_paths, settings)]
