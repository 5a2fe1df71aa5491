"""Debian's Tesseract models and OpenCV preprocessing, measured on the OCR
bench's development part only (issue 39, second round): word accuracy,
tone-insensitive word accuracy, numbers wrong (and outside the chosen
policy's uncertain marks), CPU seconds per page.

    nice -n 10 .venv/bin/python bench/ocr_models.py [--split dev] [--configs vie+eng Vietnamese ...] [--jobs 2]

A configuration is ``LANGS[:STEP,STEP...]``: Tesseract's languages
(``vie``, ``Vietnamese`` -- Debian's ``tesseract-ocr-script-viet``,
script/Vietnamese --, ``eng``, joined by ``+``) and the preprocessing steps
applied, in order, to the page rendered in grey at 300 dpi as the pipeline
renders it: ``deskew`` (the angle whose row profile of ink is sharpest,
-3..3 degrees by 0.1), ``denoise`` (a 3x3 median), ``nlm`` (OpenCV's
non-local means), ``up15`` / ``up2`` (upscaled 1.5 / 2 times, cubic),
``otsu`` (binarised, Otsu's threshold), ``adaptive`` (binarised, a local
Gaussian threshold). Readings are cached under ``bench/out/ocr/models/``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ocr_engines
import ocr_policy
import ocr_run
import ocr_scans
from ocr_score import PageScore, ocr_tokens, score

DPI = 300
CONFIGS = ("vie+eng", "vie", "Vietnamese", "Vietnamese+eng", "vie+Vietnamese", "vie+eng:deskew", "vie+eng:denoise",
           "vie+eng:up15", "vie+eng:otsu", "vie+eng:deskew,denoise,otsu")
POLICY = {"floor": 80.0, "number_floor": 93.0, "neighbours": True, "split": True, "confusable": True}


def preprocess(png: bytes, steps: list[str]) -> tuple[bytes, float]:
    """The page image after ``steps`` (PNG bytes) and its scale against the original."""
    import cv2
    import numpy as np

    from duocthu_assets.parse.pdf.read.ocr_image import prepare, scale_of

    grey = cv2.imdecode(np.frombuffer(png, dtype=np.uint8), cv2.IMREAD_GRAYSCALE)
    out, matrix = prepare(grey, steps)
    _ok, buf = cv2.imencode(".png", out)
    return buf.tobytes(), scale_of(matrix)


def read_one(args: tuple) -> dict:
    page, config = args
    langs, _, steps = config.partition(":")
    path = ocr_run.OUT / "models" / f"{page.key.replace('#', '.')}.{config.replace(':', '_').replace(',', '-')}.json"
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    before = resource.getrusage(resource.RUSAGE_SELF)
    png = ocr_scans.render_grey_png(page.pdf, page.pdf_page, DPI)
    scale = 1.0
    if steps:
        png, scale = preprocess(png, steps.split(","))
    after = resource.getrusage(resource.RUSAGE_SELF)
    prep_cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    words, cpu = ocr_engines.run_tesseract(png, langs, round(DPI * scale))
    out = {"words": words, "cpu_s": cpu + prep_cpu, "prep_cpu_s": prep_cpu}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="dev", choices=("dev",))  # choosing is done on the development part only
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    pages = [p for p in ocr_scans.make_synthetic(ocr_run.OUT / "scans") if p.split == args.split]
    print(f"{len(pages)} pages ({args.split}); load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    rows = []
    print("| configuration | word acc. | tone-insensitive | numbers | wrong | wrong outside uncertain | words uncertain | CPU s/page |")
    print("|" + "---|" * 8)
    for config in args.configs:
        start = time.monotonic()
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            outs = list(pool.map(read_one, [(p, config) for p in pages]))
        total, cpu = PageScore(), 0.0
        for page, out in zip(pages, outs):
            toks, flags = ocr_tokens(out["words"], flags=ocr_policy.mark(out["words"], **POLICY))
            total.add(score(page.truth, toks, flags))
            cpu += out["cpu_s"]
        row = {"config": config, "word_accuracy": total.word_accuracy, "folded_accuracy": total.folded_accuracy,
               "numbers": total.numbers, "wrong": total.wrong + total.invented, "wrong_outside": total.wrong_outside,
               "uncertain_share": total.uncertain_share, "cpu_s_per_page": cpu / len(pages), "wall_s": time.monotonic() - start}
        rows.append(row)
        print(f"| `{config}` | {100 * row['word_accuracy']:.1f} % | {100 * row['folded_accuracy']:.1f} % | {row['numbers']} "
              f"| {row['wrong']} | {row['wrong_outside']} | {100 * row['uncertain_share']:.1f} % | {row['cpu_s_per_page']:.2f} |", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"load": os.getloadavg(), "rows": rows}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
