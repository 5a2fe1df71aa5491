"""Bounded work per document (issue 22): a CSV of one 47 MB line through
`duocthu ingest`, end to end, and chunking alone at growing sizes.

    .venv/bin/python bench/bounded_work.py ingest [--mb 47] [--toml 'parse_timeout_s = 900']
    .venv/bin/python bench/bounded_work.py chunking [--sizes 1 4 16 47] [--max-chunks 200000]
    .venv/bin/python bench/bounded_work.py embed [--paragraphs 100000] [--toml 'embed_timeout_s = 120']

``embed``: a DOCX of ``--paragraphs`` distinct paragraphs (the issue's 100k)
beside the small good CSV, its folder given the ``collection.toml`` line;
the same figures as ``ingest``: when and why the DOCX stops.

``ingest``: one inbox holding the one-line CSV (cells ``thuoc00001,``; its
own folder, with the optional ``collection.toml`` line) and a small good CSV;
one `duocthu ingest` subprocess. Prints wall seconds, CPU seconds and the
peak RSS of the largest process of the ingest (the CLI or a parser / chunk
child: ``RUSAGE_CHILDREN``), and each document's status and reason.

``chunking``: each size in a fresh subprocess (so its peak RSS is its own):
the segment the CSV parser makes of that line (built directly, so the peak
RSS is chunking's), chunked by ``build_chunks`` with
``max_chunks_per_document`` raised so the whole line is packed (or left at
the default with ``--max-chunks 20000``: refused); CPU seconds, chunks, peak
RSS before and after.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def one_line_csv(megabytes: float) -> bytes:
    cells = int(megabytes * 1_000_000 / 11)
    return "".join(f"thuoc{i:05d}," for i in range(cells)).encode()[: int(megabytes * 1_000_000)]


def many_paragraphs_docx(path: Path, paragraphs: int) -> None:
    """A DOCX of a heading and ``paragraphs`` distinct paragraphs, its body
    written as one XML string (python-docx's add_paragraph is quadratic)."""
    import io
    import zipfile
    from xml.sax.saxutils import escape

    import docx

    document = docx.Document()
    document.add_heading("Danh mục thuốc", level=1)
    document.add_paragraph("PLACEHOLDER")
    buffer = io.BytesIO()
    document.save(buffer)
    body = "".join(
        f"<w:p><w:r><w:t>{escape(f'Thuốc số {i}: uống {i % 7 + 1} viên mỗi ngày, sau bữa ăn, theo chỉ định của bác sĩ.')}"
        "</w:t></w:r></w:p>"
        for i in range(paragraphs)
    )
    with zipfile.ZipFile(buffer) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                text = data.decode("utf-8")
                start = text.rindex("<w:p>", 0, text.index("PLACEHOLDER"))
                end = text.index("</w:p>", text.index("PLACEHOLDER")) + len("</w:p>")
                data = (text[:start] + body + text[end:]).encode("utf-8")
            target.writestr(item, data)


def bench_ingest(megabytes: float, toml: str, paragraphs: int = 0) -> dict:
    with tempfile.TemporaryDirectory(prefix="bounded-") as tmp:
        inbox, warehouse, report = Path(tmp, "inbox"), Path(tmp, "wh"), Path(tmp, "report.json")
        (inbox / "long").mkdir(parents=True)
        (inbox / "good").mkdir()
        if paragraphs:
            many_paragraphs_docx(inbox / "long" / "many_paragraphs.docx", paragraphs)
            data = b""
        else:
            data = one_line_csv(megabytes)
            (inbox / "long" / "one_line.csv").write_bytes(data)
        if toml:
            (inbox / "long" / "collection.toml").write_text(toml + "\n")
        (inbox / "good" / "danh_muc.csv").write_text("Mã,Tên thuốc\nT1,Amoxicilin 500 mg\nT2,Paracetamol 500 mg\n")
        del data
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "duocthu_assets.cli", "ingest", str(inbox), "--warehouse", str(warehouse),
             "--report", str(report), "--quiet"],
            cwd=ROOT, capture_output=True, text=True,
        )
        wall = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        documents = json.loads(report.read_text())["documents"] if report.exists() else []
        return {
            "megabytes": megabytes if not paragraphs else None,
            "paragraphs": paragraphs,
            "collection_toml": toml,
            "exit_code": proc.returncode,
            "wall_seconds": round(wall, 1),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mb": usage.ru_maxrss // 1024,
            "documents": [{k: d.get(k) for k in ("doc_id", "status", "reason")} for d in documents],
            "stderr_tail": proc.stderr[-800:] if proc.returncode not in (0, 1) else "",
        }


CHUNK_ONE = r"""
import dataclasses, resource, sys, time
sys.path.insert(0, {root!r})
from bench.bounded_work import one_line_csv
from duocthu_assets.chunking import build_chunks
from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Settings
settings = Settings(max_chunks_per_document={max_chunks})
# the segment the CSV parser makes of the line (cells joined by " | "), built
# without parsing the line, so the peak RSS is chunking's own
shape = parse_document(b"a,b\n", Format.CSV, settings).segments[0]
cells = one_line_csv({mb}).decode().rstrip(",").split(",")
segments = [dataclasses.replace(shape, text=" | ".join(cells), length=len(" | ".join(cells)))]
del cells
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.process_time()
try:
    chunks = build_chunks("d", segments, [], {{}}, settings)
    outcome = f"{{len(chunks)}} chunks"
except ValueError as exc:
    outcome = f"refused: {{type(exc).__name__}}"
cpu = time.process_time() - t0
print(len(segments[0].text), round(cpu, 2), outcome, before // 1024, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def bench_chunking(sizes: list[float], max_chunks: int) -> list[dict]:
    out = []
    for mb in sizes:
        code = CHUNK_ONE.format(root=str(ROOT), mb=mb, max_chunks=max_chunks)
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
        if proc.returncode:
            out.append({"megabytes": mb, "error": proc.stderr[-600:]})
            continue
        chars, cpu, *rest = proc.stdout.split()
        rss_before, rss_after = rest[-2:]
        out.append({"megabytes": mb, "segment_chars": int(chars), "chunking_cpu_seconds": float(cpu),
                    "outcome": " ".join(rest[:-2]), "peak_rss_mb_before_chunking": int(rss_before),
                    "peak_rss_mb": int(rss_after)})
        print(json.dumps(out[-1], ensure_ascii=False), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    ing = sub.add_parser("ingest")
    ing.add_argument("--mb", type=float, default=47)
    ing.add_argument("--toml", default="")
    em = sub.add_parser("embed")
    em.add_argument("--paragraphs", type=int, default=100_000)
    em.add_argument("--toml", default="embed_timeout_s = 120")
    ch = sub.add_parser("chunking")
    ch.add_argument("--sizes", type=float, nargs="+", default=[1, 4, 16])
    ch.add_argument("--max-chunks", type=int, default=200_000)
    args = parser.parse_args()
    if args.what == "ingest":
        print(json.dumps(bench_ingest(args.mb, args.toml), ensure_ascii=False, indent=1))
    elif args.what == "embed":
        print(json.dumps(bench_ingest(0, args.toml, args.paragraphs), ensure_ascii=False, indent=1))
    else:
        bench_chunking(args.sizes, args.max_chunks)


if __name__ == "__main__":
    main()
