"""Every character of a PDF accounted for (issue 16), measured per corpus PDF.

    .venv/bin/python bench/pdf_accounting.py [--json bench/out/pdf_accounting.json]

Per PDF of ``../shared/corpus`` (and the sample formulary): characters of the
text layer in, in prose, in lifted blocks, in recorded furniture, unmapped
glyphs, and unaccounted (missing + duplicated); U+FFFD (and other unmapped
glyphs) in chunk text; furniture lines found in chunk text; pages whose
printed label disagrees with the PDF's own /PageLabels; pages needing OCR;
and the PDF stage's pages per second beside ``pymupdf4llm.to_markdown``
(layout model off) in the same run, on the same bytes, one timed run each
after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from pdf import CORPUS, SAMPLE, SAMPLE_DIR, prepare_pymupdf4llm, run_pymupdf4llm  # noqa: E402

from duocthu_assets.chunking import build_chunks  # noqa: E402
from duocthu_assets.model import Format  # noqa: E402
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.parse import parse_document  # noqa: E402
from duocthu_assets.parse.pdf.engine import pymupdf  # noqa: E402
from duocthu_assets.parse.pdf.read.glyphs import UNMAPPED  # noqa: E402
from duocthu_assets.settings import Settings, collection_settings  # noqa: E402

MIN_FURNITURE_CHARS = 6  # shorter lines ("4", "iii") occur in any prose


def measure(name: str, data: bytes, settings: Settings) -> dict:
    start = time.perf_counter()
    try:
        parsed = parse_document(data, Format.PDF, settings)
    except (DocumentRejected, ParseFailed) as exc:
        return {"file": name, "error": str(exc)[:80]}
    ours = time.perf_counter() - start
    start = time.perf_counter()
    run_pymupdf4llm(data, settings)
    theirs = time.perf_counter() - start
    chunks = build_chunks(name, parsed.segments, parsed.blocks, {}, settings)
    text = "\n".join(c.text for c in chunks)
    # a furniture line in chunks: its text inside a paragraph or list item (where the
    # issue found "người sử … about:blank 12/80 … dụng lao động"); chunks also repeat
    # their heading trail, and a running title that is the document's title is a heading
    body = [s.text for s in parsed.segments if s.kind.value in ("paragraph", "list_item")]
    in_chunks = [f.text for f in parsed.furniture if len(f.text) >= MIN_FURNITURE_CHARS and any(f.text in t for t in body) and f.text in text]
    doc = pymupdf.open(stream=data, filetype="pdf")
    own = [p.get_label() for p in doc] if doc.get_page_labels() else None
    label_disagrees = sum(1 for a, b in zip(own, parsed.page_labels) if a != b) if own else 0
    acc = parsed.page_accounts
    return {
        "file": name,
        "pages": parsed.page_count,
        "chars_in": sum(a.chars_in for a in acc),
        "prose": sum(a.prose for a in acc),
        "blocks": sum(a.blocks for a in acc),
        "furniture": sum(a.furniture for a in acc),
        "unmapped": sum(a.unmapped for a in acc),
        "unaccounted": sum(a.missing + a.duplicated + abs(a.chars_in - a.prose - a.blocks - a.furniture - a.unmapped) for a in acc),
        "furniture_lines": len(parsed.furniture),
        "fffd_in_chunks": text.count("\ufffd"),
        "unmapped_in_chunks": len(UNMAPPED.findall(text)),
        "furniture_in_chunks": len(in_chunks),
        "own_labels": bool(own),
        "label_disagrees": label_disagrees,
        "pages_needing_ocr": len(parsed.pages_needing_ocr),
        "ours_pps": parsed.page_count / ours,
        "pymupdf4llm_pps": parsed.page_count / theirs,
        "ours_s": ours,
        "pymupdf4llm_s": theirs,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    prepare_pymupdf4llm()
    docs = [(SAMPLE.name, SAMPLE.read_bytes(), collection_settings(SAMPLE_DIR))]
    docs += [(p.name, p.read_bytes(), Settings()) for p in sorted(CORPUS.glob("*.pdf"))]
    measure(*docs[0])  # warm up both tools
    rows = [measure(*d) for d in docs]
    cols = ["pages", "chars_in", "prose", "blocks", "furniture", "unmapped", "unaccounted", "fffd_in_chunks", "furniture_in_chunks", "label_disagrees", "pages_needing_ocr"]
    print("| file | " + " | ".join(cols) + " | ours p/s | pymupdf4llm p/s | ratio |")
    print("|---|" + "---:|" * (len(cols) + 3))
    ok = [r for r in rows if "error" not in r]
    for r in rows:
        if "error" in r:
            print(f"| {r['file']} | refused: {r['error']} |")
            continue
        label = "" if r["own_labels"] else " (no /PageLabels)"
        cells = [str(r[c]) + (label if c == "label_disagrees" else "") for c in cols]
        print(f"| {r['file']} | " + " | ".join(cells) + f" | {r['ours_pps']:.1f} | {r['pymupdf4llm_pps']:.1f} | {r['ours_pps'] / r['pymupdf4llm_pps']:.1f}× |")
    timed = [r for r in ok if r["pages_needing_ocr"] < r["pages"]]
    pages = sum(r["pages"] for r in timed)
    ours = pages / sum(r["ours_s"] for r in timed)
    theirs = pages / sum(r["pymupdf4llm_s"] for r in timed)
    totals = {c: sum(r[c] for r in ok) for c in cols}
    print("| **ALL** (text-layer PDFs for speed) | " + " | ".join(str(totals[c]) for c in cols) + f" | **{ours:.1f}** | {theirs:.1f} | **{ours / theirs:.1f}×** |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows, "all": {"ours_pps": ours, "pymupdf4llm_pps": theirs, **totals}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
