"""Run the OCR bench's readers over its pages, caching each page's words.

Each reader's output for a page is kept as JSON under
``bench/out/ocr/<reader>/`` (words, confidences, CPU seconds), so scoring,
the floor sweep and the tables can be redone without OCRing again; delete a
file (or pass ``--fresh`` to ``bench/ocr.py``) to re-read a page.
"""

from __future__ import annotations

import json
import tempfile
import time
import zlib
from pathlib import Path

import ocr_engines
import pymupdf
from ocr_scans import FORMULARY, BenchPage, render_grey_png

OUT = Path(__file__).resolve().parent / "out" / "ocr"
READERS = ("tesseract", "ocrmypdf", "pipeline")


def cache_path(reader: str, page: BenchPage, languages: str, dpi: int) -> Path:
    digest = zlib.crc32(page.pdf.read_bytes()) if page.kind == "synthetic" else 0
    name = (
        page.key.replace("#", ".") + f".{page.kind}.{digest:08x}.{languages}.{dpi}.json"
    )
    return OUT / reader / name


def read_page(
    reader: str, page: BenchPage, languages: str, dpi: int, fresh: bool = False
) -> dict:
    """The reader's words for the page (from the cache when there)."""
    path = cache_path(reader, page, languages, dpi)
    if path.is_file() and not fresh:
        return json.loads(path.read_text(encoding="utf-8"))
    start = time.monotonic()
    if reader == "tesseract":
        render_start = time.process_time()
        png = render_grey_png(page.pdf, page.pdf_page, dpi)
        render_cpu = time.process_time() - render_start
        words, cpu = ocr_engines.run_tesseract(png, languages, dpi)
        result = {"words": words, "cpu_s": cpu + render_cpu, "render_cpu_s": render_cpu}
    elif reader == "ocrmypdf":
        (words,), cpu = ocr_engines.run_ocrmypdf([(page.pdf, page.pdf_page)], languages)
        result = {"words": words, "cpu_s": cpu}
    else:
        raise ValueError(f"unknown reader {reader!r}")
    result["wall_s"] = time.monotonic() - start
    result["reader"] = reader
    result["languages"], result["dpi"] = languages, dpi
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return result


def ocrmypdf_batch(pages: list[BenchPage], languages: str, dpi: int, fresh: bool = False) -> None:
    """One ocrmypdf run per source file over its pages not yet cached (its
    start-up is seconds), each page's CPU share its part of the run's CPU
    time, split by the page's pixel area."""
    groups: dict[str, list[BenchPage]] = {}
    for page in pages:
        if fresh or not cache_path("ocrmypdf", page, languages, dpi).is_file():
            groups.setdefault(f"{page.kind}:{page.file}", []).append(page)
    for group in groups.values():
        start = time.monotonic()
        per_page, cpu = ocr_engines.run_ocrmypdf([(p.pdf, p.pdf_page) for p in group], languages)
        wall = time.monotonic() - start
        areas = [ocr_engines.page_area(p.pdf, p.pdf_page) for p in group]
        for page, words, area in zip(group, per_page, areas):
            share = area / sum(areas)
            result = {"words": words, "cpu_s": cpu * share, "wall_s": wall * share, "batch_pages": len(group),
                      "reader": "ocrmypdf", "languages": languages, "dpi": dpi}
            path = cache_path("ocrmypdf", page, languages, dpi)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")


def pipeline_batch(pages: list[BenchPage], languages: str, dpi: int, fresh: bool = False) -> None:
    """One pipeline parse per source file over its pages not yet cached, in
    page order (the sample formulary's nine scans read as one document, so
    its monographs and sections can be scored); each page's CPU share split
    by its words. The parse's document-level facts go to every page."""
    groups: dict[str, list[BenchPage]] = {}
    for page in pages:
        if fresh or not cache_path("pipeline", page, languages, dpi).is_file():
            groups.setdefault(f"{page.kind}:{page.file}", []).append(page)
    for group in groups.values():
        group.sort(key=lambda p: p.page)
        with tempfile.TemporaryDirectory(prefix="ocrbench-") as tmp:
            joined = Path(tmp) / group[0].file
            with pymupdf.open() as dst:
                for p in group:
                    with pymupdf.open(p.pdf) as src:
                        dst.insert_pdf(src, from_page=p.pdf_page - 1, to_page=p.pdf_page - 1)
                dst.save(joined)
            profile = "formulary" if group[0].file == FORMULARY.name else None
            start = time.monotonic()
            out, process_cpu = ocr_engines.run_pipeline(joined, profile)
            wall = time.monotonic() - start
        doc = {k: out[k] for k in ("blocked", "ocr", "sections")}
        doc.update(pages=[p.page for p in group], cpu_s=out["cpu_s"], process_cpu_s=process_cpu, wall_s=wall)
        counts = [len(out["pages"].get(str(i), {}).get("words", ())) + 1 for i in range(1, len(group) + 1)]
        for i, (page, count) in enumerate(zip(group, counts), start=1):
            got = out["pages"].get(str(i), {"words": [], "blocks": []})
            words = list(got["words"])
            for block in got["blocks"]:  # lifted, never chunked: shown as a crop, its numbers not as text
                words += [{"text": t, "conf": None, "uncertain": True, "line": "block"} for t in block["text"].split()]
            result = {"words": words, "blocks": got["blocks"], "cpu_s": out["cpu_s"] * count / sum(counts),
                      "blocked": (i in out["blocked"]), "document": doc, "reader": "pipeline",
                      "languages": languages, "dpi": dpi, "commit": ocr_engines.pipeline_commit()}
            path = cache_path("pipeline", page, languages, dpi)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")


BATCHED = {"ocrmypdf": ocrmypdf_batch, "pipeline": pipeline_batch}


def run_all(pages: list[BenchPage], readers: tuple[str, ...], languages: str, dpi: int,
            fresh: bool = False, log=print) -> dict[str, dict[str, dict]]:
    """``{reader: {page key: output}}``; a reader that fails on a page is logged and left out."""
    outputs: dict[str, dict[str, dict]] = {r: {} for r in readers}
    for reader in readers:
        if reader in BATCHED:
            try:
                BATCHED[reader](pages, languages, dpi, fresh)
            except (RuntimeError, OSError) as exc:
                log(f"{reader}: {exc}")
        for page in pages:
            path = cache_path(reader, page, languages, dpi)
            try:
                if reader in BATCHED:
                    outputs[reader][page.key] = json.loads(path.read_text(encoding="utf-8"))
                else:
                    outputs[reader][page.key] = read_page(reader, page, languages, dpi, fresh)
            except (RuntimeError, OSError, ValueError) as exc:
                log(f"{reader} {page.key}: {exc}")
                continue
            out = outputs[reader][page.key]
            log(f"{reader:9} {page.key:50} {len(out['words']):4} words {out['cpu_s']:6.1f} CPU s")
    return outputs
