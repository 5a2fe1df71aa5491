"""Index refresh after one changed document, at growing warehouse sizes,
main's code against this branch's in the same run (issue 20 item 1, issue 21
item 4).

    nice -n 5 .venv/bin/python bench/index_refresh.py --docs 1000 5000 10000 --base 812392d [--json FILE]

1. For each size, synthesizes ``chunks/<doc>.parquet`` and
   ``embeddings/<doc>.parquet`` directly (``--chunks-per-doc`` formulary
   chunks of ~60 words, random 384-dim vectors, model ``bench/synthetic@1``;
   the files the pipeline writes, with their content hashes right), plus a
   changed version of ``--rounds`` documents beside them.
2. For each variant (``base``: the commit's ``duocthu_assets`` extracted by
   ``git archive``; ``branch``: this tree), alternating ``--repeat`` times, a
   fresh process (``--worker``) builds the index from nothing on its own copy
   (hard links) of the files, opens a warm ``Searcher`` (hybrid) and answers
   a query, then ``--rounds`` times: puts one document's changed files in
   place (a rename, as the pipeline writes), refreshes the index as the
   ``search_index`` asset does (gate aside: every document passes), and
   answers a query through ``retrieval.server.search_request`` (the code
   path of ``duocthu serve``), the warm searcher reloading the index first.
   Wall and CPU seconds of the refresh and of the reload + query, and the
   bytes the refresh wrote under ``search_index/``.

Output: a table per size (medians) and ``--json FILE``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODEL_ID = "bench/synthetic@1"
DIM = 384
QUERY = "liều vancomycin cho người suy thận"


# -- the worker: runs with either variant's duocthu_assets first on sys.path ------------------


class HashEmbedder:
    """A query embedder without a model: a fixed vector per text."""

    model_id = MODEL_ID
    dim = DIM

    def embed_query(self, text: str):
        import hashlib

        import numpy as np

        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
        return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)


def _refresh_function(variant: str):
    """What the search_index asset does, gate aside, in this variant's code."""
    if variant == "branch":
        from duocthu_assets.retrieval.refresh import refresh_search_index

        return lambda wh, docs: refresh_search_index(wh, docs, model_id=MODEL_ID)
    from duocthu_assets.retrieval import build_search_index
    from duocthu_assets.retrieval.index import build_lexical, write_lexical

    def refresh(wh, docs):
        table = build_search_index(wh, docs, model_id=MODEL_ID)
        wh.write_table("search_index", table)
        write_lexical(wh, build_lexical(wh, table))

    return refresh


def _index_bytes(root: Path) -> dict[str, tuple[int, int]]:
    folder = root / "search_index"
    return {str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_size) for p in folder.rglob("*.parquet")}


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - t0, time.process_time() - c0


def worker(variant: str, root: Path, changes: Path, docs: list[str], changed: list[str]) -> dict:
    from duocthu_assets.retrieval import Searcher
    from duocthu_assets.retrieval.server import search_request
    from duocthu_assets.warehouse import Warehouse

    wh = Warehouse(root)
    refresh = _refresh_function(variant)
    _, build_s, build_cpu = _timed(lambda: refresh(wh, docs))
    searcher = Searcher(wh, HashEmbedder(), mode="hybrid")
    target = f"/search?q={urllib.parse.quote(QUERY)}&k=10"
    (status, _), load_s, load_cpu = _timed(lambda: search_request(searcher, target))
    assert int(status) == 200, (status, _)
    rounds = []
    for doc in changed:
        for asset in ("chunks", "embeddings"):
            tmp = root / asset / f".{doc}.bench.tmp"
            shutil.copyfile(changes / asset / f"{doc}.parquet", tmp)
            os.replace(tmp, root / asset / f"{doc}.parquet")
        before = _index_bytes(root)
        _, refresh_s, refresh_cpu = _timed(lambda: refresh(wh, docs))
        after = _index_bytes(root)
        written = sum(size for name, (ino, size) in after.items() if before.get(name, (None,))[0] != ino)
        (status, body), query_s, query_cpu = _timed(lambda: search_request(searcher, target))
        assert int(status) == 200 and body["hits"], (status, body)
        rounds.append(
            {"doc": doc, "refresh_s": refresh_s, "refresh_cpu_s": refresh_cpu, "bytes_written": written,
             "reload_query_s": query_s, "reload_query_cpu_s": query_cpu, "loads": searcher.loads}
        )
    index_bytes = sum(size for _, size in _index_bytes(root).values())
    return {"variant": variant, "build_s": build_s, "build_cpu_s": build_cpu, "first_query_s": load_s,
            "first_query_cpu_s": load_cpu, "index_bytes": index_bytes, "rounds": rounds}


