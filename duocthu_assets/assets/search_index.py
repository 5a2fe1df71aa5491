"""search_index: the candidate index over every document whose blocking checks
passed (not partitioned). Rebuilt by `duocthu ingest` after every batch, and by
the refresh_index_job that the sensors index_after_ingest_success/_failure
launch after a run of the ingest job."""


import dagster as dg

from ..runtime.gates import passing_documents
from ..inbox import Registry
from ..resources import EmbedderResource, WarehouseResource
from ..version import code_version


@dg.asset(
    group_name="index",
    code_version=code_version(),
    kinds={"parquet", "duckdb"},
    deps=["embeddings"],
    description="Every chunk and vector of the documents whose blocking checks all passed; "
    "held in memory and searched (exact cosine + BM25, fused by rank) by `duocthu search` and `duocthu serve`.",
)
def search_index(context: dg.AssetExecutionContext, warehouse: WarehouseResource, embedder: EmbedderResource) -> dg.Output:
    from ..retrieval.index import build_lexical, write_lexical
    from ..retrieval import build_search_index, index_info

    wh = warehouse.get()
    registry = Registry(wh)
    active = sorted(r.doc_id for r in registry.active())
    gate = passing_documents(context.instance, wh, active)
    model_id = embedder.make().model_id
    table = build_search_index(wh, gate.passed, model_id=model_id)
    # the lexical index's terms beside it (only the changed documents analyzed),
    # so a one-shot `duocthu search` does not analyze every chunk again
    write_lexical(wh, build_lexical(wh, table))
    excluded = {**gate.failed, **index_info(table).excluded}
    return dg.Output(
        table,
        metadata={
            "documents_indexed": len(set(table.column("doc_id").to_pylist())) if table.num_rows else 0,
            "chunks_indexed": table.num_rows,
            "documents_excluded": dg.MetadataValue.json(excluded),
        },
    )
