"""chunks: the ADR 0006 chunk with provenance, gated by the blocking checks."""


import dagster as dg
import pyarrow as pa

from .. import progress
from ..inbox import Registry
from ..resources import WarehouseResource
from ..stages import chunk_rows, run_step_isolated
from ..step_failures import clear_failure, describe, record_failure
from ..storage import table_from_rows
from ..version import code_version
from .partitions import documents, one_run_per_batch, rows, settings_for


CHUNK_PARALLEL_AT = 8  # documents: fewer are chunked by one child process


@dg.asset(
    partitions_def=documents,
    backfill_policy=one_run_per_batch,
    group_name="ingest",
    code_version=code_version(),
    kinds={"parquet"},
    deps=["parsed_documents"],
    description="Retrieval chunks (prose, table_row, block_descriptor) with attachments, spans, regions, "
    "prev/next and content_hash.",
)
def chunks(
    context: dg.AssetExecutionContext,
    segments: dict[str, pa.Table],
    lifted_blocks: dict[str, pa.Table],
    crops: dict[str, pa.Table],
    warehouse: WarehouseResource,
) -> dg.Output:
    registry = Registry(warehouse.get())
    out = {}
    kinds: dict[str, int] = {}
    keys = context.partition_keys
    # each document chunked in a child process within its step_timeout_s and
    # memory_budget_mb; a failure ends only its document (see step_failures)
    settings = {doc_id: settings_for(registry, doc_id) for doc_id in keys}
    jobs = {
        doc_id: (doc_id, rows(segments, doc_id), rows(lifted_blocks, doc_id), rows(crops, doc_id), settings[doc_id])
        for doc_id in keys
    }
    outcomes = run_step_isolated(chunk_rows, jobs, settings, "chunking", workers=2 if len(keys) >= CHUNK_PARALLEL_AT else 1)
    for i, doc_id in enumerate(keys, 1):
        try:
            outcome = outcomes[doc_id]
            if outcome.error is not None:
                raise outcome.error
            made = outcome.value
        except Exception as exc:  # noqa: BLE001 - one document's failure is its own (see step_failures)
            reason = describe("chunks", exc)
            record_failure(warehouse.get(), "chunks", doc_id, reason)
            context.add_asset_metadata({"failed": reason}, partition_key=doc_id)
            context.log.warning(f"{doc_id}: {reason}")
            made = []
        else:
            clear_failure(warehouse.get(), "chunks", doc_id)
        for row in made:
            kinds[row["chunk_kind"]] = kinds.get(row["chunk_kind"], 0) + 1
        out[doc_id] = table_from_rows("chunks", made)
        progress.report("chunk", i, len(keys))
    preview = _markdown_preview(out)
    return dg.Output(out, metadata={**{f"chunks_{k}": v for k, v in sorted(kinds.items())}, "preview": dg.MetadataValue.md(preview)})


def _markdown_preview(tables: dict[str, pa.Table], limit: int = 5) -> str:
    lines = []
    for doc_id, table in list(tables.items())[:3]:
        lines.append(f"### {doc_id}")
        for row in table.slice(0, limit).to_pylist():
            flag = " ⚠ quarantined content" if row["has_quarantined_content"] else ""
            text = row["text"].replace("\n", " ")
            lines.append(f"- `{row['chunk_id']}` ({row['chunk_kind']}, {row['token_count']} tokens){flag}: {text[:200]}")
    return "\n".join(lines) or "no chunks"