# -- the driver ---------------------------------------------------------------------------------


def _chunk_rows(doc_id: str, n: int, rng: random.Random, salt: str = "") -> list[dict]:
    import hashlib

    from bench.search import DRUGS, SECTIONS, make_text
    from duocthu_assets.model import SCHEMA_VERSION

    rows = []
    drug = rng.choice(DRUGS)
    for i in range(n):
        text = make_text(rng, drug, 60) + salt
        section = SECTIONS[i % len(SECTIONS)]
        rows.append({
            "doc_id": doc_id, "chunk_id": f"{doc_id}:s{i:02d}:{i}", "chunk_index": i, "chunk_kind": "prose", "text": text,
            "token_count": len(text.split()), "entry_id": drug.lower(), "entry_title": drug.upper(), "section_key": f"s{i:02d}",
            "section_title": section, "section_index": i, "headings": [drug.upper(), section],
            "spans": [{"offset": 0, "length": len(text)}],
            "regions": [{"page_no": 1 + i, "printed_page": 1 + i, "bbox": [50.0, 80.0, 500.0, 700.0]}],
            "source_elements": [f"s{i:05d}"], "prev_chunk_id": None, "next_chunk_id": None,
            "content_hash": hashlib.sha256(text.encode("utf-8")).hexdigest(), "attachments": [],
            "has_quarantined_content": False, "text_source": "layer", "uncertain_spans": [], "schema_version": SCHEMA_VERSION,
        })
    return rows


def _embedding_rows(rows: list[dict], nrng) -> list[dict]:
    import numpy as np

    vectors = nrng.standard_normal((len(rows), DIM)).astype(np.float32)
    return [{"doc_id": r["doc_id"], "chunk_id": r["chunk_id"], "content_hash": r["content_hash"], "model_id": MODEL_ID,
             "dim": DIM, "vector": v.tolist(), "schema_version": r["schema_version"]} for r, v in zip(rows, vectors)]


def synthesize(root: Path, changes: Path, docs: int, per_doc: int, changed: int, seed: int) -> tuple[list[str], list[str]]:
    import numpy as np

    from duocthu_assets.embed.reuse import embeddings_table
    from duocthu_assets.schemas import table_from_rows
    from duocthu_assets.warehouse import Warehouse

    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    doc_ids = [f"bench-{i:05d}.csv" for i in range(docs)]
    wh, side = Warehouse(root), Warehouse(changes)
    batch_chunks, batch_emb = {}, {}
    for doc_id in doc_ids:
        rows = _chunk_rows(doc_id, per_doc, rng)
        batch_chunks[doc_id] = table_from_rows("chunks", rows)
        batch_emb[doc_id] = embeddings_table(_embedding_rows(rows, nrng), DIM)
        if len(batch_chunks) == 500:
            wh.write_tables("chunks", batch_chunks)
            wh.write_tables("embeddings", batch_emb)
            batch_chunks, batch_emb = {}, {}
    if batch_chunks:
        wh.write_tables("chunks", batch_chunks)
        wh.write_tables("embeddings", batch_emb)
    picked = rng.sample(doc_ids, changed)
    for doc_id in picked:
        rows = _chunk_rows(doc_id, per_doc, rng, salt=" Đã sửa.")
        side.write_table("chunks", table_from_rows("chunks", rows), doc_id)
        side.write_table("embeddings", embeddings_table(_embedding_rows(rows, nrng), DIM), doc_id)
    return doc_ids, picked


