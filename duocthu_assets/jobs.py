"""The two jobs: per-document ingest (every asset but the index, with checks)
and the index refresh."""

from __future__ import annotations

import dagster as dg

from .assets.partitions import documents

INGEST_JOB = "ingest"
REFRESH_INDEX_JOB = "refresh_search_index"
BUILD_KEY_TAG = "duocthu/build_key"
REFRESH_TAGS = {"duocthu/kind": "index refresh"}  # the Runs list tells them from ingest runs, and filters them out

ingest_job = dg.define_asset_job(
    INGEST_JOB,
    selection=dg.AssetSelection.all() - dg.AssetSelection.assets("search_index", "review", "warehouse_tables"),
    partitions_def=documents,
    description="raw_documents → segments/lifted_blocks/parsed_documents → crops → chunks → embeddings, "
    "with every blocking check, for one document or a range of documents.",
)

refresh_index_job = dg.define_asset_job(
    REFRESH_INDEX_JOB,
    selection=dg.AssetSelection.assets("search_index", "review", "warehouse_tables"),
    description="Rebuild search_index from every document whose blocking checks passed, review: the blocked ones, "
    "and warehouse_tables: the per-document files compacted into tables/<asset>/part-NN.parquet.",
)
