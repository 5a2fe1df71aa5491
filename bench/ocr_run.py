"""Run the OCR bench's readers over its pages, caching each page's words.

Each reader's output for a page is kept as JSON under
``bench/out/ocr/<reader>/`` (words, confidences, CPU seconds), so scoring,
the floor sweep and the tables can be redone without OCRing again; delete a
file (or pass ``--fresh`` to ``bench/ocr.py``) to re-read a page.
"""

from __future__ import annotations

import json
import time
import zlib
from pathlib import Path

import ocr_engines
from ocr_scans import BenchPage, render_grey_png

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
        words, cpu = ocr_engines.run_tesseract(
            render_grey_png(page.pdf, page.pdf_page, dpi), languages, dpi
        )
        result = {"words": words, "cpu_s": cpu}
    elif reader == "ocrmypdf":
        per_page, cpu = ocr_engines.run_ocrmypdf(page.pdf, [page.pdf_page], languages)
        result = {"words": per_page[page.pdf_page], "cpu_s": cpu}
    elif reader == "pipeline":
        result, process_cpu = ocr_engines.run_pipeline(
            page.pdf, page.pdf_page, languages, dpi
        )
        result["process_cpu_s"] = process_cpu
    else:
        raise ValueError(f"unknown reader {reader!r}")
    result["wall_s"] = time.monotonic() - start
    result["reader"] = reader
    result["languages"], result["dpi"] = languages, dpi
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return result


def run_all(
    pages: list[BenchPage],
    readers: tuple[str, ...],
    languages: str,
    dpi: int,
    fresh: bool = False,
    log=print,
) -> dict[str, dict[str, dict]]:
    """``{reader: {page key: output}}``; a reader that fails on a page is logged and left out."""
    outputs: dict[str, dict[str, dict]] = {r: {} for r in readers}
    for reader in readers:
        for page in pages:
            try:
                outputs[reader][page.key] = read_page(
                    reader, page, languages, dpi, fresh
                )
            except (RuntimeError, OSError, ValueError) as exc:
                log(f"{reader} {page.key}: {exc}")
                continue
            out = outputs[reader][page.key]
            log(
                f"{reader:9} {page.key:50} {len(out['words']):4} words {out['cpu_s']:6.1f} CPU s"
            )
    return outputs
