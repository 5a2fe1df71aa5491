"""chunks: the ADR 0006 chunk with provenance, gated by the blocking checks."""


import dagster as dg
import pyarrow as pa

from .. import progress
from ..resources import WarehouseResource
from ..stages import chunk_rows, run_step_isolated
from ..runtime.step_failures import clear_failure, describe, record_failure
from ..schemas import table_from_rows
from ..version import code_version
from .partitions import documents, one_run_per_batch, rows, settings_of


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
    raw_documents: dict[str, pa.Table],
    warehouse: WarehouseResource,
) -> dg.Output:
    out = {}
    kinds: dict[str, int] = {}
    keys = context.partition_keys
    # each document chunked in a child process within its step_timeout_s and
    # memory_budget_mb; a failure ends only its document (see step_failures)
    settings = {doc_id: settings_of(raw_documents, doc_id) for doc_id in keys}
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
    wh = warehouse.get()
    for doc_id, table in out.items():
        # this document's own file, rows and preview on its own materialization
        # (metadata given to the Output would be copied onto every document of the run)
        context.add_asset_metadata(
            {
                "path": dg.MetadataValue.path(str(wh.asset_path("chunks", doc_id))),
                "row_count": table.num_rows,
                "preview": dg.MetadataValue.md(markdown_preview(doc_id, table.to_pylist())),
            },
            partition_key=doc_id,
        )
    return dg.Output(out, metadata={f"chunks_{k}": v for k, v in sorted(kinds.items())})


QUARANTINED_SHOWN = 10
OTHERS_SHOWN = 5


def _pages(row: dict) -> list[int]:
    pages = [a.get("physical_page") for a in row.get("attachments") or []]
    pages += [r.get("page_no") for r in row.get("regions") or []]
    return sorted({p for p in pages if p})


def _line(row: dict, flagged: bool) -> str:
    text = " ".join(row["text"].split())
    head = f"- `{row['chunk_id']}` ({row['chunk_kind']}, {row['token_count']} tokens)"
    if flagged:
        crops = [a["source_crop"] for a in row.get("attachments") or [] if a.get("source_crop")]
        pages = ", ".join(str(p) for p in _pages(row)) or "?"
        where = f" page {pages}" + (f", crop `{crops[0]}`" if crops else ", no crop")
        head = f"- ⚠ quarantined content{where}: `{row['chunk_id']}` ({row['chunk_kind']}, {row['token_count']} tokens)"
    return f"{head}: {text[:200]}"


def markdown_preview(doc_id: str, rows: list[dict]) -> str:
    """A reviewer's first look at one document's chunks: those carrying
    quarantined content (a lifted table or formula) first, with ⚠, their
    pages and crop, then the first others, in reading order."""
    flagged = [r for r in rows if r["has_quarantined_content"]]
    others = [r for r in rows if not r["has_quarantined_content"]]
    lines = [f"### {doc_id}", f"{len(rows)} chunks, {len(flagged)} with quarantined content"]
    lines += [_line(r, True) for r in flagged[:QUARANTINED_SHOWN]]
    if len(flagged) > QUARANTINED_SHOWN:
        lines.append(f"- … {len(flagged) - QUARANTINED_SHOWN} more with quarantined content")
    lines += [_line(r, False) for r in others[:OTHERS_SHOWN]]
    if len(others) > OTHERS_SHOWN:
        lines.append(f"- … {len(others) - OTHERS_SHOWN} more")
    return "\n".join(lines)
