"""One large `duocthu ingest`, watched from outside: every write-ahead log,
the Dagster instance and the memory of the process tree, sampled while it runs.

    nice -n 10 .venv/bin/python bench/scale_ingest.py --documents 10000 [--keep DIR] [--interval 1]

Writes bench's tiny CSV documents (``bench/ingest.py``'s generator) into a
fresh inbox, runs ``python -m duocthu_assets.cli ingest`` on it as a child
process and samples, every ``--interval`` seconds:

- every ``*-wal`` / ``*.wal`` file under the warehouse (SQLite's and
  DuckDB's write-ahead logs), its size; the peak of each;
- the Dagster instance (every file under ``dagster_home``), bytes;
- the memory of the ingest process and every descendant: the sum of their
  PSS (a page shared by a forked child and its parent counted once, in
  shares) and the largest single RSS.

At the end: the peaks, per document where it means something, how many
documents the ingest reported ok and how many the search index holds.
``--report-every`` prints a sample line every so many seconds (a timeline).
Prints one JSON object; ``--out FILE`` also writes it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ingest import CSV

PAGE = os.sysconf("SC_PAGE_SIZE")


def make_inbox(inbox: Path, n: int) -> None:
    inbox.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (inbox / f"doc_{i:06d}.csv").write_text(CSV)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def _memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process, bytes: PSS shares each page among the
    processes that map it (forked children share their parent's pages)."""
    rss = pss = 0
    with open(f"/proc/{pid}/smaps_rollup") as fh:
        for line in fh:
            if line.startswith("Rss:"):
                rss = int(line.split()[1]) * 1024
            elif line.startswith("Pss:"):
                pss = int(line.split()[1]) * 1024
    return rss, pss


def tree_memory(root: int) -> tuple[int, int, int]:
    """(sum of PSS, largest RSS, processes) of ``root`` and its descendants, bytes."""
    tree, todo, pss_sum, rss_max, count = _children(), [root], 0, 0, 0
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        try:
            rss, pss = _memory(pid)
        except OSError:
            continue
        pss_sum, rss_max, count = pss_sum + pss, max(rss_max, rss), count + 1
    return pss_sum, rss_max, count


def wal_files(warehouse: Path) -> dict[str, int]:
    found = {}
    for path in warehouse.rglob("*"):
        if path.name.endswith(("-wal", ".wal")):
            try:
                found[str(path.relative_to(warehouse))] = path.stat().st_size
            except OSError:
                continue
    return found


def dir_bytes(path: Path) -> int:
    total = 0
    for p in path.rglob("*"):
        try:
            if p.is_file():
                total += p.stat().st_size
        except OSError:
            continue
    return total


def indexed_documents(warehouse: Path) -> int:
    from duocthu_assets.retrieval.info import read_index_info
    from duocthu_assets.warehouse import Warehouse

    info = read_index_info(Warehouse(str(warehouse)))
    return len(info.documents) if info else 0


