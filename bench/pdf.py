"""Benchmark the PDF stage: speed beside pymupdf4llm and pdfplumber, table
detection quality, peak memory on a 500-page PDF.

    .venv/bin/python bench/pdf.py [--repeat 3] [--json bench/out/pdf.json]
    .venv/bin/python bench/pdf.py --speed-only [FILE ...]   # speed alone, on these files

Speed: pages per second of ``parse_document`` (this stage: text, furniture,
reading order, headings, tables and formulas lifted) on the sample formulary
and the corpus PDFs that open without a password, side by side, in the same
run and on the same bytes, with ``pymupdf4llm.to_markdown`` (layout model off:
``pymupdf4llm.use_layout(False)``) and pdfplumber's ``extract_text`` on every
page; PyMuPDF's plain ``get_text("dict")`` is shown as the floor. Each tool is
warmed up once, then the best of ``--repeat`` runs per file counts; the tools
take turns on each file, run by run, so the load of a shared machine weighs
on them alike.

Quality: table regions against the ICDAR 2013 ground truth (IoU >= 0.5) and
against the sample's gold (IoU >= 0.8, kind and shape); pages with a table
found on the corpus table documents.

Memory: a child process builds a 500-page PDF from the sample's pages and
parses it; its peak RSS (``ru_maxrss``) is reported.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from duocthu_assets.model import BlockKind, Format  # noqa: E402
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.parse import parse_document  # noqa: E402
from duocthu_assets.parse.pdf import reader as pdf_stage  # noqa: E402
from duocthu_assets.parse.pdf.engine import pymupdf  # noqa: E402
from duocthu_assets.parse.pdf.geometry import iou  # noqa: E402
from duocthu_assets.settings import Settings, collection_settings  # noqa: E402

CORPUS = Path(os.environ.get("DUOCTHU_CORPUS", REPO.parent / "shared" / "corpus"))
SAMPLE_DIR = REPO / "data" / "inbox" / "formulary"
SAMPLE = SAMPLE_DIR / "duoc_thu_mau.pdf"
ICDAR = ["camelot__icdar2013-eu-004.pdf", "camelot__icdar2013-us-012.pdf"]
TABLE_PAGES = {
    "camelot__column_span_1.pdf": [1],
    "camelot__budget.pdf": [1],
    "pdfplumber__nics-background-checks-2015-11.pdf": [1],
    "docling__2305.03393v1-pg9.pdf": [1],
    "pdfplumber__issue-336-chinese-tables.pdf": [1],
    "pdfplumber__WARN-Report-for-7-1-2015-to-03-25-2016.pdf": list(range(1, 17)),
    "camelot__icdar2013-eu-004.pdf": [2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 14],
    "camelot__icdar2013-us-012.pdf": [1],
}
MEMORY_PAGES = 500


def documents(only: list[str] | None = None) -> list[tuple[str, bytes, Settings]]:
    """The sample and every corpus PDF that opens without a password and has
    text; with ``only``, just those of them named there."""
    docs = [(SAMPLE.name, SAMPLE.read_bytes(), collection_settings(SAMPLE_DIR))] if not only or SAMPLE.name in only else []
    for path in sorted(CORPUS.glob("*.pdf")):
        if only and path.name not in only:
            continue
        data = path.read_bytes()
        try:
            parsed = parse_document(data, Format.PDF, Settings())
        except (DocumentRejected, ParseFailed):
            continue
        if parsed.pages_needing_ocr == list(range(1, parsed.page_count + 1)):
            continue  # scanned: nothing for a text extractor to do
        docs.append((path.name, data, Settings()))
    return docs


# --- the tools ------------------------------------------------------------------------


def run_ours(data: bytes, settings: Settings) -> int:
    return parse_document(data, Format.PDF, settings).page_count


def run_pymupdf4llm(data: bytes, settings: Settings) -> int:
    import pymupdf4llm

    pymupdf.TOOLS.unset_quad_corrections(True)  # as its import sets it (our parse sets it back for itself)
    doc = pymupdf.open(stream=data, filetype="pdf")
    pymupdf4llm.to_markdown(doc, show_progress=False)
    n = doc.page_count
    doc.close()
    return n


def run_pdfplumber(data: bytes, settings: Settings) -> int:
    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for page in pdf.pages:
            page.extract_text()
        return len(pdf.pages)


def run_get_text(data: bytes, settings: Settings) -> int:
    doc = pymupdf.open(stream=data, filetype="pdf")
    for page in doc:
        page.get_text("dict")
    n = doc.page_count
    doc.close()
    return n


TOOLS = {
    "duocthu PDF stage": run_ours,
    "pymupdf4llm.to_markdown (layout off)": run_pymupdf4llm,
    "pdfplumber extract_text": run_pdfplumber,
    "PyMuPDF get_text('dict') (floor)": run_get_text,
}


def prepare_pymupdf4llm() -> None:
    import pymupdf4llm

    pymupdf4llm.use_layout(False)  # the comparison the issue asks for: the ONNX layout model off
    assert pymupdf._get_layout is None


def time_tools(docs, repeat: int) -> dict[str, dict[str, float]]:
    """Pages per second of every tool on every document, best of ``repeat``.
    The tools take turns on each document, run by run (this stage, then
    pymupdf4llm, …, then again), so a change in the machine's load between
    two files shifts every tool alike and the ratios stay comparable. The
    CPU milliseconds of a document's best run (``cpu_ms``) are kept too: on
    a shared machine they move less than the wall clock."""
    prepare_pymupdf4llm()
    seconds: dict[str, dict[str, float]] = {tool: {} for tool in TOOLS}
    cpu: dict[str, dict[str, float]] = {tool: {} for tool in TOOLS}
    pages: dict[str, int] = {}
    for fn in TOOLS.values():
        fn(docs[0][1], docs[0][2])  # warm up: imports, caches
    for name, data, settings in docs:
        for _ in range(repeat):
            for tool, fn in TOOLS.items():
                start, start_cpu = time.perf_counter(), time.process_time()
                pages[name] = fn(data, settings)
                took, took_cpu = time.perf_counter() - start, time.process_time() - start_cpu
                seconds[tool][name] = min(seconds[tool].get(name, float("inf")), took)
                cpu[tool][name] = min(cpu[tool].get(name, float("inf")), took_cpu)
    out: dict[str, dict[str, float]] = {}
    for name, _, _ in docs:
        out[name] = {"pages": pages[name], **{tool: pages[name] / seconds[tool][name] for tool in TOOLS},
                     "cpu_ms": {tool: 1000 * cpu[tool][name] for tool in TOOLS}}
    total_pages = sum(pages[n] for n, _, _ in docs)
    out["ALL"] = {"pages": total_pages, **{tool: total_pages / sum(seconds[tool].values()) for tool in TOOLS},
                  "cpu_ms": {tool: 1000 * sum(cpu[tool].values()) for tool in TOOLS}}
    return out


# --- table quality --------------------------------------------------------------------------


def _match(gold: list[tuple[int, tuple]], predicted: list[tuple[int, tuple]], threshold: float) -> int:
    used: set[int] = set()
    for page, box in gold:
        best = max(((iou(box, p), i) for i, (pg, p) in enumerate(predicted) if pg == page and i not in used), default=(0.0, -1))
        if best[0] >= threshold:
            used.add(best[1])
    return len(used)


def icdar_quality() -> dict[str, float]:
    gold_n = pred_n = hit = 0
    for name in ICDAR:
        path = CORPUS / name
        gt_path = CORPUS / "groundtruth" / f"{name}.reg.xml"
        if not (path.is_file() and gt_path.is_file()):
            continue
        doc = pymupdf.open(path)
        gold = []
        for region in ET.parse(gt_path).getroot().iter("region"):
            page = int(region.get("page"))
            b = region.find("bounding-box")
            h = doc[page - 1].rect.height
            x1, y1, x2, y2 = (float(b.get(k)) for k in ("x1", "y1", "x2", "y2"))
            gold.append((page, (x1, h - y2, x2, h - y1)))
        parsed = parse_document(path.read_bytes(), Format.PDF, Settings())
        predicted = [(b.page_no, b.bbox) for b in parsed.blocks if b.kind is BlockKind.TABLE]
        hit += _match(gold, predicted, 0.5)
        gold_n += len(gold)
        pred_n += len(predicted)
    return {"tables": gold_n, "found": pred_n, "recall": hit / gold_n if gold_n else float("nan"), "precision": hit / pred_n if pred_n else float("nan")}


def sample_quality() -> dict[str, float]:
    gold = json.loads((SAMPLE_DIR / "duoc_thu_mau.gold.json").read_text(encoding="utf-8"))
    parsed = parse_document(SAMPLE.read_bytes(), Format.PDF, collection_settings(SAMPLE_DIR))
    hit = 0
    used: set[int] = set()
    for g in gold["blocks"]:
        scored = [(iou(tuple(g["bbox"]), b.bbox), i) for i, b in enumerate(parsed.blocks) if b.page_no == g["page"] and i not in used]
        best = max(scored, default=(0.0, -1))
        if best[0] >= 0.8 and parsed.blocks[best[1]].shape.value == g["shape"]:
            used.add(best[1])
            hit += 1
    n_gold = len(gold["blocks"])
    return {"blocks": n_gold, "found": len(parsed.blocks), "recall": hit / n_gold, "precision": hit / len(parsed.blocks) if parsed.blocks else float("nan")}


def table_page_recall() -> dict[str, float]:
    expected = hit = 0
    for name, pages in TABLE_PAGES.items():
        path = CORPUS / name
        if not path.is_file():
            continue
        parsed = parse_document(path.read_bytes(), Format.PDF, Settings())
        found = {b.page_no for b in parsed.blocks if b.kind is BlockKind.TABLE}
        expected += len(pages)
        hit += sum(1 for p in pages if p in found)
    return {"table_pages": expected, "recall": hit / expected if expected else float("nan")}


# --- gating: which finder ran where ---------------------------------------------------------------


def gating(docs) -> dict[str, float]:
    """Pages the rule-based finders ran on, column regions the borderless
    finder ran on, and the seconds each stage took, over all documents."""
    total: dict[str, float] = {}
    for _, data, settings in docs:
        stats: dict = {}
        pdf_stage.parse(data, settings, stats=stats)
        for key, value in stats.items():
            total[key] = total.get(key, 0) + value
    return total


# --- memory ------------------------------------------------------------------------------------


def build_big_pdf(pages: int) -> bytes:
    src = pymupdf.open(SAMPLE)
    big = pymupdf.open()
    while big.page_count < pages:
        big.insert_pdf(src, from_page=0, to_page=min(src.page_count, pages - big.page_count) - 1)
    data = big.tobytes(garbage=3, deflate=True)
    big.close()
    return data


def memory_child() -> None:
    data = build_big_pdf(MEMORY_PAGES)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    stats: dict = {}
    parsed = pdf_stage.parse(data, collection_settings(SAMPLE_DIR), stats=stats)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "pages": parsed.page_count,
        "pdf_bytes": len(data),
        "seconds": seconds,
        "pages_per_second": parsed.page_count / seconds,
        "peak_rss_mb": peak / 1024,
        "rss_before_parse_mb": before / 1024,
        "segments": len(parsed.segments),
        "blocks": len(parsed.blocks),
        "stats": stats,
    }))


def measure_memory() -> dict:
    out = subprocess.run([sys.executable, __file__, "--memory-child"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- report --------------------------------------------------------------------------------------


def speed_table(speed) -> list[str]:
    """Pages per second per tool and file, the ratio to pymupdf4llm, and the
    CPU milliseconds of both (best run)."""
    tools = list(TOOLS)
    lines = [
        "| file | pages | " + " | ".join(tools) + " | ours ÷ pymupdf4llm | CPU ms ours / pymupdf4llm (ratio) |",
        "|---|---:|" + "---:|" * (len(tools) + 2),
    ]
    for name, row in speed.items():
        ratio = row[tools[0]] / row[tools[1]]
        cells = " | ".join(f"{row[t]:.1f}" for t in tools)
        ours_ms, theirs_ms = row["cpu_ms"][tools[0]], row["cpu_ms"][tools[1]]
        label = f"**{name}**" if name == "ALL" else name
        lines.append(f"| {label} | {row['pages']} | {cells} | {ratio:.1f}× | {ours_ms:.1f} / {theirs_ms:.1f} ({theirs_ms / ours_ms:.1f}×) |")
    return lines


def report(speed, quality, memory, gate) -> str:
    lines = speed_table(speed)
    lines.append("")
    ic, sa, tp = quality["icdar"], quality["sample"], quality["table_pages"]
    lines.append(f"Tables, ICDAR 2013 regions (IoU ≥ 0.5): {ic['tables']} in the ground truth, {ic['found']} found, recall {ic['recall']:.2f}, precision {ic['precision']:.2f}")
    lines.append(f"Blocks, sample gold (IoU ≥ 0.8 and shape): {sa['blocks']} in the gold, {sa['found']} found, recall {sa['recall']:.2f}, precision {sa['precision']:.2f}")
    lines.append(f"Corpus table pages with a table found: {tp['recall']:.2f} of {tp['table_pages']}")
    lines.append(
        f"Memory: {memory['pages']} pages ({memory['pdf_bytes'] / 1e6:.1f} MB PDF) parsed in {memory['seconds']:.1f} s "
        f"({memory['pages_per_second']:.0f} pages/s), peak RSS {memory['peak_rss_mb']:.0f} MB "
        f"(of which {memory['rss_before_parse_mb']:.0f} MB before parsing), {memory['blocks']} blocks lifted"
    )
    for label, g in (("Corpus and sample", gate), (f"{memory['pages']}-page PDF", memory["stats"])):
        lines.append(
            f"Gating, {label}: rule-based finders ran on {g['pages_rule_finders']:.0f} of {g['pages']:.0f} pages "
            f"({g['pages_with_blocks']:.0f} pages hold a block); the borderless finder on {g['column_regions_borderless_finder']:.0f} "
            f"of {g['column_regions']:.0f} column regions; seconds: reading {g['seconds_read']:.2f}, "
            f"rule-based finders {g['seconds_rule_finders']:.2f}, layout and borderless finder {g['seconds_layout_and_borderless']:.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=REPO / "bench" / "out" / "pdf.json")
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--speed-only", nargs="*", metavar="FILE", help="time only these files (names in the corpus, or the sample's), no quality, memory or gating")
    args = parser.parse_args(argv)
    if args.memory_child:
        memory_child()
        return 0
    if args.speed_only is not None:
        speed = time_tools(documents(args.speed_only or None), args.repeat)
        print("\n".join(speed_table(speed)))
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"speed": speed, "cores": os.cpu_count()}, indent=1), encoding="utf-8")
        return 0
    memory = measure_memory()  # first, in a fresh child, before this process imports the other tools
    docs = documents()
    quality = {"icdar": icdar_quality(), "sample": sample_quality(), "table_pages": table_page_recall()}
    gate = gating(docs)
    speed = time_tools(docs, args.repeat)
    text = report(speed, quality, memory, gate)
    print(text)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"speed": speed, "quality": quality, "memory": memory, "gating": gate, "cores": os.cpu_count()}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
