"""Querying the warehouse at scale: per-document files vs the consolidated
tables (``tables/<asset>/part-NN.parquet``) vs the same rows in one file.

Seeding (fast path): the sample collections in data/inbox are ingested once
for real (``duocthu ingest``), then their ``chunks`` and ``embeddings`` files
are cloned under new doc_ids (doc_id and chunk_id rewritten, every other
value kept) until the warehouse holds N documents. Then:

- the per-document files are compacted (all assets present: timed), then one
  document is replaced and compacted again (incremental), then compacted with
  nothing changed;
- three queries on ``chunks`` run with DuckDB, pandas and polars over each
  layout: count the rows; one section's text (filter + projection); rows per
  document (group by). Each is timed warm: one run to warm the page cache,
  then the median of ``--repeat`` runs (the per-document files of more than
  1,000 documents: one run, tens of seconds each, right after seeding).

    .venv/bin/python bench/query.py [--docs 1000 10000] [--repeat 5] [--source WAREHOUSE]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import duckdb  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

from duocthu_assets.compaction import compact, compact_asset, encode_part  # noqa: E402
from duocthu_assets.warehouse import Warehouse, stamp_table  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ASSETS = ("chunks", "embeddings")
SECTION = "lieu_luong_va_cach_dung"


def machine_speed() -> float:
    """Seconds for a fixed pure-Python loop (this shared machine's speed drifts)."""
    started = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return round(time.perf_counter() - started, 3)


def templates(source: Path | None, scratch: Path) -> dict[str, dict[str, pa.Table]]:
    """asset -> doc_id -> table of a really ingested warehouse."""
    if source is None:
        from duocthu_assets.ingest.run import ingest

        source = scratch / "samples"
        with contextlib.redirect_stderr(io.StringIO()):
            ingest([str(REPO / "data" / "inbox")], str(source), out=io.StringIO(), show_progress=False)
    wh = Warehouse(source)
    return {asset: {d: wh.read_table(asset, d) for d in wh.doc_ids(asset)} for asset in ASSETS}


def cloned(table: pa.Table, old: str, new: str) -> pa.Table:
    """``table`` as if its document were called ``new``."""
    table = table.set_column(table.schema.get_field_index("doc_id"), "doc_id", pa.array([new] * table.num_rows, pa.string()))
    ids = pc.replace_substring(table.column("chunk_id"), old, new, max_replacements=1)
    return table.set_column(table.schema.get_field_index("chunk_id"), "chunk_id", ids)


def seed(root: Path, n: int, source: dict[str, dict[str, pa.Table]]) -> Warehouse:
    wh = Warehouse(root)
    names = sorted(source["chunks"])
    for asset in ASSETS:
        one = []
        batch: dict[str, pa.Table] = {}
        for i in range(n):
            template = names[i % len(names)]
            doc_id = f"d{i:05d}-{template}"
            table = cloned(source[asset][template], template, doc_id).replace_schema_metadata(None)
            batch[doc_id] = table
            one.append(table)
            if len(batch) == 500:
                wh.write_tables(asset, batch)
                batch = {}
        if batch:
            wh.write_tables(asset, batch)
        target = root / "one" / f"{asset}.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(encode_part(stamp_table(asset, pa.concat_tables(one))))  # same writer settings as a part
    return wh


def timed(fn, repeat: int, warm: bool = True) -> float:
    if warm:
        fn()
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs) * 1000


