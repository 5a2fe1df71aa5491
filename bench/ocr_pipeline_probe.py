"""Run the pipeline on a scanned PDF and print what it read, as JSON.

    PYTHONPATH=<ocr39 tree> python bench/ocr_pipeline_probe.py page FILE PAGE LANGUAGES DPI
    PYTHONPATH=<ocr39 tree> python bench/ocr_pipeline_probe.py parse FILE [--profile formulary]

Started by ``bench/ocr_engines.py`` with the OCR branch's tree first on
``PYTHONPATH``.

- ``page``: the OCR call alone (``ocr_pdf_page``): words with confidences.
- ``parse``: the whole PDF stage (``parse_document``, OCR on one worker):
  per page, the segments' words with the pipeline's own uncertain flags
  (a word is uncertain when it overlaps one of its segment's
  ``uncertain_spans``), the lifted blocks' text, pages still blocked, the
  OCR provenance, and the formulary's monographs and sections.

``cpu_s`` is the CPU time of the call alone (this process and its
tesseract children), without Python's start-up and imports.
"""

from __future__ import annotations

import json
import re
import resource
import sys
import time
from pathlib import Path


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def page_mode(path: str, page_no: int, languages: str, dpi: int) -> dict:
    from duocthu_assets.parse.pdf.read.ocr import OcrOptions, ocr_pdf_page

    data = Path(path).read_bytes()
    start = _cpu()
    page = ocr_pdf_page(data, page_no, OcrOptions(languages=languages, dpi=dpi))
    cpu = _cpu() - start
    words = [
        {"text": w.text, "conf": float(w.confidence), "line": f"{w.block}.{w.paragraph}.{w.line}", "bbox": list(w.bbox)}
        for w in page.words
    ]
    return {"words": words, "engine": page.engine, "version": page.version, "cpu_s": cpu}


def _segment_words(text: str, spans) -> list[dict]:
    out = []
    for m in re.finditer(r"\S+", text):
        a, b = m.start(), m.end()
        unsure = any(s.offset < b and a < s.offset + s.length for s in spans)
        out.append({"text": m.group(), "conf": None, "uncertain": unsure, "line": ""})
    return out


def parse_mode(path: str, profile: str | None) -> dict:
    import dataclasses

    from duocthu_assets.model import Format
    from duocthu_assets.parse import parse_document
    from duocthu_assets.settings import Settings

    settings = Settings(profile=profile) if profile else Settings()
    settings = dataclasses.replace(settings, pdf=dataclasses.replace(settings.pdf, ocr_workers=1))
    data = Path(path).read_bytes()
    start, wall = _cpu(), time.monotonic()
    parsed = parse_document(data, Format.PDF, settings)
    cpu, wall = _cpu() - start, time.monotonic() - wall
    pages: dict[int, dict] = {}
    for seg in parsed.segments:
        entry = pages.setdefault(seg.page_no or 0, {"words": [], "blocks": [], "ocr_segments": 0, "segments": 0})
        entry["words"] += _segment_words(seg.text, seg.uncertain_spans)
        entry["segments"] += 1
        entry["ocr_segments"] += str(getattr(seg.text_source, "value", seg.text_source)) == "ocr"
    for block in parsed.blocks:
        entry = pages.setdefault(block.page_no, {"words": [], "blocks": [], "ocr_segments": 0, "segments": 0})
        entry["blocks"].append(
            {"kind": str(getattr(block.kind, "value", block.kind)), "text": block.text, "bbox": list(block.bbox)}
        )
    sections = [
        {"entry_id": s.entry_id, "entry_title": s.entry_title, "section_key": s.section_key, "page": s.page_no}
        for s in parsed.segments
        if s.entry_id
    ]
    ocr = dataclasses.asdict(parsed.ocr) if parsed.ocr else None
    return {
        "pages": {str(k): v for k, v in pages.items()},
        "blocked": list(parsed.pages_needing_ocr),
        "ocr": ocr,
        "sections": sections,
        "cpu_s": cpu,
        "wall_s": wall,
    }


def main() -> None:
    mode = sys.argv[1]
    if mode == "page":
        out = page_mode(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    elif mode == "parse":
        profile = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--profile" else None
        out = parse_mode(sys.argv[2], profile)
    else:
        raise SystemExit(f"unknown mode {mode!r}: page or parse")
    sys.stdout.write(json.dumps(out, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main()