def _extract(commit: str, into: Path) -> None:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "duocthu_assets", "checks"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def _run_worker(variant: str, code_root: Path, root: Path, changes: Path, docs_file: Path, changed: list[str]) -> dict:
    env = {**os.environ, "BENCH_CODE_ROOT": str(code_root), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    out = subprocess.run(
        [sys.executable, __file__, "--worker", variant, str(root), str(changes), str(docs_file), *changed],
        check=False, env=env, capture_output=True, text=True,
    )
    if out.returncode:
        raise SystemExit(f"worker {variant} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, nargs="+", default=[1000, 5000, 10000])
    parser.add_argument("--chunks-per-doc", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3, help="changed documents per worker")
    parser.add_argument("--repeat", type=int, default=2, help="workers per variant and size, alternating")
    parser.add_argument("--base", default="812392d", help="the commit to compare with")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        variant, root, changes, docs_file, *changed = args.worker
        docs = json.loads(Path(docs_file).read_text())
        print(json.dumps(worker(variant, Path(root), Path(changes), docs, changed)))
        return 0

    results = {"base": args.base, "chunks_per_doc": args.chunks_per_doc, "sizes": {}}
    with tempfile.TemporaryDirectory(prefix="index-refresh-") as tmp:
        tmp = Path(tmp)
        base_code = tmp / "base-code"
        base_code.mkdir()
        _extract(args.base, base_code)
        codes = {"base": base_code, "branch": REPO}
        for n in args.docs:
            data, changes = tmp / f"data-{n}", tmp / f"changes-{n}"
            t0 = time.perf_counter()
            docs, picked = synthesize(data, changes, n, args.chunks_per_doc, args.rounds * args.repeat, args.seed + n)
            docs_file = tmp / f"docs-{n}.json"
            docs_file.write_text(json.dumps(docs))
            size = {"documents": n, "chunks": n * args.chunks_per_doc, "synthesize_s": round(time.perf_counter() - t0, 1), "runs": []}
            for r in range(args.repeat):
                for variant in ("base", "branch") if r % 2 == 0 else ("branch", "base"):
                    work = tmp / f"{variant}-{n}-{r}"
                    subprocess.run(["cp", "-al", str(data), str(work)], check=True)
                    load = os.getloadavg()[0]
                    run = _run_worker(variant, codes[variant], work, changes, docs_file, picked[r * args.rounds:(r + 1) * args.rounds])
                    run["loadavg"] = round(load, 2)
                    size["runs"].append(run)
                    print(f"{n} docs {variant}: build {run['build_s']:.2f}s, refresh "
                          f"{[round(x['refresh_s'], 3) for x in run['rounds']]} s, reload+query "
                          f"{[round(x['reload_query_s'], 3) for x in run['rounds']]} s, load {load:.2f}", flush=True)
                    shutil.rmtree(work)
            for variant in ("base", "branch"):
                rounds = [x for run in size["runs"] if run["variant"] == variant for x in run["rounds"]]
                size[variant] = {key: round(statistics.median(x[key] for x in rounds), 4)
                                 for key in ("refresh_s", "refresh_cpu_s", "bytes_written", "reload_query_s", "reload_query_cpu_s")}
                size[variant]["index_bytes"] = statistics.median(run["index_bytes"] for run in size["runs"] if run["variant"] == variant)
            results["sizes"][n] = size
            shutil.rmtree(data)
    print("\n| documents (chunks) | refresh wall / CPU s: base | branch | bytes written: base | branch | reload + query wall / CPU s: base | branch |")
    print("|---|---|---|---|---|---|---|")
    for n, s in results["sizes"].items():
        b, m = s["base"], s["branch"]
        print(f"| {n:,} ({s['chunks']:,}) | {b['refresh_s']:.3f} / {b['refresh_cpu_s']:.3f} | {m['refresh_s']:.3f} / {m['refresh_cpu_s']:.3f} "
              f"| {b['bytes_written']:,} | {m['bytes_written']:,} | {b['reload_query_s']:.3f} / {b['reload_query_cpu_s']:.3f} "
              f"| {m['reload_query_s']:.3f} / {m['reload_query_cpu_s']:.3f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.environ.get("BENCH_CODE_ROOT", str(REPO)))
    if os.environ.get("BENCH_CODE_ROOT"):
        sys.path.insert(1, str(REPO))  # bench.* itself
    sys.exit(main())
