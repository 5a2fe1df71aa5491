"""segments, lifted_blocks and parsed_documents from one pass over each
document (a multi-asset: a page is parsed once)."""


import dagster as dg
import pyarrow as pa

from .. import progress
from ..resources import WarehouseResource
from ..stages import ParseJob, parse_many, parsed_tables
from ..version import code_version
from ..schemas import first_row
from ..settings import row_settings
from .partitions import documents, one_run_per_batch

PARSE_WORKERS = 2


@dg.multi_asset(
    outs={
        "segments": dg.AssetOut(
            description="The canonical document: headings (with level), paragraphs, list items, table rows, "
            "each with heading trail, entry, section, pages, bbox, span into the canonical text, source ref.",
            code_version=code_version(),
            kinds={"parquet"},
        ),
        "lifted_blocks": dg.AssetOut(
            description="Tables and 2D formulas lifted out of PDF prose and quarantined (ADR 0006).",
            code_version=code_version(),
            kinds={"parquet"},
        ),
        "parsed_documents": dg.AssetOut(
            description="Per document: parse status and reason, pages needing OCR, counts, the canonical text.",
            code_version=code_version(),
            kinds={"parquet"},
        ),
    },
    partitions_def=documents,
    backfill_policy=one_run_per_batch,
    group_name="ingest",
)
def parse_documents(context: dg.AssetExecutionContext, raw_documents: dict[str, pa.Table], warehouse: WarehouseResource):
    wh = warehouse.get()
    keys = context.partition_keys
    raw = {k: first_row(raw_documents.get(k)) for k in keys}
    jobs = [
        ParseJob(k, str(wh.root), r["sha256"], r["format"], row_settings(r), r.get("page_count") or 0)
        for k, r in raw.items()
        if r is not None and r["status"] == "accepted"
    ]
    outcomes = parse_many(jobs, workers=PARSE_WORKERS)
    outputs: dict[str, dict[str, pa.Table]] = {"segments": {}, "lifted_blocks": {}, "parsed_documents": {}}
    pages = 0
    for i, doc_id in enumerate(keys, 1):
        raw_row = raw[doc_id] or {"status": "failed", "reason": "raw_documents row missing", "format": ""}
        tables = parsed_tables(doc_id, raw_row, outcomes.get(doc_id))
        for asset, table in tables.items():
            outputs[asset][doc_id] = table
        summary = tables["parsed_documents"].to_pylist()[0]
        pages += summary["page_count"]
        progress.report("parse", i, len(keys), pages=pages, detail=f"{doc_id}: {summary['status']}")
    ocr = _pages_needing_ocr(outputs["parsed_documents"])
    # per document, on its own materialization: metadata given to the Output
    # would be copied onto every document of the run
    for doc_id in keys:
        parsed = outputs["parsed_documents"][doc_id].to_pylist()[0]
        own: dict[str, object] = {
            # the document's own parse status, not the run's counts (a scan read "documents_failed 0" before)
            "status": parsed["status"] + (f": {parsed['reason']}" if parsed["reason"] else ""),
            "pages_needing_ocr": dg.MetadataValue.json(ocr.get(doc_id, [])),
            "pages_needing_ocr_count": len(ocr.get(doc_id, [])),
        }
        if doc_id in outcomes:
            own["parse_seconds"] = round(outcomes[doc_id].seconds, 3)
        context.add_asset_metadata(own, asset_key="parsed_documents", partition_key=doc_id)
    yield dg.Output(outputs["segments"], output_name="segments")
    yield dg.Output(
        outputs["lifted_blocks"],
        output_name="lifted_blocks",
        metadata={"blocks_by_shape": dg.MetadataValue.json(_blocks_by_shape(outputs["lifted_blocks"]))},
    )
    yield dg.Output(
        outputs["parsed_documents"],
        output_name="parsed_documents",  # each document's status is on its own materialization (above)
    )


def _blocks_by_shape(tables: dict[str, pa.Table]) -> dict[str, int]:
    """Lifted blocks counted per shape (simple_table, formula_2d, ...) over every
    document of the step, for the reviewer reading a materialization in the UI."""
    counts: dict[str, int] = {}
    for table in tables.values():
        for shape in table.column("shape").to_pylist():
            counts[shape] = counts.get(shape, 0) + 1
    return dict(sorted(counts.items()))


def _pages_needing_ocr(tables: dict[str, pa.Table]) -> dict[str, list[int]]:
    """{doc_id: pages without a text layer}, only for documents that have some."""
    found = {}
    for doc_id, table in tables.items():
        pages = [p for row in table.column("pages_needing_ocr").to_pylist() for p in (row or [])]
        if pages:
            found[doc_id] = pages
    return found
