"""The shared corpus repeated under distinct names, in one `duocthu ingest`,
watched from outside: the Dagster instance, every write-ahead log and the
peak RSS of every process, sampled while it runs.

    nice -n 5 .venv/bin/python bench/corpus_ingest.py --documents 1000 --work /tmp/x [--interval 1]

The inbox (under ``--work``, never in the repository) holds hard copies of
the corpus's PDF, DOCX, XLSX and CSV files (the mix ``bench/cost.py``
measures, as it is), cycled until ``--documents`` files: copy ``k`` of
``name.pdf`` is ``name__cKK.pdf``, so the copies of one file sort next to
each other and fall in the same worker's range (a scan's pages are read by
OCR once, not once per worker). Copies, not links: a link leading out of
the inbox is refused, and a file reached by two paths is one document.

Every ``--interval`` seconds the sampler reads, for the ingest process and
each of its descendants, the resident memory (peak kept per process, with
its depth in the tree and its command name), every ``*-wal`` file under the
warehouse and the size of ``dagster_home``. At the end: the peaks (instance
per document, largest log, RSS of the main process, of each worker, of the
largest parse child and Tesseract), the documents by status with the
reasons of those not ok, the chunks, the vectors computed and reused (the
embedding reuse across copies), CPU seconds of the whole tree and the load.
Prints one JSON object; ``--out FILE`` also writes it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.scale_ingest import _children, dir_bytes, indexed_documents, wal_files
from duocthu_assets.evaluation.runner import default_corpus_dirs

SUFFIXES = {".pdf", ".docx", ".xlsx", ".csv"}


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)


def make_corpus_inbox(inbox: Path, corpus: Path, n: int) -> list[str]:
    """``n`` hard copies of the corpus's files in ``inbox``; their names."""
    files = corpus_files(corpus)
    inbox.mkdir(parents=True, exist_ok=True)
    names = []
    for i in range(n):
        source = files[i % len(files)]
        name = f"{source.stem}__c{i // len(files):02d}{source.suffix}"
        target = inbox / name
        if not target.exists():
            shutil.copyfile(source, target)
        names.append(name)
    return names


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as fh:
            return fh.read().strip()
    except OSError:
        return "?"


class Sampler:
    """Peaks of one process tree: RSS per process, write-ahead logs, instance."""

    def __init__(self, root: int, warehouse: Path):
        self.root, self.warehouse = root, warehouse
        self.processes: dict[int, dict] = {}  # pid -> depth, comm, peak rss
        self.wal_peaks: dict[str, int] = {}
        self.instance_peak = self.rss_sum_peak = 0
        self.timeline: list[dict] = []

    def sample(self) -> None:
        tree, todo, rss_sum = _children(), [(self.root, 0)], 0
        while todo:
            pid, depth = todo.pop()
            todo.extend((child, depth + 1) for child in tree.get(pid, []))
            try:
                rss = _rss(pid)
            except OSError:
                continue
            rss_sum += rss
            seen = self.processes.setdefault(pid, {"depth": depth, "comm": _comm(pid), "rss_peak": 0})
            seen["rss_peak"] = max(seen["rss_peak"], rss)
        for name, size in wal_files(self.warehouse).items():
            self.wal_peaks[name] = max(self.wal_peaks.get(name, 0), size)
        home = self.warehouse / "dagster_home"
        self.instance_peak = max(self.instance_peak, dir_bytes(home) if home.exists() else 0)
        self.rss_sum_peak = max(self.rss_sum_peak, rss_sum)

    def mark(self, t: float) -> None:
        main = self.processes.get(self.root, {}).get("rss_peak", 0)
        self.timeline.append({"t": round(t), "instance_mb": round(self.instance_peak / 2**20, 1),
                              "main_rss_peak_mb": round(main / 2**20), "load": os.getloadavg()[0],
                              "largest_wal_mb": round(max(self.wal_peaks.values(), default=0) / 2**20, 1)})
        print(json.dumps(self.timeline[-1]), file=sys.stderr, flush=True)

    def memory(self) -> dict:
        """Peak RSS (MB) of the main process, each worker (its children),
        the largest deeper Python process and each other command."""
        mb = lambda b: round(b / 2**20)
        main = self.processes.pop(self.root, {"rss_peak": 0})
        workers = sorted((p["rss_peak"] for p in self.processes.values() if p["depth"] == 1 and p["comm"].startswith("python")),
                         reverse=True)
        deeper = collections.defaultdict(lambda: [0, 0])
        for p in self.processes.values():
            if p["depth"] >= 2 or not p["comm"].startswith("python"):
                key = f"depth{p['depth']}:{p['comm']}"
                deeper[key][0] = max(deeper[key][0], p["rss_peak"])
                deeper[key][1] += 1
        return {"main_rss_peak_mb": mb(main["rss_peak"]), "workers": len(workers),
                "worker_rss_peaks_mb": [mb(w) for w in workers[:8]],
                "others_rss_peak_mb": {k: {"peak_mb": mb(v[0]), "processes": v[1]} for k, v in sorted(deeper.items())},
                "tree_rss_sum_peak_mb": mb(self.rss_sum_peak)}


