"""Search latency at scale, through the same code path as ``duocthu serve``.

    .venv/bin/python bench/search.py --chunks 100000 [--queries 100] [--json FILE]

1. Synthesizes a warehouse of ``--chunks`` chunks (each document's
   ``chunks`` and ``embeddings`` files, 500 chunks a document, the index
   built from them by ``refresh_search_index`` as the asset builds it): Vietnamese formulary sentences with drug names, ATC codes and
   article numbers (~150 words each), one in twelve carrying a quarantined
   table. Vectors: ``--bases`` real passages are embedded with the default
   model, and each synthetic chunk's vector is one of them plus noise,
   re-normalised, so queries (embedded for real) see a realistic spread of
   cosines rather than random orthogonal vectors.
2. Starts the server of ``duocthu serve`` (``retrieval.server``, one warm
   ``Searcher``) on a free loopback port, waits for it to load, and sends
   ``--queries`` distinct queries as ``GET /search?q=…&k=10`` over one
   keep-alive connection, timing each request (embedding the query, ranking,
   building the answers, JSON) for each mode: the default (hybrid), dense
   and lexical.
3. In the same process and on the same matrix, the numpy brute-force limit:
   ``matrix @ q`` and ``argpartition`` for the top 10, with the query vector
   already computed (``numpy_ms``, median); and ``recall_at_10``: the share of
   the exact top 10 (that numpy product) that the server's dense mode
   returned (1.0 unless the vector search is approximate).

4. The search page (``GET /?q=…``, :mod:`duocthu_assets.retrieval.page`)
   against the JSON API (``GET /search?q=…``) on the same queries, each
   query asked of both in turn (which goes first alternates), default mode:
   ``page_vs_api`` holds both p50s and their difference.
5. Long queries: ``--long-clients`` clients (8) each sending
   2,000-character queries without pause while ordinary queries are timed
   (``long_queries``: an ordinary query's p50/p95 alone and under that
   load, with the server's query lanes and without them).

``--warehouse DIR`` keeps the synthesized warehouse there and reuses it
when its index already holds ``--chunks`` rows (a second run skips step 1).

``--json FILE`` writes ``{"chunks", "p50_ms", "p95_ms", "numpy_ms",
"recall_at_10"}`` (the default mode) plus per-mode figures and load times.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from duocthu_assets.embed.base import EmbedderConfig  # noqa: E402
from duocthu_assets.embed.factory import make_embedder  # noqa: E402
from duocthu_assets.model import SCHEMA_VERSION  # noqa: E402
from duocthu_assets.embed.reuse import embeddings_table  # noqa: E402
from duocthu_assets.retrieval import Searcher, refresh_search_index  # noqa: E402
from duocthu_assets.retrieval.query import DEFAULT_MODE, dense_scores  # noqa: E402
from duocthu_assets.retrieval.info import read_index_info  # noqa: E402
from duocthu_assets.retrieval.server import Limits, serve_in_thread  # noqa: E402
from duocthu_assets.schemas import table_from_rows  # noqa: E402
from duocthu_assets.warehouse import Warehouse  # noqa: E402

from bench.embed import SENTENCES as FORMULARY_SENTENCES  # noqa: E402

DRUGS = [
    "Amikacin", "Amoxicilin", "Ampicilin", "Azithromycin", "Cefalexin", "Cefotaxim", "Ceftriaxon", "Ciprofloxacin",
    "Clarithromycin", "Clindamycin", "Doxycyclin", "Gentamicin", "Imipenem", "Levofloxacin", "Meropenem",
    "Metronidazol", "Paracetamol", "Piperacilin", "Rifampicin", "Vancomycin", "Warfarin", "Heparin", "Insulin",
    "Digoxin", "Furosemid", "Omeprazol", "Ranitidin", "Salbutamol", "Prednisolon", "Dexamethason",
]
SECTIONS = [
    "Chỉ định", "Chống chỉ định", "Liều lượng và cách dùng", "Thận trọng", "Thời kỳ mang thai", "Thời kỳ cho con bú",
    "Tác dụng không mong muốn", "Tương tác thuốc", "Quá liều và xử trí", "Dược động học", "Bảo quản",
]
# the embedding bench's dosing sentences, plus one that names an article and an ATC code
SENTENCES = [
    *FORMULARY_SENTENCES,
    "Theo Điều {a} khoản {b}, người hành nghề dược phải ghi rõ mã ATC {atc} trên đơn thuốc.",
]
QUERIES = [
    "liều {drug} cho người suy thận", "{drug} có dùng được khi mang thai không", "tác dụng không mong muốn của {drug}",
    "{drug} tương tác với alopurinol", "bảo quản {drug} ở nhiệt độ nào", "quá liều {drug} xử trí thế nào",
    "mã ATC {atc}", "Điều {n} khoản {m}", "{drug} liều tối đa mỗi ngày cho trẻ em", "chống chỉ định của {drug}",
]


def _atc(rng: random.Random) -> str:
    return f"{rng.choice('ABCDJMNR')}{rng.randint(1, 9):02d}{rng.choice('ABCDX')}{rng.choice('ABCDE')}{rng.randint(1, 30):02d}"


def make_text(rng: random.Random, drug: str, words: int) -> str:
    parts = [f"{drug}."]
    while sum(len(p.split()) for p in parts) < words:
        parts.append(rng.choice(SENTENCES).format(a=rng.randint(1, 99), b=rng.randint(1, 24), c=rng.randint(2, 6), atc=_atc(rng)))
    return " ".join(parts)


def synthesize(warehouse: Warehouse, n: int, embedder, bases: int, seed: int) -> None:
    """Write ``n`` synthetic chunks as the pipeline would (each document's
    ``chunks`` and ``embeddings`` files, 500 chunks a document), then build
    the index from them as the ``search_index`` asset does (see the module
    docstring)."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    base_texts = [make_text(rng, rng.choice(DRUGS), 60) for _ in range(bases)]
    base_vecs = np.asarray(embedder.embed_passages(base_texts), dtype=np.float32)
    dim = base_vecs.shape[1]
    per_doc = 500
    which = nrng.integers(0, bases, size=n)
    vectors = base_vecs[which] + nrng.normal(0, 0.35 / np.sqrt(dim), size=(n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks: dict[str, list[dict]] = {}
    for i in range(n):
        doc = f"bench-{i // per_doc:04d}"
        drug = DRUGS[(i // 11) % len(DRUGS)]
        section = SECTIONS[i % len(SECTIONS)]
        key = f"s{i % len(SECTIONS):02d}"
        text = make_text(rng, drug, 150)
        quarantined = i % 12 == 5
        attachments = (
            [{"block_id": f"b{i:06d}", "kind": "table", "shape": "simple_table", "physical_page": 1 + i % 700,
              "printed_page": 1 + i % 700, "printed_label": "", "bbox": [50.0, 100.0, 500.0, 300.0], "quarantined": True,
              "header_row": [], "source_crop": f"crops/{doc}/b{i:06d}.png"}]
            if quarantined else []
        )
        chunks.setdefault(doc, []).append({
            "doc_id": doc, "chunk_id": f"{doc}:{key}:{i}", "chunk_index": i % per_doc, "chunk_kind": "prose", "text": text,
            "token_count": len(text.split()), "entry_id": drug.lower(), "entry_title": drug.upper(), "section_key": key,
            "section_title": section, "section_index": i % len(SECTIONS), "headings": [drug.upper(), section],
            "spans": [{"offset": 0, "length": len(text)}],
            "regions": [{"page_no": 1 + i % 700, "printed_page": 1 + i % 700, "printed_label": "", "bbox": [50.0, 80.0, 500.0, 700.0]}],
            "source_elements": [f"s{i:06d}"], "prev_chunk_id": None, "next_chunk_id": None,
            "content_hash": hashlib.sha256(text.encode("utf-8")).hexdigest(), "attachments": attachments,
            "has_quarantined_content": quarantined, "text_source": "layer", "uncertain_spans": [],
            "schema_version": SCHEMA_VERSION,
        })
    start = 0
    for doc, rows in chunks.items():
        warehouse.write_table("chunks", table_from_rows("chunks", rows), doc)
        emb = [{"doc_id": doc, "chunk_id": r["chunk_id"], "content_hash": r["content_hash"], "model_id": embedder.model_id,
                "dim": dim, "vector": v.tolist(), "schema_version": SCHEMA_VERSION}
               for r, v in zip(rows, vectors[start:start + len(rows)])]
        warehouse.write_table("embeddings", embeddings_table(emb, dim), doc)
        start += len(rows)
    refresh_search_index(warehouse, sorted(chunks), model_id=embedder.model_id)


def make_queries(count: int, seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    out: list[str] = []
    while len(out) < count:
        q = rng.choice(QUERIES).format(drug=rng.choice(DRUGS), atc=_atc(rng), n=rng.randint(1, 99), m=rng.randint(1, 24))
        if q not in out:
            out.append(q)
    return out


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(values), p))


def time_requests(host: str, port: int, queries: list[str], k: int, mode: str, path: str = "/search") -> tuple[list[float], list[list[str]]]:
    conn = http.client.HTTPConnection(host, port, timeout=120)
    times, ids = [], []
    try:
        for q in queries:
            target = f"{path}?{urllib.parse.urlencode({'q': q, 'k': k, 'mode': mode})}"
            t0 = time.perf_counter()
            conn.request("GET", target)
            resp = conn.getresponse()
            body = resp.read()
            times.append((time.perf_counter() - t0) * 1000)
            if resp.status != 200:
                raise SystemExit(f"bench: {target} answered {resp.status}: {body[:300]!r}")
            ids.append([h["chunk_id"] for h in json.loads(body)["hits"]] if path == "/search" else [])
    finally:
        conn.close()
    return times, ids


def time_page_vs_api(host: str, port: int, queries: list[str], k: int, mode: str) -> dict[str, float]:
    """p50 of the page and of the JSON API on the same queries, asked in
    turn (the order alternating, so neither always meets a warm cache)."""
    page, api = [], []
    for i, q in enumerate(queries):
        order = (("/", page), ("/search", api)) if i % 2 else (("/search", api), ("/", page))
        for path, into in order:
            times, _ = time_requests(host, port, [q], k, mode, path)
            into.extend(times)
    return {"page_p50_ms": round(percentile(page, 50), 2), "api_p50_ms": round(percentile(api, 50), 2),
            "page_p95_ms": round(percentile(page, 95), 2), "api_p95_ms": round(percentile(api, 95), 2),
            "difference_p50_ms": round(percentile(page, 50) - percentile(api, 50), 2)}


def long_query(rng: random.Random, chars: int = 2000) -> str:
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < chars - 20:
        words.append(rng.choice([*DRUGS, "liều", "suy", "thận", "mg/kg", "ngày", "Điều", str(rng.randint(1, 999)), _atc(rng)]))
    return " ".join(words)[:chars]


def time_under_long_queries(searcher: Searcher, queries: list[str], k: int, clients: int, limits) -> dict[str, float]:
    """An ordinary query's latency alone, then while ``clients`` threads
    send 2,000-character queries without pause, on a server with ``limits``."""
    import threading

    server, thread = serve_in_thread(searcher, port=0, limits=limits)
    host, port = server.server_address[:2]
    stop = threading.Event()
    long_times: list[float] = []
    refused: list[int] = []

    def hammer(seed: int) -> None:
        rng = random.Random(seed)
        conn = http.client.HTTPConnection(host, port, timeout=300)
        while not stop.is_set():
            target = f"/search?{urllib.parse.urlencode({'q': long_query(rng), 'k': k})}"
            t0 = time.perf_counter()
            conn.request("GET", target)
            resp = conn.getresponse()
            resp.read()
            if resp.status == 200:
                long_times.append((time.perf_counter() - t0) * 1000)
            else:
                refused.append(resp.status)
        conn.close()

    try:
        alone, _ = time_requests(host, port, queries, k, DEFAULT_MODE)
        workers = [threading.Thread(target=hammer, args=(i,), daemon=True) for i in range(clients)]
        for w in workers:
            w.start()
        time.sleep(2)
        loaded, _ = time_requests(host, port, queries, k, DEFAULT_MODE)
        stop.set()
        for w in workers:
            w.join(timeout=300)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    return {"alone_p50_ms": round(percentile(alone, 50), 2), "alone_p95_ms": round(percentile(alone, 95), 2),
            "loaded_p50_ms": round(percentile(loaded, 50), 2), "loaded_p95_ms": round(percentile(loaded, 95), 2),
            "long_p50_ms": round(percentile(long_times, 50), 2) if long_times else None, "long_answered": len(long_times), "long_refused_busy": len(refused)}


class PrecomputedEmbedder:
    """The query vectors computed beforehand: the serve path minus the model."""

    def __init__(self, embedder, queries: list[str]):
        from duocthu_assets.retrieval import normalize_query

        self.model_id, self.dim = embedder.model_id, embedder.dim
        self.vectors = {normalize_query(q): np.asarray(embedder.embed_query(normalize_query(q)), dtype=np.float32) for q in queries}

    def embed_query(self, text: str) -> np.ndarray:
        return self.vectors[text]


def time_api(searcher: Searcher, queries: list[str], k: int, mode: str, embedder) -> tuple[list[float], list[float]]:
    """``Searcher.respond`` + the JSON body, as the server runs them, with a
    precomputed query vector: what ranking and answering cost without the
    model. Wall and CPU time (the process's, all threads): on a machine shared
    with other work the CPU time is what the query would take alone."""
    from duocthu_assets.retrieval import answer_payload

    times, cpu = [], []
    for q in queries:
        t0, c0 = time.perf_counter(), time.process_time()
        answers, notes = searcher.respond(q, k, mode=mode, embedder=embedder)
        json.dumps(answer_payload(answers, query=q, notes=notes), ensure_ascii=False, indent=2, sort_keys=True)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return times, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--bases", type=int, default=64, help="real passages embedded to seed the synthetic vectors")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--warehouse", metavar="DIR", help="keep (and reuse) the synthesized warehouse here")
    parser.add_argument("--long-clients", type=int, default=8, help="clients sending 2,000-character queries (0: skip)")
    parser.add_argument("--only-page", action="store_true", help="only steps 4 and 5 (the page and long queries)")
    args = parser.parse_args()

    embedder = make_embedder(EmbedderConfig.from_env())
    queries = make_queries(args.queries, args.seed)
    result: dict = {"chunks": args.chunks, "mode": DEFAULT_MODE, "k": args.k, "queries": len(queries), "loadavg_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        warehouse = Warehouse(args.warehouse or tmp)
        info = read_index_info(warehouse)
        if info is None or info.rows != args.chunks:
            t0 = time.perf_counter()
            synthesize(warehouse, args.chunks, embedder, args.bases, args.seed)
            result["synthesize_s"] = round(time.perf_counter() - t0, 2)
        if args.only_page:
            searcher = Searcher(warehouse, embedder, mode=DEFAULT_MODE)
            searcher.warm()
            result.update(page_and_long_queries(searcher, queries, args))
            result["loadavg_end"] = os.getloadavg()[0]
            return emit(result, args.json)
        result["index_bytes"] = sum(p.stat().st_size for p in Path(warehouse.path("search_index").path).rglob("*.parquet"))

        searcher = Searcher(warehouse, embedder, mode=DEFAULT_MODE)
        t0 = time.perf_counter()
        index = searcher.index()  # reads the file and builds the BM25 index (hybrid)
        result["load_s"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        Searcher(warehouse, embedder, mode="dense").index()
        result["load_dense_only_s"] = round(time.perf_counter() - t0, 2)
        searcher.warm()

        server, thread = serve_in_thread(searcher, port=0)
        host, port = server.server_address[:2]
        try:
            time_requests(host, port, queries[:5], args.k, DEFAULT_MODE)  # warm-up, not counted
            modes = {}
            dense_ids: list[list[str]] = []
            for mode in ("hybrid", "dense", "lexical"):
                times, ids = time_requests(host, port, queries, args.k, mode)
                modes[mode] = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
                if mode == "dense":
                    dense_ids = ids
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)
        result.update(page_and_long_queries(searcher, queries, args))
        pre = PrecomputedEmbedder(embedder, queries)
        for mode in ("hybrid", "dense", "lexical"):
            times, cpu = time_api(searcher, queries, args.k, mode, pre)
            modes[mode].update(
                no_model_p50_ms=round(percentile(times, 50), 2),
                no_model_p95_ms=round(percentile(times, 95), 2),
                no_model_cpu_p50_ms=round(percentile(cpu, 50), 2),
                no_model_cpu_p95_ms=round(percentile(cpu, 95), 2),
            )

        # the numpy brute-force limit and exact top 10, on the same matrix
        qvecs = [np.asarray(embedder.embed_query(q), dtype=np.float32) for q in queries]
        t_embed, c_embed = [], []
        for q in queries[:20]:
            t0, c0 = time.perf_counter(), time.process_time()
            embedder.embed_query(q)
            t_embed.append((time.perf_counter() - t0) * 1000)
            c_embed.append((time.process_time() - c0) * 1000)
        times, cpu_np, recalls = [], [], []
        chunk_ids = index.rows.column("chunk_id").to_pylist()
        for qv, got in zip(qvecs, dense_ids):
            t0, c0 = time.perf_counter(), time.process_time()
            scores = index.vectors @ qv
            np.argpartition(-scores, args.k)[: args.k]
            times.append((time.perf_counter() - t0) * 1000)
            cpu_np.append((time.process_time() - c0) * 1000)
            exact = dense_scores(index, qv)
            exact_ids = {chunk_ids[p] for p in np.argsort(-exact, kind="stable")[: args.k]}
            recalls.append(len(exact_ids & set(got)) / len(exact_ids))
    result.update(
        p50_ms=modes[DEFAULT_MODE]["p50_ms"],
        p95_ms=modes[DEFAULT_MODE]["p95_ms"],
        numpy_ms=round(statistics.median(times), 2),
        recall_at_10=round(float(np.mean(recalls)), 4),
        numpy_cpu_ms=round(statistics.median(cpu_np), 2),
        embed_query_ms=round(statistics.median(t_embed), 2),
        embed_query_cpu_ms=round(statistics.median(c_embed), 2),
        modes=modes,
        loadavg_end=os.getloadavg()[0],
        machine={"python": platform.python_version(), "cpus": os.cpu_count(), "numpy": np.__version__},
    )
    return emit(result, args.json)


def page_and_long_queries(searcher: Searcher, queries: list[str], args: argparse.Namespace) -> dict:
    """Steps 4 and 5 of the module docstring."""
    server, thread = serve_in_thread(searcher, port=0)
    host, port = server.server_address[:2]
    try:
        time_page_vs_api(host, port, queries[:5], args.k, DEFAULT_MODE)  # warm-up
        out: dict = {"page_vs_api": time_page_vs_api(host, port, queries, args.k, DEFAULT_MODE)}
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    if args.long_clients:
        ordinary = queries[: max(10, len(queries) // 4)]
        out["long_queries"] = {
            "clients": args.long_clients,
            "with_lanes": time_under_long_queries(searcher, ordinary, args.k, args.long_clients, Limits()),
            "without_lanes": time_under_long_queries(searcher, ordinary, args.k, args.long_clients, Limits(long_query_chars=10**9, workers=10**4)),
        }
    return out


def emit(result: dict, json_file: str | None) -> int:
    text = json.dumps(result, indent=1)
    print(text)
    if json_file:
        Path(json_file).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
