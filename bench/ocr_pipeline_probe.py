"""Run the pipeline's OCR on one PDF page and print its words as JSON.

    PYTHONPATH=/work/wt-ocr39 python bench/ocr_pipeline_probe.py FILE PAGE LANGUAGES DPI

Started by ``bench/ocr_engines.py`` with the OCR branch's tree first on
``PYTHONPATH``; prints ``{"words": [...], "engine", "version", "cpu_s"}``
where ``cpu_s`` is the CPU time of the OCR call alone (this process and its
tesseract child), without Python's start-up and imports.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path


def main() -> None:
    path, page_no, languages, dpi = (
        sys.argv[1],
        int(sys.argv[2]),
        sys.argv[3],
        int(sys.argv[4]),
    )
    from duocthu_assets.parse.pdf.read.ocr import OcrOptions, ocr_pdf_page

    data = Path(path).read_bytes()
    before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    before_self = time.process_time()
    page = ocr_pdf_page(data, page_no, OcrOptions(languages=languages, dpi=dpi))
    after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - before_self
    cpu += (after_children.ru_utime - before_children.ru_utime) + (
        after_children.ru_stime - before_children.ru_stime
    )
    words = [
        {
            "text": w.text,
            "conf": float(w.confidence),
            "line": f"{w.block}.{w.line}",
            "bbox": list(w.bbox),
        }
        for w in page.words
    ]
    out = {
        "words": words,
        "engine": page.engine,
        "version": page.version,
        "languages": page.languages,
        "dpi": page.dpi,
        "cpu_s": cpu,
    }
    sys.stdout.write(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
