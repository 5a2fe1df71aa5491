"""Is the custom SQLite event log worth its coupling? (issue 19 item 3)

The same ingest (bench/ingest.py's tiny two-row CSVs, into a fresh
warehouse) with the instance's event log written by:

- ``custom``: duocthu's own ``dagster.yaml``, ``PooledSqliteEventLogStorage``
  (duocthu_assets/runtime/event_log.py; it sets ``DAGSTER_EVENT_BATCH_SIZE``
  to 1000 when imported);
- ``stock``: Dagster's ``SqliteEventLogStorage``, Dagster's defaults (no
  event batching);
- ``stock-batched``: Dagster's ``SqliteEventLogStorage`` with
  ``DAGSTER_EVENT_BATCH_SIZE=1000`` (a step's materializations and a run's
  planned events written as one batch).

Every other setting is duocthu's own (the stock ``dagster.yaml`` is duocthu's
without its ``event_log_storage`` block). Each ingest runs in a process of
its own (the event-log module and these variables are process-wide), the
variants alternating round after round. Per ingest: wall and CPU seconds per
document (user + system of the process and every child it reaped), instance
bytes per document, events per document (the runs' own logs), the storage
class that actually wrote them. One JSON line per ingest.

    nice -n 5 .venv/bin/python bench/event_log_choice.py [--documents 20 200] [--rounds 2]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ingest import _cpu_seconds, machine_speed, make_inbox  # noqa: E402
from bench.instance_growth import instance_figures  # noqa: E402
from duocthu_assets.runtime import instance as runtime_instance  # noqa: E402

VARIANTS = ("custom", "stock", "stock-batched")
BATCH_SIZE_ENV = "DAGSTER_EVENT_BATCH_SIZE"


def stock_dagster_yaml() -> str:
    """duocthu's ``dagster.yaml`` without its event-log override, and without
    duocthu's marker (so ``ensure_dagster_home`` leaves it as written)."""
    head, _, _ = runtime_instance.DAGSTER_YAML.partition("# Dagster's SQLite event log")
    text = head.replace(runtime_instance.MARKER, "# written by bench/event_log_choice.py", 1)
    if "event_log_storage" in text or text.startswith(runtime_instance.MARKER):
        raise RuntimeError("bench/event_log_choice.py: duocthu's dagster.yaml changed shape; update stock_dagster_yaml")
    return text


def measure_one(variant: str, documents: int) -> dict:
    from duocthu_assets.ingest.run import ingest

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inbox = make_inbox(root, documents, with_bad=False)
        warehouse = root / "wh"
        home = runtime_instance.dagster_home_for(str(warehouse))
        if variant != "custom":
            home.mkdir(parents=True)
            (home / "dagster.yaml").write_text(stock_dagster_yaml())
        with contextlib.redirect_stderr(io.StringIO()):
            cpu_before = _cpu_seconds()
            started = time.perf_counter()
            result = ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
            wall = time.perf_counter() - started
            cpu = _cpu_seconds() - cpu_before
        instance = runtime_instance.open_instance(str(warehouse))
        storage = type(instance.event_log_storage).__name__
        instance.dispose()
        figures = instance_figures(home)
    n = len(result.documents)
    return {
        "variant": variant,
        "storage_class": storage,
        "event_batch_size": os.environ.get(BATCH_SIZE_ENV, ""),
        "documents": n,
        "ok": sum(d.status == "ok" for d in result.documents),
        "runs": result.runs,
        "seconds_per_document": round(wall / n, 4),
        "cpu_seconds_per_document": round(cpu / n, 4),
        "kb_per_document": round(figures["bytes"] / n / 1024, 1),
        "events_per_document": round(figures["events"] / n, 1),
        "index_events_per_document": round(figures["index_events"] / n, 1),
        "files": figures["files"],
    }


def variant_env(variant: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop(BATCH_SIZE_ENV, None)  # custom: set by the event-log module itself
    if variant == "stock-batched":
        env[BATCH_SIZE_ENV] = "1000"
    return env


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--one", choices=VARIANTS, help=argparse.SUPPRESS)  # a child: one ingest
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one, args.documents[0])), flush=True)
        return
    rows = []
    for round_no in range(args.rounds):
        for documents in args.documents:
            # alternate the order too: round 0 custom first, round 1 stock first
            order = args.variants if round_no % 2 == 0 else list(reversed(args.variants))
            for variant in order:
                speed = machine_speed()
                load = os.getloadavg()[0]
                child = subprocess.run(
                    [sys.executable, __file__, "--one", variant, "--documents", str(documents)],
                    env=variant_env(variant), capture_output=True, text=True, check=True,
                )
                row = json.loads(child.stdout.strip().splitlines()[-1])
                row.update(round=round_no, loop_10M_seconds=speed, load_1min=round(load, 2))
                rows.append(row)
                print(json.dumps(row), flush=True)
    out = Path(__file__).parent / "out"
    out.mkdir(exist_ok=True)
    (out / "event_log_choice.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