def queries(layouts: dict[str, tuple[str, str]]):
    """(engine, query) -> layout -> a function running it. A layout is (glob, folder or file)."""
    import pandas as pd
    import polars as pl

    out = {}
    for layout, (glob, path) in layouts.items():
        con = duckdb.connect()
        out.setdefault(("DuckDB", "count(*)"), {})[layout] = lambda g=glob, c=con: c.execute(f"SELECT count(*) FROM '{g}'").fetchall()
        out.setdefault(("DuckDB", "one section's text"), {})[layout] = lambda g=glob, c=con: c.execute(
            f"SELECT chunk_id, text FROM '{g}' WHERE section_key = '{SECTION}'").fetchall()
        out.setdefault(("DuckDB", "rows per document"), {})[layout] = lambda g=glob, c=con: c.execute(
            f"SELECT doc_id, count(*) FROM '{g}' GROUP BY doc_id").fetchall()
        out.setdefault(("pandas", "count(*)"), {})[layout] = lambda p=path: len(pd.read_parquet(p, columns=["doc_id"]))
        out.setdefault(("pandas", "one section's text"), {})[layout] = lambda p=path: pd.read_parquet(
            p, columns=["chunk_id", "text"], filters=[("section_key", "==", SECTION)])
        out.setdefault(("pandas", "rows per document"), {})[layout] = lambda p=path: pd.read_parquet(
            p, columns=["doc_id"]).groupby("doc_id").size()
        out.setdefault(("polars", "count(*)"), {})[layout] = lambda g=glob: pl.scan_parquet(g).select(pl.len()).collect()
        out.setdefault(("polars", "one section's text"), {})[layout] = lambda g=glob: pl.scan_parquet(g).filter(
            pl.col("section_key") == SECTION).select(["chunk_id", "text"]).collect()
        out.setdefault(("polars", "rows per document"), {})[layout] = lambda g=glob: pl.scan_parquet(g).group_by(
            "doc_id").len().collect()
    return out


def bench(n: int, source: dict[str, dict[str, pa.Table]], scratch: Path, repeat: int) -> list[str]:
    root = scratch / f"wh{n}"
    started = time.perf_counter()
    wh = seed(root, n, source)
    seeded = time.perf_counter() - started
    speed = machine_speed()

    started = time.perf_counter()
    reports = compact(wh, ASSETS)
    full = time.perf_counter() - started
    one_doc = sorted(source["chunks"])[0]
    doc_id = f"d{n // 2:05d}-{one_doc}"
    for asset in ASSETS:  # the same document written again (a new file): one part per asset to redo
        wh.write_table(asset, wh.read_table(asset, doc_id).replace_schema_metadata(None), doc_id)
    started = time.perf_counter()
    again = {asset: compact_asset(wh, asset) for asset in ASSETS}
    incremental = time.perf_counter() - started
    started = time.perf_counter()
    compact(wh, ASSETS)
    noop = time.perf_counter() - started

    rows = {asset: sum(t.num_rows for t in source[asset].values()) * n // len(source[asset]) for asset in ASSETS}
    lines = [
        f"\n### {n:,} documents ({rows['chunks']:,} chunk rows; machine loop {speed} s; seeded in {seeded:.0f} s)\n",
        f"Compaction of chunks + embeddings: from nothing {full:.2f} s "
        f"({sum(len(r.parts_written) for r in reports.values())} parts); one document replaced {incremental:.3f} s "
        f"({sum(len(r.parts_written) for r in again.values())} parts rewritten); nothing changed {noop:.3f} s.\n",
        "| engine | query | per-document files | tables (16 parts) | one file | tables ÷ one file | files ÷ one file |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    print("\n".join(lines), flush=True)
    layouts = {
        "files": (str(root / "chunks") + "/*.parquet", str(root / "chunks")),
        "tables": (str(root / "tables" / "chunks") + "/*.parquet", str(root / "tables" / "chunks")),
        "one": (str(root / "one" / "chunks.parquet"), str(root / "one" / "chunks.parquet")),
    }
    for (engine, query), runs in queries(layouts).items():
        # the per-document files of a large warehouse: one run (tens of seconds each), the page cache warm from seeding
        slow = n > 1000
        ms = {layout: timed(fn, 1, warm=False) if layout == "files" and slow else timed(fn, repeat) for layout, fn in runs.items()}
        lines.append(
            f"| {engine} | {query} | {ms['files']:,.1f} ms | {ms['tables']:,.1f} ms | {ms['one']:,.1f} ms | "
            f"{ms['tables'] / ms['one']:.1f}× | {ms['files'] / ms['one']:.0f}× |"
        )
        print(lines[-1], flush=True)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--source", type=Path, help="an ingested warehouse to clone (default: ingest data/inbox)")
    args = parser.parse_args()
    os.environ.setdefault("DUOCTHU_INGEST_WORKERS", "1")
    with tempfile.TemporaryDirectory(prefix="duocthu-query-") as scratch:
        source = templates(args.source, Path(scratch))
        out = []
        for n in args.docs:
            out += bench(n, source, Path(scratch), args.repeat)
        print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
