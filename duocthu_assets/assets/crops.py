"""crops: each lifted block rendered to PNG, the answer to a table question."""


import dagster as dg
import pyarrow as pa

from .. import progress
from ..resources import WarehouseResource
from ..stages import crop_rows, crop_rows_at, run_step_isolated, scan_regions
from ..runtime.step_failures import clear_failure, describe, record_failure
from ..schemas import first_row, table_from_rows
from ..version import code_version
from ..settings import row_settings
from .partitions import documents, one_run_per_batch, rows


@dg.asset(
    partitions_def=documents,
    backfill_policy=one_run_per_batch,
    group_name="ingest",
    code_version=code_version(),
    kinds={"parquet", "png"},
    deps=["parsed_documents"],
    description="One PNG per lifted block at crops/<doc_id>/<block_id>.png: path, sha256, pixel size, dpi "
    "(and per paragraph read by OCR, at crops/<doc_id>/<segment_id>.png). "
    "A document whose crop cannot be rendered fails alone (crop_step_completed), with the reason.",
)
def crops(
    context: dg.AssetExecutionContext,
    lifted_blocks: dict[str, pa.Table],
    segments: dict[str, pa.Table],
    raw_documents: dict[str, pa.Table],
    warehouse: WarehouseResource,
) -> dg.Output:
    wh = warehouse.get()
    out = {}
    total = 0
    keys = context.partition_keys
    raw_rows = {doc_id: first_row(raw_documents.get(doc_id)) or {} for doc_id in keys}
    settings = {doc_id: row_settings(raw_rows[doc_id]) for doc_id in keys}
    # documents with blocks are rendered in child processes, each within its
    # step_timeout_s and memory_budget_mb (MuPDF may hang, crash or balloon)
    # and the regions of its scanned pages read by OCR (issue 39), named by segment id
    with_blocks = {doc_id: rows(lifted_blocks, doc_id) + scan_regions(rows(segments, doc_id)) for doc_id in keys}
    jobs = {doc_id: (str(wh.root), doc_id, raw_rows[doc_id], blocks, settings[doc_id]) for doc_id, blocks in with_blocks.items() if blocks}
    outcomes = run_step_isolated(crop_rows_at, jobs, settings, "cropping") if jobs else {}
    for i, doc_id in enumerate(keys, 1):
        try:
            if doc_id in outcomes:
                outcome = outcomes[doc_id]
                if outcome.error is not None:
                    raise outcome.error
                made = outcome.value
            else:
                made = crop_rows(wh, doc_id, raw_rows[doc_id], [], settings[doc_id])
        except Exception as exc:  # noqa: BLE001 - one document's failure is its own (see step_failures)
            reason = describe("crops", exc)
            record_failure(wh, "crops", doc_id, reason)
            context.add_asset_metadata({"failed": reason}, partition_key=doc_id)
            context.log.warning(f"{doc_id}: {reason}")
            made = []
        else:
            clear_failure(wh, "crops", doc_id)
        out[doc_id] = table_from_rows("crops", made)
        total += len(made)
        progress.report("crop", i, len(keys))
    return dg.Output(out, metadata={"crops": total})