def watch(command: list[str], warehouse: Path, interval: float, report_every: float, env: dict) -> dict:
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peaks: dict[str, int] = {}
    peak = {"instance_bytes": 0, "pss_sum_bytes": 0, "rss_max_process_bytes": 0, "processes": 0, "wal_total_bytes": 0}
    timeline, last_report = [], -report_every
    stderr_tail: list[str] = []
    import threading

    def drain():
        for line in proc.stderr:
            stderr_tail.append(line.decode(errors="replace").rstrip())
            del stderr_tail[:-40]

    threading.Thread(target=drain, daemon=True).start()
    while proc.poll() is None:
        pss_sum, rss_max, n = tree_memory(proc.pid)
        wals = wal_files(warehouse)
        home = warehouse / "dagster_home"
        instance = dir_bytes(home) if home.exists() else 0
        for name, size in wals.items():
            peaks[name] = max(peaks.get(name, 0), size)
        for key, value in (("instance_bytes", instance), ("pss_sum_bytes", pss_sum), ("rss_max_process_bytes", rss_max),
                           ("processes", n), ("wal_total_bytes", sum(wals.values()))):
            peak[key] = max(peak[key], value)
        now = time.perf_counter() - started
        if now - last_report >= report_every:
            last_report = now
            biggest = max(wals.items(), key=lambda kv: kv[1], default=("", 0))
            sample = {"t": round(now), "instance_mb": round(instance / 2**20, 1), "pss_sum_mb": round(pss_sum / 2**20),
                      "biggest_wal": biggest[0], "biggest_wal_mb": round(biggest[1] / 2**20, 1)}
            timeline.append(sample)
            print(json.dumps(sample), file=sys.stderr, flush=True)
        time.sleep(interval)
    wall = time.perf_counter() - started
    return {"returncode": proc.returncode, "wall_seconds": round(wall, 1), "wal_peaks_bytes": peaks, "peaks": peak,
            "timeline": timeline, "stderr_tail": stderr_tail[-10:] if proc.returncode not in (0, 1) else []}


def main() -> None:
    import resource

    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (kept) instead of a temporary folder")
    parser.add_argument("--inbox", metavar="DIR", help="ingest this inbox instead of writing tiny CSVs")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("--report-every", type=float, default=30.0, help="seconds between timeline lines")
    parser.add_argument("--out", metavar="FILE", help="also write the JSON here")
    parser.add_argument("--code", metavar="DIR", help="run the ingest of the duocthu checkout in DIR (a `git archive` of "
                        "another commit), for a before/after")
    args = parser.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="duocthu-scale-"))
    try:
        inbox = Path(args.inbox) if args.inbox else root / "inbox"
        if not args.inbox:
            make_inbox(inbox, args.documents)
        documents = sum(1 for p in inbox.rglob("*") if p.is_file())
        warehouse, report = root / "wh", root / "report.json"
        env = {**os.environ, "PYTHONPATH": str(Path(args.code or Path(__file__).resolve().parents[1]).absolute())}
        command = [sys.executable, "-m", "duocthu_assets.cli", "ingest", str(inbox), "--warehouse", str(warehouse),
                   "--quiet", "--report", str(report)]
        load_before = os.getloadavg()[0]
        watched = watch(command, warehouse, args.interval, args.report_every, env)
        child = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = json.loads(report.read_text()) if report.exists() else {"documents": []}
        rows = result.get("documents", [])
        ok = sum(1 for d in rows if d.get("status") == "ok")
        instance_end = dir_bytes(warehouse / "dagster_home")
        peaks = watched["peaks"]
        figures = {
            "documents": documents, "ok": ok, "indexed": indexed_documents(warehouse),
            "wall_seconds": watched["wall_seconds"], "cpu_seconds": round(child.ru_utime + child.ru_stime, 1),
            "returncode": watched["returncode"],
            "largest_wal_peak_mb": round(max(watched["wal_peaks_bytes"].values(), default=0) / 2**20, 1),
            "wal_peaks_mb": {k: round(v / 2**20, 1) for k, v in sorted(watched["wal_peaks_bytes"].items(),
                                                                        key=lambda kv: -kv[1])[:8]},
            "instance_peak_kb_per_document": round(peaks["instance_bytes"] / max(documents, 1) / 1024, 1),
            "instance_end_kb_per_document": round(instance_end / max(documents, 1) / 1024, 1),
            "pss_sum_peak_mb": round(peaks["pss_sum_bytes"] / 2**20), "rss_max_process_peak_mb": round(peaks["rss_max_process_bytes"] / 2**20),
            "processes_peak": peaks["processes"], "load_before": load_before, "load_after": os.getloadavg()[0],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "timeline": watched["timeline"],
            "stderr_tail": watched["stderr_tail"],
        }
        text = json.dumps(figures, indent=1)
        print(text)
        if args.out:
            Path(args.out).write_text(text + "\n")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
