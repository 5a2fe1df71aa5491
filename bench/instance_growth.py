"""Dagster storage per document: what `duocthu ingest` leaves in the instance.

Ingests bench/ingest.py's 200-document set (tiny CSVs, the same generator)
into a fresh warehouse, then measures its Dagster instance
(``<warehouse>/dagster_home``): bytes on disk (every file: the index, the run
storage, one SQLite file per run), events stored (every run's own event log,
by type), runs, and the same per document. Prints one JSON object.

    .venv/bin/python bench/instance_growth.py [--documents 200] [--bad] [--rebuilds N]

``--rebuilds N``: then N times a new version of every document (each CSV's
price changed, as a code upgrade rebuilds everything) ingested again, and the
instance's bytes after each: what every rebuild adds per document (the
instance keeps every run's events; nothing removes a superseded run).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ingest import make_inbox  # noqa: E402  (the generator of the bench set)
from duocthu_assets.ingest.run import ingest  # noqa: E402


def instance_figures(home: Path) -> dict:
    files = [p for p in home.rglob("*") if p.is_file()]
    run_dbs = [p for p in files if p.parent.name == "runs" and p.suffix == ".db" and p.stem not in ("runs", "index")]
    by_type: Counter[str] = Counter()
    event_bytes = 0
    for db in run_dbs:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            for kind, count, size in conn.execute(
                "SELECT dagster_event_type, count(*), sum(length(event)) FROM event_logs GROUP BY dagster_event_type"
            ):
                by_type[kind or "log message"] += count
                event_bytes += size or 0
    index = home / "history" / "runs" / "index.db"
    with contextlib.closing(sqlite3.connect(index)) as conn:
        index_events = conn.execute("SELECT count(*) FROM event_logs").fetchone()[0]
        check_rows = conn.execute("SELECT count(*) FROM asset_check_executions").fetchone()[0]
    return {
        "bytes": sum(p.stat().st_size for p in files),
        "files": len(files),
        "run_files": len(run_dbs),
        "events": sum(by_type.values()),
        "event_json_bytes": event_bytes,
        "index_events": index_events,
        "check_execution_rows": check_rows,
        "events_by_type": dict(by_type.most_common()),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--bad", action="store_true", help="one rejected document in the middle")
    parser.add_argument("--keep", help="copy the instance here, to look at it")
    parser.add_argument("--rebuilds", type=int, default=0, help="then rebuild every document N times (a new version of each)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inbox = make_inbox(root, args.documents, args.bad)
        warehouse = root / "wh"
        started = time.perf_counter()
        with contextlib.redirect_stderr(io.StringIO()):
            result = ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
        seconds = time.perf_counter() - started
        figures = instance_figures(warehouse / "dagster_home")
        after_rebuilds = []
        for k in range(1, args.rebuilds + 1):
            for csv in sorted(inbox.rglob("*.csv")):
                csv.write_text(csv.read_text() + f"Rebuild {k},{k}\n")  # a new version: one more row
            with contextlib.redirect_stderr(io.StringIO()):
                again = ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
            rebuilt = sum(d.rebuilt for d in again.documents)
            total = sum(p.stat().st_size for p in (warehouse / "dagster_home").rglob("*") if p.is_file())
            after_rebuilds.append({"rebuilt": rebuilt, "ok": sum(d.status == "ok" for d in again.documents),
                                   "kb_per_document": round(total / len(again.documents) / 1024, 1)})
        if args.keep:
            import shutil
            shutil.copytree(warehouse / "dagster_home", args.keep)
    n = len(result.documents)
    print(json.dumps({
        "documents": n,
        "ok": sum(d.status == "ok" for d in result.documents),
        "runs": result.runs,
        "ingest_seconds": round(seconds, 1),
        "kb_per_document": round(figures["bytes"] / n / 1024, 1),
        "events_per_document": round(figures["events"] / n, 1),
        "event_json_kb_per_document": round(figures["event_json_bytes"] / n / 1024, 1),
        **figures,
        **({"after_rebuilds": after_rebuilds} if after_rebuilds else {}),
    }, indent=1))


if __name__ == "__main__":
    main()
