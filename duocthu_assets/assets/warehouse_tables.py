"""warehouse_tables: the per-document files of every asset compacted into
``tables/<asset>/part-NN.parquet`` (see ``compaction.py``), so queries over
the warehouse open 16 files per asset instead of one per document. Rebuilt
with the search index after every ingest run; only the parts holding a
changed document are rewritten. Its ``tables_match_files`` check fails,
naming the asset and the reason, when an asset could not be compacted (its
tables then still hold what they held: whole documents, older versions)."""

import errno
from typing import Optional

import dagster as dg

from ..compaction import COMPACTED_ASSETS, PARTS, CompactionError, compact_asset
from ..resources import WarehouseResource
from ..version import code_version

TABLES_MATCH_FILES = "tables_match_files"


class TablesConfig(dg.Config):
    """``only``: the documents the run that asked for this refresh built
    (``duocthu ingest`` passes them): only their parts are rewritten and no
    folder is listed. Unset (the UI, the sensors): every folder is listed
    and whatever changed since the last listing is taken in."""

    only: Optional[list[str]] = None


@dg.asset(
    group_name="index",
    code_version=code_version(),
    kinds={"parquet", "duckdb"},
    deps=list(COMPACTED_ASSETS),
    description=f"Every per-document asset as {PARTS} consolidated Parquet parts under tables/<asset>/ "
    "(a document's rows in one part, replaced by one rename): query tables/<asset>/*.parquet.",
    check_specs=[
        dg.AssetCheckSpec(
            TABLES_MATCH_FILES,
            asset="warehouse_tables",
            description="Fails when an asset's per-document files could not be compacted (its tables are then behind).",
        )
    ],
)
def warehouse_tables(context: dg.AssetExecutionContext, warehouse: WarehouseResource, config: TablesConfig) -> dg.MaterializeResult:
    wh = warehouse.get()
    if not wh.is_local:
        context.log.info(f"{wh.root}: not compacted (an object store has no atomic rename); query <asset>/*.parquet")
        return dg.MaterializeResult(
            metadata={"compacted": False},
            check_results=[dg.AssetCheckResult(check_name=TABLES_MATCH_FILES, passed=True, metadata={"compacted": False})],
        )
    reports, failed = {}, {}
    for asset in COMPACTED_ASSETS:
        try:
            reports[asset] = compact_asset(wh, asset, only=config.only)
        except CompactionError as exc:  # the other assets are still compacted
            failed[asset] = str(exc)
            context.log.error(f"warehouse_tables: {exc}")
        except OSError as exc:  # a full disk: this asset's tables keep their last whole state
            why = (exc.strerror or str(exc)).lower() if exc.errno == errno.ENOSPC else str(exc)
            failed[asset] = f"{asset}: not compacted: {why}" + (f" ({exc.filename})" if exc.errno == errno.ENOSPC and exc.filename else "")
            context.log.error(f"warehouse_tables: {exc}")
    message = "; ".join(failed.values()) if failed else f"{len(reports)} assets compacted"
    return dg.MaterializeResult(
        metadata={
            "compacted": True,
            "documents": dg.MetadataValue.json({a: r.documents for a, r in reports.items()}),
            "parts_written": dg.MetadataValue.json({a: r.parts_written for a, r in reports.items() if r.parts_written}),
            "documents_changed": sum(len(r.changed) for r in reports.values()),
            "documents_gone": sum(len(r.gone) for r in reports.values()),
            "path": str(wh.path("tables")) + "/<asset>/*.parquet",
        },
        check_results=[
            dg.AssetCheckResult(
                check_name=TABLES_MATCH_FILES,
                passed=not failed,
                metadata={"message": message, "failed_assets": dg.MetadataValue.json(sorted(failed))},
                description=message,
            )
        ],
    )
