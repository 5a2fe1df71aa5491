"""Per-file audit of lifted tables and formulas on the corpus PDFs (issue 15).

    .venv/bin/python bench/pdf_audit.py [names...] [--json bench/out/pdf_audit.json]

For every corpus PDF that opens and has text: tables and formulas found,
table rows left under a table in prose (lines that line up with two or more
of its columns, :mod:`duocthu_assets.parse.pdf.audit.tables`), a formula's cell
lines left just over or under its block (``loose_cell_lines``), lines of a
formula block with a cell of running text (prose swallowed), running-text lines
inside a table (prose swallowed), prose segments holding flattened math or mojibake (:mod:`duocthu_assets.parse.encoding.mojibake`),
pairs of words stacked over each other (a fraction, over a bar or not) that
no block holds whole (what leak_02 names), whether every character of each block lies inside its crop rectangle,
and glyphs with no Unicode mapping: left out of the text (the page accounts'
``unmapped``), shown as U+FFFD where they stood, and lines of
math that lost one outside every block (leak_02's ``lost_glyphs_in``).
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
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.parse import parse_document  # noqa: E402
from duocthu_assets.parse.encoding.mojibake import misencoding  # noqa: E402
from duocthu_assets.parse.pdf.audit.flattened_math import flattened_math  # noqa: E402
from duocthu_assets.parse.pdf.audit.glyphs import lost_glyphs_in, stacked_pairs_in  # noqa: E402
from duocthu_assets.parse.pdf.audit.inspection import inspect_tables  # noqa: E402
from duocthu_assets.parse.pdf.blocks.candidates import inside_box  # noqa: E402
from duocthu_assets.parse.pdf.crops import crop_box  # noqa: E402
from duocthu_assets.parse.pdf.engine import open_pdf, pymupdf  # noqa: E402
from duocthu_assets.parse.pdf.geometry import center, contains_point  # noqa: E402
from duocthu_assets.parse.pdf.read.page import read_page  # noqa: E402
from duocthu_assets.settings.pdf import resolve_pdf_settings  # noqa: E402
from duocthu_assets.settings import Settings  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402

CORPUS = Path(os.environ.get("DUOCTHU_CORPUS", REPO.parent / "shared" / "corpus"))


def crops_complete(data: bytes, blocks, margin: float) -> tuple[int, int]:
    """(blocks whose every lifted word lies inside the crop, blocks checked);
    pages turned by /Rotate are skipped (their crop is turned too)."""
    ok = total = 0
    doc = open_pdf(data)
    ps = resolve_pdf_settings(None)
    pages = {}
    try:
        for b in blocks:
            page = doc[b.page_no - 1]
            if page.rotation:
                continue
            content = pages.setdefault(b.page_no, read_page(page, ps))
            if abs(content.width - page.rect.width) > 1:
                continue  # text set sideways: the crop is turned to read (tests/parse/pdf/test_crops.py covers it)
            shown = pymupdf.Rect(crop_box(b.bbox, margin)) & page.rect
            # a picture of an image lifts no words (text set over it stays in the prose): nothing of it to cut
            lifts = b.kind is not BlockKind.PICTURE or bool(b.text)
            words = [w for f in content.fragments if lifts and contains_point(b.bbox, *center(f.bbox), pad=1.0) for w in f.words]
            total += 1
            ok += all(shown.x0 - 0.01 <= w.bbox[0] and w.bbox[2] <= shown.x1 + 0.01 and shown.y0 - 0.01 <= w.bbox[1] and w.bbox[3] <= shown.y1 + 0.01 for w in words)
    finally:
        doc.close()
    return ok, total


def inline_scripts(data: bytes, blocks) -> tuple[int, int]:
    """(words holding an inline superscript or subscript that stay in prose,
    those inside a lifted block): words the page reader wrote with a script
    mark (``x^3``, ``x_i``; before issue 15's convention they came glued,
    ``x3``)."""
    doc = open_pdf(data)
    ps = resolve_pdf_settings(None)
    prose = lifted = 0
    try:
        for page in doc:
            content = read_page(page, ps)
            boxes = [b.bbox for b in blocks if b.page_no == page.number + 1]
            for w in content.words:
                if w.plain:
                    if any(contains_point(box, *center(w.bbox), pad=1.0) for box in boxes):
                        lifted += 1
                    else:
                        prose += 1
    finally:
        doc.close()
    return prose, lifted


def icdar_complete(path: Path, blocks) -> tuple[int, int] | None:
    """(ground-truth table regions whose words all sit in one table block,
    regions): a region is complete when one block holds all its characters."""
    gt = CORPUS / "groundtruth" / f"{path.name}.reg.xml"
    if not gt.is_file():
        return None
    doc = pymupdf.open(path)
    complete = n = 0
    for region in ET.parse(gt).getroot().iter("region"):
        page_no = int(region.get("page"))
        page = doc[page_no - 1]
        b = region.find("bounding-box")
        h = page.rect.height
        x1, y1, x2, y2 = (float(b.get(k)) for k in ("x1", "y1", "x2", "y2"))
        box = (x1, h - y2, x2, h - y1)
        words = [w for w in page.get_text("words") if contains_point(box, (w[0] + w[2]) / 2, (w[1] + w[3]) / 2)]
        tables = [t for t in blocks if t.page_no == page_no and t.kind is BlockKind.TABLE]
        n += 1
        complete += any(all(contains_point(t.bbox, (w[0] + w[2]) / 2, (w[1] + w[3]) / 2, pad=1.0) for w in words) for t in tables)
    doc.close()
    return complete, n


PROSE_CELL_WORDS = 8  # a formula's line whose one cell holds this many words of running text is prose swallowed


def prose_lines_in_formulas(blocks) -> list[tuple[int, str]]:
    """(page_no, line) of each line of a formula block with a cell of
    running text (:data:`PROSE_CELL_WORDS` words of three letters or more,
    function names aside): a paragraph's line taken into a display formula.
    A formula set in words (a cell of the block is a lone operator, ``=``
    or ``x``: a decree's) is made of such lines and is left out."""
    from duocthu_assets.parse.pdf.blocks.display_math import _prose_words
    from duocthu_assets.parse.pdf.records import LONE_OPERATORS

    found = []
    for b in blocks:
        if b.kind is not BlockKind.FORMULA:
            continue
        lines = b.text.split("\n")
        if any(cell.strip() in LONE_OPERATORS for line in lines for cell in line.split("|")):
            continue
        for line in lines:
            if max((_prose_words(cell) for cell in line.split("|")), default=0) >= PROSE_CELL_WORDS:
                found.append((b.page_no, line))
    return found


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
    formulas = [(b.page_no, b.bbox) for b in parsed.blocks if b.kind is BlockKind.FORMULA]
    found = inspect_tables(data, tables, everything, formulas)
    rows = [l for l in found.leaks if l.what == "table row"]
    swallowed = prose_lines_in_formulas(parsed.blocks)
    cells = [l for l in found.leaks if l.what != "table row"]
    prose = [s for s in parsed.segments if s.kind is not SegmentKind.HEADING]
    misencoded = [(s, why) for s in prose if (why := misencoding(s.text))]
    math = [s for s in prose if all(s is not m for m, _ in misencoded) and flattened_math(s.text)]
    ok, checked = crops_complete(data, parsed.blocks, Settings().crop_margin_pt)
    complete = icdar_complete(path, parsed.blocks)
    scripts_prose, scripts_blocks = inline_scripts(data, parsed.blocks)
    # two words stacked (over a bar or not) that no lifted block holds whole: leak_02's own test
    stacked = [
        (p, t) for p, t, box in stacked_pairs_in(data, list(range(1, parsed.page_count + 1)))
        if not any(bp == p and inside_box(box, bb) for bp, bb in everything)
    ]
    # glyphs with no Unicode mapping: left out of the text (counted in the page accounts),
    # shown as U+FFFD where they stood, and lines of math that lost one outside every block
    lost_math = [
        (p, t) for p, t, box in lost_glyphs_in(data, list(range(1, parsed.page_count + 1)))
        if not any(bp == p and contains_point(bb, *center(box)) for bp, bb in everything)
    ]
    return {
        "glyphs_left_out": sum(a.unmapped for a in parsed.page_accounts),
        "glyphs_shown": sum(s.text.count("\ufffd") for s in parsed.segments),
        "lost_glyph_math_lines_outside": len(lost_math),
        "lost_math": [f"p{p}: {t[:60]}" for p, t in lost_math][:8],
        "stacked_pairs_in_prose": len(stacked),
        "stacked": [f"p{p}: {t[:60]}" for p, t in stacked][:8],
        "inline_scripts_in_prose": scripts_prose,
        "inline_scripts_in_blocks": scripts_blocks,
        "crops_complete": f"{ok}/{checked}",
        "icdar_regions_complete": f"{complete[0]}/{complete[1]}" if complete else "",
        "pages": parsed.page_count,
        "tables": len(tables),
        "formulas": sum(1 for b in parsed.blocks if b.kind is BlockKind.FORMULA),
        "pictures": sum(1 for b in parsed.blocks if b.kind is BlockKind.PICTURE),
        "table_rows_in_prose": len(rows),
        "formula_cell_lines_outside": len(cells),
        "leaks": [f"p{l.page_no} {l.what}: {l.text[:70]}" for l in found.leaks][:8],
        "prose_lines_in_tables": len(found.prose_in_blocks),
        "prose_lines_in_formulas": len(swallowed),
        "prose_in_formulas": [f"p{p}: {t[:70]}" for p, t in swallowed][:5],
        "prose_words_in_tables": sum(len(t.split()) for _, t in found.prose_in_blocks),
        "prose_in": [f"p{p}: {t[:70]}" for p, t in found.prose_in_blocks][:5],
        "misencoded_segments": len(misencoded),
        "misencoded": [f"p{s.page_no}: {why[:120]}" for s, why in misencoded][:5],
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
    print("| file | pages | tables | formulas | pictures | table rows in prose | formula cell lines outside | prose lines (words) in tables | prose lines in formulas | prose segments with flattened math | stacked pairs left in prose | inline scripts marked, prose / blocks | crops complete | unmapped glyphs left out / shown in prose | lines of math that lost a glyph, outside blocks | prose segments misencoded (mojibake, legacy Vietnamese) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        row = audit(CORPUS / name)
        if row is None:
            continue
        out[name] = row
        print(f"| {name} | {row['pages']} | {row['tables']} | {row['formulas']} | {row['pictures']} | {row['table_rows_in_prose']} | {row['formula_cell_lines_outside']} | {row['prose_lines_in_tables']} ({row['prose_words_in_tables']}) | {row['prose_lines_in_formulas']} | {row['flattened_math_segments']} | {row['stacked_pairs_in_prose']} | {row['inline_scripts_in_prose']} / {row['inline_scripts_in_blocks']} | {row['crops_complete']} | {row['glyphs_left_out']} / {row['glyphs_shown']} | {row['lost_glyph_math_lines_outside']} | {row['misencoded_segments']} |")
        if row["icdar_regions_complete"]:
            print(f"|  ICDAR regions complete (one block holds all their words): {row['icdar_regions_complete']} | | | | | | | | | | | | | | | |")
        if args.v:
            for k in ("leaks", "prose_in", "prose_in_formulas", "math", "stacked", "lost_math", "misencoded"):
                for line in row[k]:
                    print(f"    {k}: {line}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
