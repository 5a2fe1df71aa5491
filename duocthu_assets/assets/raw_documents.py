"""raw_documents: one row per source file; its bytes kept before anything else.

A partition the registry does not know (added in the UI's launch dialog
while the inbox sensor is off) is looked for in the inbox first, as the
sensor would register it; a doc_id no file of the inbox has says so, and
what to do, instead of "removed from the inbox"."""



import dagster as dg
import pyarrow as pa

from .. import progress
from ..inbox.registration import register_files
from ..inbox.registry import Registry
from ..inbox.scan import inbox_root, scan
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
    keys = context.partition_keys
    unknown = [doc_id for doc_id in keys if doc_id not in registry.records]
    inbox = inbox_root()
    if unknown and inbox.is_dir():
        found = scan([inbox])  # the sensor's registration, for partitions added by hand in the UI
        register_files(registry, found.found, refused=found.refused)
        registry.save()
    for i, doc_id in enumerate(keys, 1):
        record = registry.records.get(doc_id)
        row = describe_source(wh, record, doc_id)
        if record is None:
            row["reason"] = (
                f"no file in the inbox ({inbox}) has the doc_id {doc_id!r} (a doc_id is the file's path under the "
                "inbox, lower-case, '/' as '-': 'hop_dong/mau1.pdf' is 'hop_dong-mau1.pdf') — put the file in the inbox and turn on inbox_sensor (Automation), which adds the "
                "partition and runs it, or run `duocthu ingest <inbox>`"
            )
        # what the document is built with (the row's settings struct), shown
        # on its own materialization in the UI
        # and who it is, with why it is read as a law when nothing named a profile
        context.add_asset_metadata(
            {
                "status": row["status"] + (f": {row['reason']}" if row["reason"] else ""),
                "settings": dg.MetadataValue.json(row["settings"]),
                "identity": dg.MetadataValue.json(row["identity"]),
                "profile_evidence": dg.MetadataValue.json(row["profile_evidence"]),
            },
            partition_key=doc_id,
        )
        if row["status"] == REMOVED and record is not None:
            retired = retire_derived(wh, doc_id)
            context.log.info(f"{doc_id}: removed from the inbox; cleaned up {retired or 'nothing'}")
        out[doc_id] = table_from_rows("raw_documents", [row])
        progress.report("read", i, len(keys))
    return dg.Output(out)  # each document's status is on its own materialization (above), not the run's counts

