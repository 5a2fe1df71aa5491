"""OCR's cost per page in the pipeline (issue 39 item 5): the corpus's
scanned pages read through ``read_scans`` (render, Tesseract, no cache) and
``scan_content`` (OpenCV's rules and pictures, the words made a page), one
worker, at each dpi given. CPU seconds (this process and its ``tesseract``
children) per page are the figure: wall time on a shared machine says
more about the load than about OCR. Pages/s per core = 1 / CPU s per page.

    python bench/ocr_speed.py [--dpi 300 200] [--steps] [files under the corpus ...]

``--steps``: the cost of each step the second round added, one after the
other at the first dpi: ``vie+eng`` read once (the first round), the
chosen languages, then deskewing, then every number read a second time.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

from duocthu_assets.evaluation.runner import default_corpus_dirs
from duocthu_assets.parse.pdf.engine import open_pdf
from duocthu_assets.parse.pdf.read import ocr_pages
from duocthu_assets.parse.pdf.read.ocr import OcrOptions
from duocthu_assets.parse.pdf.read.ocr_pages import read_scans
from duocthu_assets.parse.pdf.read.page import read_page
from duocthu_assets.parse.pdf.read.scan_page import scan_content
from duocthu_assets.parse.pdf.reader import PdfReader
from duocthu_assets.settings import Settings
from duocthu_assets.settings.pdf import PdfSettings

FILES = ["docling__ocr_test_scanned.pdf", "camelot__image_scanned_report.pdf", "vnlaw__06-bct.signed.pdf",
         "vnlaw__28-pt.signed.pdf", "vnlaw__59-nd.signed.pdf"]


def cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def read_file(data: bytes, pages: list[int], settings: PdfSettings) -> dict:
    """The file's scanned ``pages`` read as the pipeline reads them: OCR, then
    each page's content from its scan; the scans by page."""
    scans = read_scans(data, pages, settings)
    doc = open_pdf(data)
    try:
        for p in pages:
            scan_content(read_page(doc[p - 1], settings), scans[p], settings)
    finally:
        doc.close()
    return scans


def measure(files: list[str], settings: PdfSettings) -> tuple[int, float]:
    """Pages and CPU seconds of reading the files' scanned pages (no cache)."""
    corpus = default_corpus_dirs()[0]
    total_pages, total_cpu = 0, 0.0
    for name in files:
        path = Path(corpus) / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        pages = PdfReader(data, Settings(), PdfSettings(ocr=False)).pages_needing_ocr
        started = cpu()
        read_file(data, pages, settings)
        total_pages, total_cpu = total_pages + len(pages), total_cpu + cpu() - started
    return total_pages, total_cpu


def steps(dpi: int, files: list[str]) -> int:
    chosen = PdfSettings().ocr_languages
    variants = [("vie+eng, read once (first round)", "vie+eng", (), ""), (f"{chosen}, read once", chosen, (), ""),
                (f"{chosen}, deskewed", chosen, ("deskew",), ""), (f"{chosen}, deskewed, numbers read twice", chosen, ("deskew",), "eng")]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| step | pages | CPU s per page | pages/s per core |\n|---|---|---|---|")
    for name, languages, prep, recheck in variants:
        ocr_pages.options_of = lambda s, lang=languages, p=prep, r=recheck: OcrOptions(languages=lang, dpi=s.ocr_dpi, preprocess=p, recheck_languages=r)
        pages, used = measure(files, PdfSettings(ocr_dpi=dpi, ocr_workers=1, ocr_languages=languages))
        print(f"| {name} | {pages} | {used / max(pages, 1):.2f} | {pages / used if used else 0:.2f} |", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpi", type=int, nargs="+", default=[300])
    ap.add_argument("--steps", action="store_true", help="the cost of each step added in the second round")
    ap.add_argument("files", nargs="*", default=FILES)
    args = ap.parse_args(argv)
    if args.steps:
        return steps(args.dpi[0], args.files)
    corpus = default_corpus_dirs()[0]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for dpi in args.dpi:
        settings = PdfSettings(ocr_dpi=dpi, ocr_workers=1)
        total_pages, total_cpu = 0, 0.0
        for name in args.files:
            path = Path(corpus) / name
            if not path.is_file():
                print(f"{name}: not in the corpus, skipped", file=sys.stderr)
                continue
            data = path.read_bytes()
            pages = PdfReader(data, Settings(), PdfSettings(ocr=False)).pages_needing_ocr
            started_cpu, started = cpu(), time.perf_counter()
            scans = read_file(data, pages, settings)
            used, wall = cpu() - started_cpu, time.perf_counter() - started
            words = sum(len(s.ocr.words) for s in scans.values())
            total_pages += len(pages)
            total_cpu += used
            print(f"{dpi} dpi  {name}: {len(pages)} pages, {words} words, {used:.1f} CPU s ({used / max(len(pages), 1):.2f} per page), {wall:.1f} s wall")
        if total_pages:
            per = total_cpu / total_pages
            print(f"{dpi} dpi  all: {total_pages} pages, {per:.2f} CPU s per page = {1 / per:.2f} pages/s per core")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
