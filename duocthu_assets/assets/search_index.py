"""search_index: the candidate index over every document whose blocking checks
passed (not partitioned by document: one manifest and 64 parts by a hash of
the doc_id, see retrieval/layout.py). Refreshed by `duocthu ingest` after every
batch, and by the refresh_index_job that the sensors
index_after_ingest_success/_failure launch after a run of the ingest job; a
refresh rewrites only the parts holding a changed document, then the manifest."""


import dagster as dg

from ..runtime.gates import passing_documents
from ..inbox.registry import active_doc_ids
from ..resources import WarehouseResource, EmbedderResource
from ..version import code_version


@dg.asset(
    group_name="index",
    code_version=code_version(),
    kinds={"parquet", "duckdb"},
    deps=["embeddings"],
    description="Every chunk, vector and BM25 terms of the documents whose blocking checks all passed, in 64 parts "
    "under search_index/parts/ (a refresh rewrites only the parts holding a changed document) and a manifest "
    "search_index/index.parquet; held in memory and searched (exact cosine + BM25, fused by rank) by "
    "`duocthu search` and `duocthu serve`.",
)
def search_index(context: dg.AssetExecutionContext, warehouse: WarehouseResource, embedder: EmbedderResource) -> dg.MaterializeResult:
    from ..retrieval.refresh import refresh_search_index
    from ..retrieval.layout import manifest_path

    wh = warehouse.get()
    active = active_doc_ids(wh)
    gate = passing_documents(context.instance, wh, active)
    refresh = refresh_search_index(wh, gate.passed, model_id=embedder.make().model_id)
    info = refresh.info
    return dg.MaterializeResult(
        metadata={
            "documents_indexed": len(info.documents),
            "chunks_indexed": info.rows,
            "documents_excluded": dg.MetadataValue.json({**gate.failed, **info.excluded}),
            "documents_changed": len(refresh.changed),
            "documents_gone": len(refresh.gone),
            "parts_written": dg.MetadataValue.json(refresh.parts_written),
            "path": str(manifest_path(wh)),
        },
    )
