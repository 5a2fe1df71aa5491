"""embeddings: one vector per chunk; a (model, content_hash) already embedded
is reused, never embedded again."""


import dagster as dg
import pyarrow as pa

from .. import progress
from ..resources import EmbedderResource, WarehouseResource
from ..runtime.step_failures import clear_failure, describe, record_failure
from ..version import code_version
from .partitions import documents, one_run_per_batch, settings_of


@dg.asset(
    partitions_def=documents,
    backfill_policy=one_run_per_batch,
    group_name="index",
    code_version=code_version(),
    kinds={"parquet"},
    description="chunk_id, content_hash, model id, dimension and vector (fixed-size float32) per chunk.",
)
def embeddings(
    context: dg.AssetExecutionContext,
    chunks: dict[str, pa.Table],
    raw_documents: dict[str, pa.Table],
    warehouse: WarehouseResource,
    embedder: EmbedderResource,
) -> dg.Output:
    from ..embed.reuse import EmbedBudget, embed_document_table, embeddings_table

    wh = warehouse.get()
    model = embedder.make()
    out = {}
    keys = context.partition_keys
    for i, doc_id in enumerate(keys, 1):
        chunk_table = chunks.get(doc_id)
        # within its settings' embed_timeout_s and memory_budget_mb; past
        # either it fails alone, its vectors so far kept (see embed.reuse)
        budget = EmbedBudget.of(settings_of(raw_documents, doc_id))
        try:
            table, doc_stats = embed_document_table(doc_id, chunk_table, model, wh, budget=budget)
        except Exception as exc:  # noqa: BLE001 - one document's failure is its own (see step_failures)
            reason = describe("embeddings", exc)
            record_failure(wh, "embeddings", doc_id, reason)
            context.add_asset_metadata({"failed": reason}, partition_key=doc_id)
            context.log.warning(f"{doc_id}: {reason}")
            out[doc_id] = embeddings_table([], model.dim)
            progress.report("embed", i, len(keys), detail=f"{doc_id}: failed")
            continue
        clear_failure(wh, "embeddings", doc_id)
        out[doc_id] = table
        # on this document's own materialization: metadata given to the
        # Output would be copied onto every document of the run
        context.add_asset_metadata(
            {"vectors_computed": doc_stats.computed, "vectors_reused": doc_stats.reused}, partition_key=doc_id
        )
        progress.report("embed", i, len(keys), detail=f"{doc_id}: {doc_stats.computed} computed, {doc_stats.reused} reused")
    return dg.Output(out, metadata={"model_id": model.model_id, "dim": model.dim})
