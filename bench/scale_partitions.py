"""100,000 documents measured, seeded in bulk (issue 41, item 3).

A real `duocthu ingest` of 100,000 documents takes days here, so the
warehouse is *seeded*: one tiny CSV (bench/ingest.py's) is ingested for
real, and every other document is a copy of it under its own name:

- the inbox file (the same 46 bytes, its own name);
- its registry record (the template's, with its own doc_id, path, name and
  mtime), saved with ``Registry.save``;
- its Parquet files of the 7 ingest assets (the template's rows, its doc_id
  written into every string column), written with ``Warehouse.write_tables``;
  then the consolidated tables compacted from nothing (``compaction.compact``);
- its dynamic partition (``DagsterInstance.add_dynamic_partitions``, batches
  of 1,000);
- per 1,000 documents one run of the ``ingest`` job (``add_run``, SUCCESS,
  tagged with its partition range as `duocthu ingest`'s runs are), holding
  per document the template's materializations of ``raw_documents`` and
  ``chunks`` and the template's evaluations of two checks
  (``document_accepted`` on raw_documents, ``chunk_over_max_tokens`` on
  chunks), written with the event log's batch writer (``store_event_batch``
  for the materializations, ``store_event`` + ``flush_pending`` for the
  evaluations, which duocthu's event log writes together);
- duocthu's remembered check statuses (``duocthu-check-statuses.json``):
  every document passed, as of the last seeded run (what the ingest would
  have remembered; the other 35 checks have no event per document).

Then one `duocthu ingest` of the whole inbox, untimed ("settle": it builds
the index and the inbox snapshot), and each figure ``--repeat`` times:
adding one document and a no-op ingest (`duocthu ingest` as a subprocess),
the inbox sensor's and the nightly schedule's tick (``evaluate_tick``, each
with nothing changed and with one new file in the inbox), the ``review``
asset (materialized in process), and the GraphQL queries the UI sends for
an asset's Partitions tab and Checks tab, taken from the installed
dagster-webserver's bundle, against a real ``dagster-webserver``.

    nice -n 5 .venv/bin/python bench/scale_partitions.py --documents 10000 --root /tmp/x [--repeat 3]
    ... --seed-only / --measure-only (seed once, measure later)
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from bench.ingest import CSV
from bench.ingest import restamp as restamp_warehouse
from bench.scale_ui_queries import ui_query_timings

TEMPLATE = "doc_000000.csv"
BATCH = 1000
ASSETS = ("raw_documents", "segments", "lifted_blocks", "parsed_documents", "crops", "chunks", "embeddings")
SEEDED_EVENTS = (("raw_documents", "document_accepted"), ("chunks", "chunk_over_max_tokens"))
BIN = Path(sys.executable).parent


def name(i: int) -> str:
    return f"doc_{i:06d}.csv"


def retarget(table: pa.Table, doc_id: str) -> pa.Table:
    for i, field in enumerate(table.schema):
        if pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            table = table.set_column(i, field, pc.replace_substring(table.column(i), TEMPLATE, doc_id))
    return table


def _templates(instance, wh) -> tuple[dict, list, list]:
    from duocthu_assets.runtime.dagster_private import PartitionKeyFilter

    tables = {asset: wh.read_table(asset, TEMPLATE) for asset in ASSETS}
    mats, checks = [], []
    for asset, check in SEEDED_EVENTS:
        key = dg.AssetKey(asset)
        records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=key, asset_partitions=[TEMPLATE]), limit=1)
        mats.append(records.records[0].event_log_entry)
        history = instance.event_log_storage.get_asset_check_execution_history(
            dg.AssetCheckKey(key, check), limit=1, partition_filter=PartitionKeyFilter(key=TEMPLATE))
        checks.append(history[0].event)
    return tables, mats, checks


def _clone_event(entry, run_id: str, doc_id: str, target=None):
    """The template's event for ``doc_id`` in ``run_id``; a check evaluation
    pointing at ``target`` (that document's materialization it checked, as
    (storage_id, timestamp)): one pointing elsewhere is not the partition's
    current status in the Checks tab."""
    event = entry.dagster_event
    data = event.event_specific_data
    if hasattr(data, "materialization"):
        m = data.materialization
        data = data._replace(materialization=dg.AssetMaterialization(
            asset_key=m.asset_key, description=m.description, metadata=m.metadata, partition=doc_id, tags=m.tags))
    else:
        from duocthu_assets.runtime.dagster_private import (
            AssetCheckEvaluationTargetMaterializationData as Target,
        )
        from duocthu_assets.runtime.dagster_private import record_copy as copy  # a @record

        pointer = Target(storage_id=target[0], run_id=run_id, timestamp=target[1]) if target else None
        data = copy(data, partition=doc_id, target_materialization_data=pointer)
    return entry._replace(run_id=run_id, timestamp=time.time(), dagster_event=event._replace(event_specific_data=data))


def seed(root: Path, documents: int, tables: bool = True) -> dict:
    from duocthu_assets import compaction
    from duocthu_assets.inbox.registry import Registry
    from duocthu_assets.ingest.run import ingest
    from duocthu_assets.runtime.gates import StatusCache
    from duocthu_assets.runtime.instance import open_instance
    from duocthu_assets.warehouse import Warehouse

    inbox, warehouse = root / "inbox", root / "wh"
    inbox.mkdir(parents=True, exist_ok=True)
    started, cpu0 = time.perf_counter(), _cpu()
    figures: dict = {"documents": documents, "load_before": os.getloadavg()[0]}
    if not (warehouse / "registry.json").exists():
        (inbox / TEMPLATE).write_text(CSV)
        with contextlib.redirect_stderr(io.StringIO()):
            ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
    wh, instance = Warehouse(str(warehouse)), open_instance(str(warehouse))
    try:
        templates, mats, checks = _templates(instance, wh)
        registry = Registry(wh)
        template = registry.records[TEMPLATE]
        have = set(instance.get_dynamic_partitions("documents"))
        todo = [name(i) for i in range(documents) if name(i) not in have]
        last_run = None
        for at in range(0, len(todo), BATCH):
            batch = todo[at:at + BATCH]
            for doc_id in batch:
                path = inbox / doc_id
                path.write_text(CSV)
                registry.records[doc_id] = dataclasses.replace(
                    template, doc_id=doc_id, path=str(path), source_name=doc_id, mtime_ns=path.stat().st_mtime_ns)
            for asset, table in templates.items():
                wh.write_tables(asset, {doc_id: retarget(table, doc_id) for doc_id in batch})
            instance.add_dynamic_partitions("documents", batch)
            run_id = str(uuid.uuid4())
            instance.add_run(dg.DagsterRun(job_name="ingest", run_id=run_id, status=dg.DagsterRunStatus.SUCCESS, tags={
                "dagster/asset_partition_range_start": batch[0], "dagster/asset_partition_range_end": batch[-1],
                "duocthu/seeded": "bulk"}))
            storage = instance.event_log_storage
            for template_event in mats:
                storage.store_event_batch([_clone_event(template_event, run_id, d) for d in batch])
            for (asset, _), template_event in zip(SEEDED_EVENTS, checks):
                stored = instance.fetch_materializations(
                    dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=batch), limit=len(batch)).records
                targets = {r.partition_key: (r.storage_id, r.timestamp) for r in stored}
                for doc_id in batch:
                    storage.store_event(_clone_event(template_event, run_id, doc_id, targets.get(doc_id)))
            storage.flush_pending()
            last_run = run_id
            if (at // BATCH) % 10 == 9:
                registry.save()
                print(json.dumps({"seeded": at + len(batch), "seconds": round(time.perf_counter() - started, 1),
                                  "load": os.getloadavg()[0]}), flush=True)
        registry.save()
        figures["seed_bulk_seconds"] = round(time.perf_counter() - started, 1)
        if tables:  # from nothing: ~0.1 s a document here, the slowest part of the seed
            for asset in ASSETS:
                (warehouse / "tables" / asset / ".compacted").unlink(missing_ok=True)
            compaction.compact(wh)
        figures["compact_seconds"] = round(time.perf_counter() - started - figures["seed_bulk_seconds"], 1)
        if last_run is not None:
            cache = StatusCache.open(instance)
            everyone = {doc_id: "" for doc_id in sorted(set(instance.get_dynamic_partitions("documents")))}
            cache._save(last_run, everyone)  # a bench seeding what the ingest remembers
    finally:
        instance.dispose()
    settle = _cli_ingest(root)
    figures.update(settle_ingest=settle, seed_seconds=round(time.perf_counter() - started, 1),
                   seed_cpu_seconds=round(_cpu() - cpu0, 1), load_after=os.getloadavg()[0],
                   instance_mb=round(sum(p.stat().st_size for p in (warehouse / "dagster_home").rglob("*") if p.is_file()) / 2**20, 1))
    return figures


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cli_ingest(root: Path) -> dict:
    """`duocthu ingest INBOX --warehouse WH` as a user runs it: wall and CPU seconds."""
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run([str(BIN / "duocthu"), "ingest", str(root / "inbox"), "--warehouse", str(root / "wh")],
                          check=False, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"seconds": round(time.perf_counter() - started, 2), "cpu_seconds": round(cpu, 2), "exit": done.returncode,
            "last_line": done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]}


def _tick(root: Path, which: str) -> dict:
    from duocthu_assets.automation import inbox_sensor, nightly_reingest
    from duocthu_assets.definitions import build_definitions
    from duocthu_assets.resources import WarehouseResource
    from duocthu_assets.runtime.instance import open_instance

    warehouse = str(root / "wh")
    os.environ["DUOCTHU_INBOX"] = str(root / "inbox")
    instance, defs = open_instance(warehouse), build_definitions(warehouse)
    resources = {"warehouse": WarehouseResource(root=warehouse)}
    try:
        started, cpu = time.perf_counter(), time.process_time()
        if which == "sensor":
            # as tests/e2e/test_automation.py evaluates it (the daemon's way: the run
            # request of a partition added by the same tick resolves)
            with dg.build_sensor_context(instance_ref=instance.get_ref(), resources=resources, definitions=defs) as context:
                tick = inbox_sensor.evaluate_tick(context)
        else:
            with dg.build_schedule_context(instance=instance, resources=resources, repository_def=defs.get_repository_def()) as context:
                tick = nightly_reingest.evaluate_tick(context)
        return {"seconds": round(time.perf_counter() - started, 3), "cpu_seconds": round(time.process_time() - cpu, 3),
                "runs_requested": len(tick.run_requests or []), "skip": (tick.skip_message or "")[:80]}
    finally:
        instance.dispose()


def _review(root: Path) -> dict:
    from duocthu_assets.definitions import build_definitions
    from duocthu_assets.runtime.instance import open_instance

    warehouse = str(root / "wh")
    instance, defs = open_instance(warehouse), build_definitions(warehouse)
    try:
        job = defs.get_implicit_global_asset_job_def().get_subset(asset_selection={dg.AssetKey("review")})
        started, cpu = time.perf_counter(), time.process_time()
        with contextlib.redirect_stderr(io.StringIO()):
            result = job.execute_in_process(instance=instance, raise_on_error=False)
        return {"seconds": round(time.perf_counter() - started, 3), "cpu_seconds": round(time.process_time() - cpu, 3),
                "success": result.success}
    finally:
        instance.dispose()


def restamp(root: Path) -> dict:
    """A seed made with an earlier commit, measured with this one: every record
    stamped as built by this code (what the seed writes when run today), else
    the first ingest rebuilds every seeded document for the new code version."""
    from duocthu_assets.version import code_version

    return {"code_version": code_version(), "restamped": restamp_warehouse(root / "wh")}


def measure(root: Path, repeat: int) -> dict:
    documents = sum(1 for p in (root / "inbox").iterdir() if p.is_file())
    row: dict = {"documents": documents, "load_before": os.getloadavg()[0], "at": time.strftime("%H:%M:%S")}
    row["noop_ingest"] = [_cli_ingest(root) for _ in range(repeat)]
    for which in ("sensor", "schedule"):
        row[f"{which}_tick_unchanged"] = [_tick(root, which) for _ in range(repeat)]
    row["add_one"], row["sensor_tick_one_new"], row["schedule_tick_one_new"] = [], [], []
    for k in range(repeat):
        new = root / "inbox" / f"new_{documents:06d}_{k}.csv"
        new.write_text(f"ten_thuoc,gia\nVancomycin {k},9900\n")
        row["sensor_tick_one_new"].append(_tick(root, "sensor"))
        row["schedule_tick_one_new"].append(_tick(root, "schedule"))
        row["add_one"].append(_cli_ingest(root))
    print(json.dumps(row), flush=True)  # what is done so far, in case the rest is stopped
    row["review"] = [_review(root) for _ in range(repeat)]
    row["ui"] = ui_query_timings(root / "wh", repeat)
    row["load_after"] = os.getloadavg()[0]
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--root", required=True, help="work folder (kept): ROOT/inbox, ROOT/wh")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed-only", action="store_true")
    parser.add_argument("--measure-only", action="store_true", help="measure ROOT as it is (run one `duocthu ingest` first if the seed was stopped before its settle)")
    parser.add_argument("--restamp", action="store_true", help="measure-only: stamp a seed made by an earlier commit as built by this one")
    parser.add_argument("--skip-tables", action="store_true", help="seed: leave the consolidated tables as they are")
    parser.add_argument("--out", metavar="FILE")
    args = parser.parse_args()
    root = Path(args.root)
    result: dict = {}
    if not args.measure_only:
        result["seed"] = seed(root, args.documents, tables=not args.skip_tables)
        print(json.dumps(result["seed"]), flush=True)
    if args.restamp:
        result["restamp"] = restamp(root)
        print(json.dumps(result["restamp"]), flush=True)
    if not args.seed_only:
        result["measure"] = measure(root, args.repeat)
        print(json.dumps(result["measure"]), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
