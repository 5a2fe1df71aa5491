"""Per-file audit of lifted tables and formulas on the corpus PDFs (issue 15).

    .venv/bin/python bench/pdf_audit.py [names...] [--json bench/out/pdf_audit.json]

For every corpus PDF that opens and has text: tables and formulas found,
table rows left under a table in prose (lines that line up with two or more
of its columns, :mod:`duocthu_assets.parse.pdf_leaks`), running-text lines
inside a table (prose swallowed), prose segments holding flattened math,
and whether every character of each block lies inside its crop rectangle.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from duocthu_assets.model import BlockKind, Format, SegmentKind  # noqa: E402
from duocthu_assets.parse import DocumentRejected, ParseFailed, parse_document  # noqa: E402
from duocthu_assets.parse.pdf_leaks import flattened_math, inspect_tables  # noqa: E402
from duocthu_assets.settings import Settings  # noqa: E402

CORPUS = Path(os.environ.get("DUOCTHU_CORPUS", REPO.parent / "shared" / "corpus"))


def audit(path: Path) -> dict | None:
    data = path.read_bytes()
    try:
        parsed = parse_document(data, Format.PDF, Settings())
    except (DocumentRejected, ParseFailed):
        return None
    if parsed.pages_needing_ocr == list(range(1, parsed.page_count + 1)):
        return None
    tables = [(b.page_no, b.bbox) for b in parsed.blocks if b.kind is BlockKind.TABLE]
    everything = [(b.page_no, b.bbox) for b in parsed.blocks]
    found = inspect_tables(data, tables, everything)
    math = [s for s in parsed.segments if s.kind is not SegmentKind.HEADING and flattened_math(s.text)]
    return {
        "pages": parsed.page_count,
        "tables": len(tables),
        "formulas": sum(1 for b in parsed.blocks if b.kind is BlockKind.FORMULA),
        "table_rows_in_prose": len(found.leaks),
        "leaks": [f"p{l.page_no}: {l.text[:70]}" for l in found.leaks][:8],
        "prose_lines_in_tables": len(found.prose_in_blocks),
        "prose_words_in_tables": sum(len(t.split()) for _, t in found.prose_in_blocks),
        "prose_in": [f"p{p}: {t[:70]}" for p, t in found.prose_in_blocks][:5],
        "flattened_math_segments": len(math),
        "math": [f"p{s.page_no}: {flattened_math(s.text)[:90]}" for s in math][:5],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args(argv)
    names = args.names or sorted(p.name for p in CORPUS.glob("*.pdf"))
    out = {}
    print("| file | pages | tables | formulas | table rows in prose | prose lines (words) in tables | prose segments with flattened math |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in names:
        row = audit(CORPUS / name)
        if row is None:
            continue
        out[name] = row
        print(f"| {name} | {row['pages']} | {row['tables']} | {row['formulas']} | {row['table_rows_in_prose']} | {row['prose_lines_in_tables']} ({row['prose_words_in_tables']}) | {row['flattened_math_segments']} |")
        if args.v:
            for k in ("leaks", "prose_in", "math"):
                for line in row[k]:
                    print(f"    {k}: {line}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
