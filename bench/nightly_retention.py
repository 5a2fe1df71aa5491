"""The Dagster instance over nightly cycles, with and without retention.

    nice -n 10 .venv/bin/python bench/nightly_retention.py --documents 1000 --nights 30 [--changed 0.01] [--no-prune | --runs-only]

Seeds ``--documents`` of bench's tiny CSVs with one `duocthu ingest`, then
each night: ``--changed`` of the documents (drawn at random, seeded) get a
new row; the nightly schedule's tick is evaluated through Dagster (as the
daemon does) and each run it requests is executed (one run of the ``ingest``
job per changed document, in process, with the request's partition and
tags); what the success sensor does after it is done (the document recorded
as built), and one index refresh run per night (the sensor requests one per
ingest run; one a night here, to keep the bench short). Then `duocthu
prune`'s retention: superseded runs deleted, then inside the runs kept the
rows of the documents rebuilt since (``--runs-only``: whole runs only, the
retention before issue 41's item 2; ``--no-prune``: none). After each night: the instance's
bytes on disk, its *used* bytes (SQLite's free pages, which the next writes
reuse, left out), runs, and runs deleted.

Prints one JSON line per night, then a summary; ``--out FILE`` writes all.
``--resume LOG`` continues an interrupted run in ``--keep DIR`` from the
lines it printed (LOG; a resumed run's lines appended): no new seed, the same nights drawn, the next night
first. A night cut short is run again; its documents already rebuilt are not
requested twice, so its ``runs_requested`` shows fewer. The kept warehouse
must have been built by this checkout's code (else refused).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg

from bench.ingest import CSV, built_by_other_code


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (the ingest's forked batches)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def instance_bytes(home: Path) -> tuple[int, int]:
    """(bytes on disk, bytes used): every file under the instance's home, each
    SQLite write-ahead log first checkpointed into its database (as it is when
    no process has the instance open); for each database, its free pages
    subtracted from the used figure."""
    for wal in home.rglob("*.db-wal"):
        with contextlib.closing(sqlite3.connect(str(wal)[: -len("-wal")], timeout=60)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    total = free = 0
    for path in home.rglob("*"):
        if not path.is_file():
            continue
        total += path.stat().st_size
        if path.suffix == ".db":
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
                pages, size = conn.execute("PRAGMA freelist_count").fetchone()[0], conn.execute("PRAGMA page_size").fetchone()[0]
                free += pages * size
    return total, total - free


def index_tables(home: Path) -> dict[str, int]:
    """KB used by each table and index of the instance's event index, the largest first."""
    with contextlib.closing(sqlite3.connect(home / "history" / "runs" / "index.db")) as conn:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 6").fetchall()
    return {name: size // 1024 for name, size in rows}


def night(instance, defs, warehouse: Path, inbox: Path, changed: list[str], k: int) -> dict:
    from duocthu_assets.automation import nightly_reingest, record_built
    from duocthu_assets.inbox.registry import Registry
    from duocthu_assets.resources import WarehouseResource
    from duocthu_assets.version import code_version

    for name in changed:
        (inbox / name).write_text(CSV + f"Night {k},{k}\n")
    started = time.perf_counter()
    with dg.build_schedule_context(instance=instance, resources={"warehouse": WarehouseResource(root=str(warehouse))},
                                   repository_def=defs.get_repository_def()) as context:
        tick = nightly_reingest.evaluate_tick(context)
    requests = tick.run_requests or []
    ingest_job, refresh_job = defs.get_job_def("ingest"), defs.get_job_def("refresh_search_index")
    failed = 0
    for request in requests:
        result = ingest_job.execute_in_process(instance=instance, partition_key=request.partition_key,
                                               tags=dict(request.tags), raise_on_error=False)
        failed += not result.success
        if result.success:
            record_built(Registry(_warehouse(warehouse)), [request.partition_key], code_version())
    refresh_job.execute_in_process(instance=instance, raise_on_error=False)
    return {"night": k, "runs_requested": len(requests), "runs_failed": failed,
            "night_seconds": round(time.perf_counter() - started, 1)}


def _built_by_other_code(root: Path) -> int:
    """Documents of the kept warehouse whose last build's code version is not
    this checkout's (the nightly tick rebuilds each one: a bench resumed
    with other code measures a rebuild of everything, not the nights)."""
    from duocthu_assets.inbox.registry import Registry
    from duocthu_assets.version import code_version

    version = code_version()
    return sum(built_by_other_code(r, version) for r in Registry(_warehouse(root)).active())


def _warehouse(root: Path):
    from duocthu_assets.warehouse import Warehouse

    return Warehouse(str(root))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--nights", type=int, default=30)
    parser.add_argument("--changed", type=float, default=0.01, help="share of the documents changed each night")
    parser.add_argument("--no-prune", action="store_true", help="no retention step (the baseline)")
    parser.add_argument("--runs-only", action="store_true", help="delete whole superseded runs only")
    parser.add_argument("--keep-recent", type=int, default=10)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (kept)")
    parser.add_argument("--out", metavar="FILE")
    parser.add_argument("--resume", metavar="LOG", help="continue the run in --keep DIR that printed LOG")
    args = parser.parse_args()
    if args.resume and not args.keep:
        parser.error("--resume needs the interrupted run's --keep DIR")

    from duocthu_assets.definitions import build_definitions
    from duocthu_assets.ingest.run import ingest
    from duocthu_assets.runtime.instance import dagster_home_for, open_instance
    from duocthu_assets.runtime.retention import prune_superseded_runs

    root = Path(args.keep or tempfile.mkdtemp(prefix="duocthu-nightly-"))
    inbox, warehouse = root / "inbox", root / "wh"
    inbox.mkdir(parents=True, exist_ok=True)
    names = [f"doc_{i:06d}.csv" for i in range(args.documents)]
    rows, base, resumed_after = [], None, None
    if args.resume:
        stale = _built_by_other_code(warehouse)
        if stale:
            sys.exit(f"--resume: {stale} document(s) in {warehouse} were built by other code than this checkout's, so the "
                     "next night's tick would rebuild them all; resume with the code that ran the first nights, or "
                     "stamp them first (bench/ingest.py's restamp)")
        lines = [json.loads(line) for line in Path(args.resume).read_text().splitlines() if line.strip()]
        base = next((line for line in lines if "seed_seconds" in line), None)
        if base is None:
            sys.exit(f"--resume: {args.resume} has no seed line; give the first run's lines, a resumed run's appended")
        rows = [line for line in lines if "night" in line]
        resumed_after = len(rows)
        print(json.dumps({"resumed_after_night": resumed_after}), flush=True)
    else:
        for name in names:
            (inbox / name).write_text(CSV)
    try:
        started, cpu_started = time.perf_counter(), cpu_seconds()
        home = dagster_home_for(str(warehouse))
        if base is None:
            with contextlib.redirect_stderr(io.StringIO()):
                seeded = ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
            disk, used = instance_bytes(home)
            base = {"index_tables_kb": index_tables(home), "documents": args.documents, "ok": sum(d.status == "ok" for d in seeded.documents),
                    "seed_seconds": round(time.perf_counter() - started, 1), "disk_mb": round(disk / 2**20, 2),
                    "used_mb": round(used / 2**20, 2), "load": os.getloadavg()[0]}
            print(json.dumps(base), flush=True)
        os.environ["DUOCTHU_INBOX"] = str(inbox)
        defs = build_definitions(str(warehouse))
        check_keys = defs.resolve_asset_graph().asset_check_keys
        rng = random.Random(41)
        ever_changed: set[str] = set()
        per_night = max(1, round(args.documents * args.changed))
        instance = open_instance(str(warehouse))
        try:
            for k in range(1, args.nights + 1):
                changed = rng.sample(names, per_night)
                ever_changed.update(changed)
                if k <= len(rows):
                    continue
                with contextlib.redirect_stderr(io.StringIO()):
                    row = night(instance, defs, warehouse, inbox, changed, k)
                before_disk, before_used = instance_bytes(home)
                row.update(before_prune_disk_mb=round(before_disk / 2**20, 2), before_prune_used_mb=round(before_used / 2**20, 2))
                if not args.no_prune:
                    cpu = cpu_seconds()
                    pruned = prune_superseded_runs(instance, check_keys, keep_recent=args.keep_recent,
                                                   within_runs=not args.runs_only)
                    row.update(runs_deleted=len(pruned.runs_deleted), prune_seconds=round(pruned.seconds, 1),
                               prune_cpu_seconds=round(cpu_seconds() - cpu, 2), runs_trimmed=pruned.runs_trimmed, plumbing_events=pruned.plumbing_events,
                               partition_slices=pruned.partition_slices, check_rows_deleted=pruned.check_rows)
                disk, used = instance_bytes(home)
                row.update(disk_mb=round(disk / 2**20, 2), used_mb=round(used / 2**20, 2), runs=len(instance.get_run_ids()),
                           index_tables_kb=index_tables(home),
                           documents_ever_changed=len(ever_changed), load=round(os.getloadavg()[0], 1))
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            instance.dispose()
        kb_per_doc = base["used_mb"] * 1024 / args.documents
        last = rows[-1] if rows else {}
        summary = {
            "summary": True, "prune": not args.no_prune, "within_runs": not (args.no_prune or args.runs_only),
            "cpu_seconds": round(cpu_seconds() - cpu_started, 1), "nights": args.nights, "changed_per_night": per_night,
            "kb_per_document_after_seed": round(kb_per_doc, 1),
            "growth_used_mb": round(last.get("used_mb", 0) - base["used_mb"], 2),
            "growth_disk_mb": round(last.get("disk_mb", 0) - base["disk_mb"], 2),
            "changed_documents_share_mb": round(last.get("documents_ever_changed", 0) * kb_per_doc / 1024, 2),
            "changes_share_mb": round(args.nights * per_night * kb_per_doc / 1024, 2),
        }
        if summary["changed_documents_share_mb"]:
            summary["growth_over_share"] = round(summary["growth_used_mb"] / summary["changed_documents_share_mb"], 2)
        if resumed_after is not None:
            summary["resumed_after_night"] = resumed_after  # cpu_seconds: the nights after it only
        summary["prune_cpu_seconds"] = round(sum(r.get("prune_cpu_seconds", 0) for r in rows), 1)
        print(json.dumps(summary), flush=True)
        if args.out:
            Path(args.out).write_text(json.dumps({"seed": base, "nights": rows, "summary": summary}, indent=1) + "\n")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
