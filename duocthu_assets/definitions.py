"""The code location: assets, checks, resources, jobs, sensors and schedules.
The UI (`make ui`), the daemon and `duocthu ingest` all load these."""

from __future__ import annotations

import os

import dagster as dg

from checks.asset_checks import gate_checks
from checks.registry import RULES_BY_ASSET

from .assets.chunks import chunks
from .assets.crops import crops
from .assets.embeddings import embeddings
from .assets.parsing import parse_documents
from .assets.raw_documents import raw_documents
from .assets.review import review
from .assets.search_index import search_index
from .assets.warehouse_tables import warehouse_tables
from .automation import index_after_ingest_failure, index_after_ingest_success, inbox_sensor, nightly_reingest
from .runtime.executor import configured_executor
from .jobs import ingest_job, refresh_index_job
from .resources import EmbedderResource, ParquetWarehouseIOManager, WarehouseResource, default_warehouse_root

MAX_CONCURRENT_ENV = "DUOCTHU_MAX_CONCURRENT"


def build_definitions(warehouse_root: str | None = None, max_concurrent: int | None = None) -> dg.Definitions:
    root = warehouse_root or default_warehouse_root()
    concurrency = max_concurrent or int(os.environ.get(MAX_CONCURRENT_ENV, "2"))
    return dg.Definitions(
        assets=[raw_documents, parse_documents, crops, chunks, embeddings, search_index, review, warehouse_tables],
        asset_checks=[gate_checks(asset, rules) for asset, rules in RULES_BY_ASSET.items() if rules],
        jobs=[ingest_job, refresh_index_job],
        sensors=[inbox_sensor, index_after_ingest_success, index_after_ingest_failure],
        schedules=[nightly_reingest],
        resources={
            "io_manager": ParquetWarehouseIOManager(root=root),
            "warehouse": WarehouseResource(root=root),
            "embedder": EmbedderResource.from_env(),
        },
        executor=configured_executor(concurrency),
    )


defs = build_definitions()
