"""The memory of an ingest's final refresh, stage by stage, on a copy of a
built warehouse (issue 41: the main process held 1.39 GB there at 10,000
tiny documents).

    nice -n 5 .venv/bin/python bench/refresh_memory.py --warehouse WH --work /tmp/x [--stage index tables job]
        [--code DIR]

The warehouse is copied into ``--work`` (its Parquet files hard-linked:
every write replaces a file by a rename, so the original is never touched;
``dagster_home`` and ``registry.json`` copied), its ``search_index/`` and
``tables/`` removed, as after a first ingest. Then each stage runs in a
fresh process over every active document:

- ``index``: ``refresh_search_index`` (what the ``search_index`` asset
  does, the gate aside: every active document is included);
- ``tables``: ``compact_asset`` of every compacted asset (what
  ``warehouse_tables`` does when every folder is listed);
- ``job``: the refresh job through Dagster, as ``duocthu ingest`` runs it
  at its end (``refresh_index_until_current``, forced).

For each: the process's RSS after its imports and at its peak (sampled
every 50 ms, and ``ru_maxrss``), Arrow's allocated bytes at their peak,
CPU and wall seconds. ``--code DIR``: the stages run with the duocthu of
DIR (a ``git archive`` of another commit), for a before/after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_warehouse(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    subprocess.run(["cp", "-al", str(source), str(target)], check=True)
    for name in ("dagster_home", "registry.json"):
        if not (source / name).exists():
            continue
        linked = target / name
        if linked.is_dir():
            shutil.rmtree(linked)
            shutil.copytree(source / name, linked)
        elif linked.exists():
            linked.unlink()
            shutil.copy2(source / name, linked)
    for name in ("search_index", "tables"):
        shutil.rmtree(target / name, ignore_errors=True)


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def stage(name: str, warehouse_root: str) -> dict:
    """In the child: run one stage, watching its memory."""
    import pyarrow as pa

    from duocthu_assets.inbox.registry import active_doc_ids
    from duocthu_assets.warehouse import Warehouse

    os.environ["DUOCTHU_WAREHOUSE"] = warehouse_root
    if os.environ.get("BENCH_DECODED_MB"):  # the process-wide cache of decoded tables, resized (warehouse.DECODED)
        from duocthu_assets.warehouse import DECODED

        DECODED.max_bytes = int(os.environ["BENCH_DECODED_MB"]) << 20
    wh = Warehouse(warehouse_root)
    if (Path(warehouse_root) / "registry.json").exists():
        active = sorted(active_doc_ids(wh))
    else:  # synthesized: every document with a chunks file
        active = sorted(p.name.removesuffix(".parquet") for p in (Path(warehouse_root) / "chunks").glob("*.parquet"))
    if name == "job":
        from duocthu_assets.definitions import build_definitions
        from duocthu_assets.ingest.index_refresh import refresh_index_until_current
        from duocthu_assets.runtime.instance import open_instance

        instance, defs = open_instance(warehouse_root), build_definitions(warehouse_root)
    peak = {"rss_mb": 0.0, "arrow_mb": 0.0}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak["rss_mb"] = max(peak["rss_mb"], _rss_mb())
            peak["arrow_mb"] = max(peak["arrow_mb"], pa.total_allocated_bytes() / 2**20)
            time.sleep(0.05)

    threading.Thread(target=watch, daemon=True).start()
    start_rss, cpu, wall = _rss_mb(), time.process_time(), time.perf_counter()
    if name == "index":
        from duocthu_assets.retrieval.refresh import refresh_search_index

        rows = refresh_search_index(wh, active).info.rows  # the model most documents used
        detail = {"chunks_indexed": rows}
    elif name == "tables":
        from duocthu_assets.compaction import COMPACTED_ASSETS, compact_asset

        detail = {"rows": sum(compact_asset(wh, asset).rows_written for asset in COMPACTED_ASSETS)}
    else:
        detail = {"runs": refresh_index_until_current(defs, instance, wh, force=True, built=None)}
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    done.set()
    peak["rss_mb"] = max(peak["rss_mb"], _rss_mb())
    return {"stage": name, "documents": len(active), "rss_after_imports_mb": round(start_rss),
            "rss_peak_mb": round(peak["rss_mb"]), "ru_maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "arrow_peak_mb": round(peak["arrow_mb"]), "cpu_s": round(cpu, 1), "wall_s": round(wall, 1), **detail}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--warehouse", type=Path)
    parser.add_argument("--synthesize", type=int, metavar="N", help="instead of --warehouse: N documents' chunks and "
                        "embeddings written directly (bench/index_refresh.py's, --chunks-per-doc each; stage index only)")
    parser.add_argument("--chunks-per-doc", type=int, default=2)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--stage", nargs="+", default=["index", "tables", "job"], choices=["index", "tables", "job"])
    parser.add_argument("--code", type=Path, help="run the stages with the duocthu of this folder")
    parser.add_argument("--child", nargs=2, metavar=("STAGE", "WAREHOUSE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(stage(*args.child)))
        return
    results = []
    if args.synthesize:
        sys.path.insert(0, str(ROOT))
        from bench.index_refresh import synthesize

        args.warehouse = args.work / f"synthetic-{args.synthesize}"
        if not (args.warehouse / "chunks").exists():
            synthesize(args.warehouse, args.work / "synthetic-changes", args.synthesize, args.chunks_per_doc, 1, 41)
    for name in args.stage:
        target = args.work / f"wh-{name}"
        copy_warehouse(args.warehouse, target)
        env = {**os.environ, "PYTHONPATH": str((args.code or ROOT).absolute())}
        load = os.getloadavg()[0]
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", name, str(target)],
                             env=env, check=True, capture_output=True, text=True).stdout
        results.append({**json.loads(out.strip().splitlines()[-1]), "load": round(load, 1),
                        "code": str(args.code or "this tree")})
        print(json.dumps(results[-1]), flush=True)
        shutil.rmtree(target, ignore_errors=True)


if __name__ == "__main__":
    main()
