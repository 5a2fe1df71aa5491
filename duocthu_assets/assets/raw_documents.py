"""raw_documents: one row per source file; its bytes kept before anything else."""


import dagster as dg
import pyarrow as pa

from .. import progress
from ..inbox.registry import Registry
from ..resources import WarehouseResource
from ..sources import REMOVED, describe_source, retire_derived
from ..schemas import table_from_rows
from ..version import code_version
from .partitions import documents, one_run_per_batch


@dg.asset(
    partitions_def=documents,
    backfill_policy=one_run_per_batch,
    group_name="ingest",
    code_version=code_version(),
    kinds={"parquet"},
    description="One row per source file: sha256, size, format detected from content, page or sheet count, "
    "status accepted/rejected/removed and the reason. Bytes kept under sources/<sha256>.",
)
def raw_documents(context: dg.AssetExecutionContext, warehouse: WarehouseResource) -> dg.Output:
    wh = warehouse.get()
    registry = Registry(wh)
    out: dict[str, pa.Table] = {}
    statuses: dict[str, int] = {}
    keys = context.partition_keys
    for i, doc_id in enumerate(keys, 1):
        record = registry.records.get(doc_id)
        row = describe_source(wh, record, doc_id)
        # what the document is built with (the row's settings struct), shown
        # on its own materialization in the UI
        # and who it is, with why it is read as a law when nothing named a profile
        context.add_asset_metadata({"settings": dg.MetadataValue.json(row["settings"]),
                                    "identity": dg.MetadataValue.json(row["identity"]),
                                    "profile_evidence": dg.MetadataValue.json(row["profile_evidence"])},
                                   partition_key=doc_id)
        if row["status"] == REMOVED:
            retired = retire_derived(wh, doc_id)
            context.log.info(f"{doc_id}: removed from the inbox; cleaned up {retired or 'nothing'}")
        out[doc_id] = table_from_rows("raw_documents", [row])
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
        progress.report("read", i, len(keys))
    return dg.Output(out, metadata={f"documents_{k}": v for k, v in sorted(statuses.items())})
