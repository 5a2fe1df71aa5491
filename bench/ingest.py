"""Fixed cost per document of `duocthu ingest`, at 1, 20 and 200 documents.

Each document is a tiny CSV (two rows) with the same content, so parsing is
trivial and every vector after the first is reused: what is left is the
pipeline's own cost per document (Dagster runs, steps, checks, Parquet I/O).
Each size is measured twice: all documents good, and with one rejected
document in the middle (isolation kept: the others still finish). Also: a
re-ingest of the unchanged 200, and one evaluation of the nightly schedule
over them.

    .venv/bin/python bench/ingest.py [--sizes 1 20 200]

Growth mode (issue 20): what one more document, a no-op ingest, a tick of
the nightly schedule and the index update cost as the warehouse grows. One
warehouse is grown to each size in turn by real ingests of tiny CSVs (the
seeding time is reported, not measured against anything), then at that size:
a no-op ingest of the whole inbox, one tick of ``nightly_reingest`` through
Dagster's evaluation (``build_schedule_context`` + ``evaluate_tick``), and an
ingest of the inbox with one new document in it, with the time of its index
refresh and of its summary:

    .venv/bin/python bench/ingest.py --grow 0 1000 10000 [--keep DIR]
    .venv/bin/python bench/ingest.py --grow-existing DIR   # DIR/inbox + DIR/wh, as seeded earlier
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
from duocthu_assets.ingest.run import ingest  # noqa: E402
from duocthu_assets.runtime.instance import open_instance  # noqa: E402
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


class _Timed:
    """Wall time spent in a few functions of ``duocthu_assets.ingest.run`` and
    the modules it calls (``report``, ``rounds``) during one ingest, by wrapping them where they are
    looked up (``summarize`` twice: ``ingest()`` calls it, and so does
    ``summarize_unchanged``)."""

    NAMES = {
        "run": ("scan", "register_files", "refresh_index_until_current", "summarize", "summarize_unchanged",
                "remember_outcomes", "remember_snapshot"),
        "report": ("summarize",),
        "rounds": ("execute_round",),
    }

    def __init__(self):
        import importlib

        self.modules = {m: importlib.import_module(f"duocthu_assets.ingest.{m}") for m in self.NAMES}
        self.seconds, self.saved = {}, []

    def __enter__(self) -> dict[str, float]:
        for module_name, names in self.NAMES.items():
            module = self.modules[module_name]
            for name in names:
                original = getattr(module, name, None)
                if original is None:
                    continue
                self.saved.append((module, name, original))

                def wrapped(*args, __original=original, __name=name, **kwargs):
                    started = time.perf_counter()
                    try:
                        return __original(*args, **kwargs)
                    finally:
                        self.seconds[__name] = self.seconds.get(__name, 0.0) + time.perf_counter() - started

                setattr(module, name, wrapped)
        return self.seconds

    def __exit__(self, *exc) -> None:
        for module, name, original in self.saved:
            setattr(module, name, original)


def _timed_ingest(inbox: Path, warehouse: Path) -> tuple[float, float, dict[str, float], object]:
    with contextlib.redirect_stderr(io.StringIO()), _Timed() as parts:
        cpu_before = _cpu_seconds()
        started = time.perf_counter()
        result = ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
        wall = time.perf_counter() - started
        cpu = _cpu_seconds() - cpu_before
    return wall, cpu, {k: round(v, 3) for k, v in parts.items()}, result


def _schedule_tick_seconds(inbox: Path, warehouse: Path) -> tuple[float, float, int, str]:
    """One tick of the nightly schedule as the daemon evaluates it."""
    from duocthu_assets.definitions import build_definitions

    os.environ["DUOCTHU_INBOX"] = str(inbox)
    instance = open_instance(str(warehouse))
    defs = build_definitions(str(warehouse))
    try:
        with dg.build_schedule_context(
            instance=instance,  # open already, as the daemon's is
            resources={"warehouse": WarehouseResource(root=str(warehouse))},
            repository_def=defs.get_repository_def(),
        ) as context:
            started, cpu = time.perf_counter(), time.process_time()
            tick = nightly_reingest.evaluate_tick(context)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        instance.dispose()
    return seconds, cpu, len(tick.run_requests or []), tick.skip_message or ""


def measure_at_size(inbox: Path, warehouse: Path, label: str) -> dict:
    """The growth figures at the warehouse's current size: an ingest of the
    inbox with one new document in it, then a no-op ingest (nothing changed
    since that one), then a tick of the nightly schedule."""
    documents = sum(1 for p in inbox.iterdir() if p.is_file())
    row: dict = {"documents": documents, "loop_10M_seconds": machine_speed(), "label": label, "loadavg_before": os.getloadavg()[0]}
    new = inbox / f"new_{documents:06d}.csv"
    new.write_text(f"ten_thuoc,gia\nVancomycin {documents},9900\n")
    wall, cpu, parts, result = _timed_ingest(inbox, warehouse)
    row.update(add_one_seconds=round(wall, 3), add_one_cpu_seconds=round(cpu, 3), add_one_runs=result.runs, add_one_parts=parts,
               index_update_seconds=parts.get("refresh_index_until_current"),
               add_one_status=[d.status for d in result.documents if d.doc_id.startswith("new_")][-1:])
    if documents:
        for attempt in (1, 2):
            wall, cpu, parts, result = _timed_ingest(inbox, warehouse)
            row.update({f"noop{attempt}_ingest_seconds": round(wall, 3), f"noop{attempt}_cpu_seconds": round(cpu, 3),
                        f"noop{attempt}_runs": result.runs, f"noop{attempt}_parts": parts,
                        f"noop{attempt}_rebuilt": sum(d.rebuilt for d in result.documents)})
        for attempt in (1, 2):
            seconds, cpu, requested, skip = _schedule_tick_seconds(inbox, warehouse)
            row.update({f"tick{attempt}_seconds": round(seconds, 3), f"tick{attempt}_cpu_seconds": round(cpu, 3),
                        f"tick{attempt}_runs_requested": requested, f"tick{attempt}_skip": skip})
    row["loadavg_after"] = os.getloadavg()[0]
    return row


def seed(inbox: Path, warehouse: Path, size: int, batch: int) -> None:
    """Grow the inbox to ``size`` documents, ``batch`` new files per real
    ingest (each a `duocthu ingest` of the whole inbox: its runs, instance,
    registry and tables are the ones a user's ingest writes). A batch that
    ends is kept: an interrupted seed resumes where it stopped."""
    have = sum(1 for p in inbox.iterdir() if p.is_file())
    while have < size:
        upto = min(size, have + batch)
        for i in range(have, upto):
            (inbox / f"doc_{i:06d}.csv").write_text(CSV)
        cpu_before = _cpu_seconds()
        wall, _, _, result = _timed_ingest(inbox, warehouse)
        seeded = {"seed_to": upto, "seed_seconds": round(wall, 1), "seed_cpu_seconds": round(_cpu_seconds() - cpu_before, 1),
                  "seed_ok": sum(d.status == "ok" for d in result.documents), "runs": result.runs,
                  "loadavg": os.getloadavg()[0], "at": time.strftime("%H:%M:%S")}
        print(json.dumps(seeded), flush=True)
        have = upto


def built_by_other_code(record, version: str) -> bool:
    """The registry record was last built by a code version other than ``version``."""
    return bool(record.built) and record.built.get("code_version") != version


def restamp(warehouse: Path) -> int:
    """Record every document of ``warehouse`` as built by this code version
    (its ``built`` and its remembered outcome's key), as if this code had
    built it: a warehouse seeded with another commit is then measured with
    this one without rebuilding 10,000 documents (the tiny CSVs' files are
    the same bytes under both). Returns the records changed. A bench aid
    only: `duocthu ingest` never does this."""
    from duocthu_assets.inbox.registry import Registry
    from duocthu_assets.ingest.report import outcome_key
    from duocthu_assets.version import code_version
    from duocthu_assets.warehouse import Warehouse

    registry = Registry(Warehouse(str(warehouse)))
    version, changed = code_version(), 0
    for record in registry.records.values():
        if built_by_other_code(record, version):
            old_key = outcome_key(record.built)
            record.built = {**record.built, "code_version": version}
            if record.outcome and record.outcome.get("built") == old_key:
                record.outcome = {**record.outcome, "built": outcome_key(record.built)}
            changed += 1
    registry.save()
    return changed


def grow(sizes: list[int], keep: str | None, batch: int = 1000, seed_only: bool = False) -> list[dict]:
    """Grow one warehouse through ``sizes`` (real ingests of tiny CSVs, at
    most ``batch`` new documents per ingest) and measure at each size."""
    rows = []
    tmp = tempfile.mkdtemp(prefix="duocthu-grow-") if keep is None else None
    root = Path(keep or tmp)
    inbox, warehouse = root / "inbox", root / "wh"
    inbox.mkdir(parents=True, exist_ok=True)
    try:
        for size in sorted(sizes):
            seed(inbox, warehouse, size, batch)
            if seed_only:
                continue
            rows.append(measure_at_size(inbox, warehouse, f"grow {size}"))
            print(json.dumps(rows[-1]), flush=True)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 20, 200])
    parser.add_argument("--samples", action="store_true", help="also measure the sample collections' re-ingest")
    parser.add_argument("--grow", type=int, nargs="+", metavar="N", help="growth mode: measure at each warehouse size")
    parser.add_argument("--keep", metavar="DIR", help="growth mode: grow the warehouse in DIR (kept) instead of a temporary one")
    parser.add_argument("--seed-batch", type=int, default=1000, metavar="N", help="growth mode: new documents per seeding ingest")
    parser.add_argument("--seed-only", action="store_true", help="growth mode: seed to the sizes, measure nothing")
    parser.add_argument("--restamp", action="store_true",
                        help="with --grow-existing: first record DIR's documents as built by this code version (see restamp())")
    parser.add_argument("--grow-existing", metavar="DIR", help="growth figures at the current size of DIR/inbox + DIR/wh")
    args = parser.parse_args()
    out = Path(__file__).parent / "out"
    out.mkdir(exist_ok=True)
    if args.grow or args.grow_existing:
        if args.grow_existing:
            root = Path(args.grow_existing)
            if args.restamp:
                print(json.dumps({"restamped": restamp(root / "wh")}), flush=True)
            rows = [measure_at_size(root / "inbox", root / "wh", f"existing {root}")]
            print(json.dumps(rows[-1]), flush=True)
        else:
            rows = grow(args.grow, args.keep, args.seed_batch, args.seed_only)
        (out / "ingest_grow.json").write_text(json.dumps(rows, indent=1))
        return
    rows = []
    if args.samples:
        rows.append(measure_samples())
        print(json.dumps(rows[-1]), flush=True)
    for n in args.sizes:
        for with_bad in (False, True):
            rows.append(measure(n, with_bad))
            print(json.dumps(rows[-1]), flush=True)
    (out / "ingest.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
