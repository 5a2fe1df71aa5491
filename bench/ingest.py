"""Fixed cost per document of `duocthu ingest`, at 1, 20 and 200 documents.

Each document is a tiny CSV (two rows) with the same content, so parsing is
trivial and every vector after the first is reused: what is left is the
pipeline's own cost per document (Dagster runs, steps, checks, Parquet I/O).
Each size is measured twice: all documents good, and with one rejected
document in the middle (isolation kept: the others still finish). Also: a
re-ingest of the unchanged 200, and one evaluation of the nightly schedule
over them.

    .venv/bin/python bench/ingest.py [--sizes 1 20 200]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg  # noqa: E402

from duocthu_assets.automation import nightly_reingest  # noqa: E402
from duocthu_assets.ingest import ingest  # noqa: E402
from duocthu_assets.instance import open_instance  # noqa: E402
from duocthu_assets.resources import WarehouseResource  # noqa: E402

CSV = "ten_thuoc,gia\nAmoxicilin,1200\nGentamicin,5400\n"
LEGACY_DOC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "WordDocument".encode("utf-16-le") + b"\0" * 1024


def make_inbox(root: Path, n: int, with_bad: bool) -> Path:
    inbox = root / "inbox"
    inbox.mkdir(parents=True)
    for i in range(n):
        (inbox / f"doc_{i:04d}.csv").write_text(CSV)
    if with_bad:
        (inbox / f"doc_{n // 2:04d}_bad.doc").write_bytes(LEGACY_DOC)
    return inbox


def machine_speed() -> float:
    """Seconds for a fixed pure-Python loop, just before a measurement: this
    shared 2-vCPU machine's speed drifts by half during a session (0.70 to
    1.09 s measured), so each row says how fast the machine was."""
    started = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return round(time.perf_counter() - started, 3)


def _cpu_seconds() -> float:
    """User + system CPU of this process and of every child it has reaped
    (the ingest workers, and through them the parser children)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(n: int, with_bad: bool) -> dict:
    speed = machine_speed()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inbox = make_inbox(root, n, with_bad)
        warehouse = root / "wh"
        sink = io.StringIO()
        with contextlib.redirect_stderr(io.StringIO()):
            cpu_before = _cpu_seconds()
            started = time.perf_counter()
            result = ingest([str(inbox)], str(warehouse), out=sink, show_progress=False)
            first = time.perf_counter() - started
            cpu = _cpu_seconds() - cpu_before
        ok = sum(d.status == "ok" for d in result.documents)
        row = {"documents": n, "with_rejected": with_bad, "seconds": round(first, 2),
               "seconds_per_document": round(first / n, 4), "runs": result.runs, "ok": ok, "loop_10M_seconds": speed,
               "cpu_seconds_per_document": round(cpu / n, 4)}
        if n >= 20 and not with_bad:
            with contextlib.redirect_stderr(io.StringIO()):
                started = time.perf_counter()
                ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
                row["reingest_unchanged_seconds"] = round(time.perf_counter() - started, 3)
            os.environ["DUOCTHU_INBOX"] = str(inbox)
            instance = open_instance(str(warehouse))
            # entered and left: a schedule context left open keeps this instance
            # as Dagster's current state storage for the next size's ingest
            with dg.build_schedule_context(instance=instance, resources={"warehouse": WarehouseResource(root=str(warehouse))}) as context:
                started = time.perf_counter()
                answer = nightly_reingest(context)  # run requests, or a SkipReason
                requests = answer if isinstance(answer, list) else []
                row["nightly_schedule_eval_seconds"] = round(time.perf_counter() - started, 4)
            row["nightly_runs_requested"] = len(requests)
        return row


def measure_samples() -> dict:
    """First ingest of the sample collections (data/inbox) against a re-ingest
    of the same, unchanged files: the whole-pipeline reuse figure."""
    inbox = Path(__file__).resolve().parents[1] / "data" / "inbox"
    with tempfile.TemporaryDirectory() as tmp:
        warehouse = Path(tmp) / "wh"
        timings = []
        for _ in range(2):
            with contextlib.redirect_stderr(io.StringIO()):
                started = time.perf_counter()
                result = ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
                timings.append(time.perf_counter() - started)
        return {"samples_documents": len(result.documents), "first_seconds": round(timings[0], 2),
                "reingest_seconds": round(timings[1], 3), "reingest_fraction": round(timings[1] / timings[0], 4),
                "vectors_computed_on_reingest": sum(d.vectors_computed for d in result.documents)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 20, 200])
    parser.add_argument("--samples", action="store_true", help="also measure the sample collections' re-ingest")
    args = parser.parse_args()
    rows = []
    if args.samples:
        rows.append(measure_samples())
        print(json.dumps(rows[-1]), flush=True)
    for n in args.sizes:
        for with_bad in (False, True):
            rows.append(measure(n, with_bad))
            print(json.dumps(rows[-1]), flush=True)
    out = Path(__file__).parent / "out"
    out.mkdir(exist_ok=True)
    (out / "ingest.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