def run(command: list[str], env: dict, warehouse: Path, log: Path, interval: float, report_every: float) -> tuple[int, float, Sampler]:
    started = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        sampler, last = Sampler(proc.pid, warehouse), -report_every
        while proc.poll() is None:
            sampler.sample()
            now = time.perf_counter() - started
            if now - last >= report_every:
                last = now
                sampler.mark(now)
            time.sleep(interval)
    return proc.returncode, time.perf_counter() - started, sampler


def summarize(report: dict) -> dict:
    rows = report.get("documents", [])
    statuses = collections.Counter(d["status"] for d in rows)
    reasons = collections.Counter()
    for d in rows:
        if d["status"] != "ok":
            source = Path(d.get("source", "")).name.rsplit("__c", 1)[0]
            reasons[f"{d['status']}: {source}: {(d.get('reason') or ', '.join(d.get('failed_checks', [])))[:90]}"] += 1
    return {"statuses": dict(statuses), "not_ok": dict(reasons.most_common()),
            "chunks": sum(d.get("chunks", 0) for d in rows),
            "vectors_computed": sum(d.get("vectors_computed", 0) for d in rows),
            "vectors_reused": sum(d.get("vectors_reused", 0) for d in rows), "runs": report.get("runs")}


def main() -> None:
    import resource

    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--work", type=Path, required=True, help="folder for the inbox, the warehouse and the log")
    parser.add_argument("--corpus", type=Path, default=default_corpus_dirs()[0])
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--report-every", type=float, default=60.0)
    parser.add_argument("--seed-cache", type=Path, nargs="*", default=[], metavar="WH",
                        help="copy these warehouses' embedding_cache/ and ocr_cache/ into the new warehouse first "
                        "(vectors and OCR pages some earlier ingest paid for; content-addressed, so only equal "
                        "texts and page images are reused)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    inbox, warehouse, report = args.work / "inbox", args.work / "wh", args.work / "report.json"
    names = make_corpus_inbox(inbox, args.corpus, args.documents)
    seeded = {"embedding_cache_files": 0, "ocr_cache_files": 0}
    for source in args.seed_cache:
        for folder in ("embedding_cache", "ocr_cache"):
            if (source / folder).is_dir():
                shutil.copytree(source / folder, warehouse / folder, dirs_exist_ok=True)
                seeded[f"{folder}_files"] += sum(1 for p in (source / folder).rglob("*") if p.is_file())
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    command = [sys.executable, "-m", "duocthu_assets.cli", "ingest", str(inbox), "--warehouse", str(warehouse),
               "--report", str(report)]
    load_before = os.getloadavg()
    code, wall, sampler = run(command, env, warehouse, args.work / "ingest.log", args.interval, args.report_every)
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = summarize(json.loads(report.read_text())) if report.exists() else {}
    figures = {
        "documents": len(names), "distinct_files": len(corpus_files(args.corpus)), "returncode": code,
        "seeded_from": [str(p) for p in args.seed_cache], **seeded,
        "indexed": indexed_documents(warehouse), **result,
        "wall_seconds": round(wall), "cpu_seconds": round(child.ru_utime + child.ru_stime),
        "instance_peak_kb_per_document": round(sampler.instance_peak / len(names) / 1024, 1),
        "instance_end_kb_per_document": round(dir_bytes(warehouse / "dagster_home") / len(names) / 1024, 1),
        "largest_wal_peak_mb": round(max(sampler.wal_peaks.values(), default=0) / 2**20, 1),
        "wal_peaks_mb": {k: round(v / 2**20, 1) for k, v in sorted(sampler.wal_peaks.items(), key=lambda kv: -kv[1])[:6]},
        **sampler.memory(), "load_before": load_before, "load_after": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "timeline": sampler.timeline,
    }
    text = json.dumps(figures, indent=1, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
