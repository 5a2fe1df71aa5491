"""Inline scripts that MuPDF sets on lines of their own, per corpus PDF
(issue 15 item 2).

    .venv/bin/python bench/pdf_scripts_audit.py [names...] [--json OUT] [--show N]

For every corpus PDF that opens: how many small spans sit raised or lowered
beside a base glyph of a bigger line but were read by MuPDF as a line of
their own (found by :func:`probe_script_lines`, a looser finder than the
parser's, so it also counts what the parser leaves alone), how many of them
the page reader attaches to their line and marks
(:func:`duocthu_assets.parse.pdf.read.scripts.attach_script_lines`), and how many
are left apart: inside a lifted block (a display formula's limits: fine) or
in prose (unmarked). ``--show`` prints that many of each file's hits.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from duocthu_assets.model import Format  # noqa: E402
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.parse import parse_document  # noqa: E402
from duocthu_assets.parse.pdf.engine import open_pdf  # noqa: E402
from duocthu_assets.parse.pdf.audit.pages import reading_lines  # noqa: E402
from duocthu_assets.parse.pdf.read.page import TEXT_FLAGS  # noqa: E402
from duocthu_assets.parse.pdf.read.scripts import attach_script_lines, line_geometry, unattached_script_lines  # noqa: E402
from duocthu_assets.settings import Settings  # noqa: E402

CORPUS = Path(os.environ.get("DUOCTHU_CORPUS", REPO.parent / "shared" / "corpus"))

PROBE_MAX_SIZE_FRAC = 0.9  # the probe's span is at most this size of its neighbour's text
PROBE_SHIFT_EM = (0.12, 1.0)  # its baseline this far (ems of the neighbour) above or below the neighbour's
PROBE_REACH_EM = 1.0  # and it starts or ends within this of one of the neighbour's glyphs
PROBE_MAX_CHARS = 24


def probe_script_lines(lines: list[dict | None], direction: tuple[int, int]) -> list[tuple[int, int]]:
    """``(line, neighbour)`` for each line made only of spans set smaller
    than a neighbouring line's text, whose baseline sits raised or lowered
    off the neighbour's (within :data:`PROBE_SHIFT_EM`) and which starts or
    ends within :data:`PROBE_REACH_EM` of one of the neighbour's spans — a
    script MuPDF read as a line of its own, or a limit, a footnote line, a
    cell: looser than the parser on purpose. Pure."""
    geo = {k: line_geometry(line, direction) for k, line in enumerate(lines) if line is not None}
    geo = {k: g for k, g in geo.items() if g is not None}
    out = []
    for k, g in geo.items():
        if sum(s.chars for s in g.spans) > PROBE_MAX_CHARS:
            continue
        biggest = max(s.size for s in g.spans)
        for j, h in geo.items():
            if j == k or biggest > PROBE_MAX_SIZE_FRAC * h.size:
                continue
            off = abs(g.spans[0].level - h.baseline)
            if not PROBE_SHIFT_EM[0] * h.size <= off <= PROBE_SHIFT_EM[1] * h.size:
                continue
            reach = PROBE_REACH_EM * h.size
            if any(s.lo - reach <= g.lo <= s.hi + reach or s.lo - reach <= g.hi <= s.hi + reach for s in h.spans):
                out.append((k, j))
                break
    return out


def page_lines(page):
    """The page's MuPDF lines running in its reading direction (None for the others), that direction, and their text and box."""
    lines, direction = reading_lines(page.get_textpage(flags=TEXT_FLAGS).extractDICT(sort=False))
    texts = ["".join(s["text"] for s in line["spans"]) if line else "" for line in lines]
    boxes = [tuple(line["bbox"]) if line else None for line in lines]
    return lines, direction, texts, boxes


def audit(path: Path, show: int = 0) -> dict | None:
    data = path.read_bytes()
    try:
        doc = open_pdf(data)
    except Exception:  # noqa: BLE001 - encrypted, empty, corrupt: not audited
        return None
    if doc.needs_pass:
        return None
    try:
        blocks = parse_document(data, Format.PDF, Settings()).blocks
    except (DocumentRejected, ParseFailed):
        blocks = []
    rotated = {p.number + 1 for p in doc if p.rotation}
    found = attached = in_block = in_prose = flagged = 0
    hits = []
    try:
        for page in doc:
            lines, direction, texts, boxes = page_lines(page)
            probe = probe_script_lines(lines, direction)
            if not probe:
                continue
            glued = attach_script_lines(lines, direction)
            loose = {s.line for s in unattached_script_lines(lines, direction, glued)}
            no = page.number + 1
            for k, host in probe:
                found += 1
                if k in glued:
                    attached += 1
                    state = "attached"
                else:
                    x0, y0, x1, y1 = boxes[k]
                    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
                    inside = no not in rotated and any(
                        b.page_no == no and b.bbox is not None and b.bbox[0] - 1 <= cx <= b.bbox[2] + 1 and b.bbox[1] - 1 <= cy <= b.bbox[3] + 1
                        for b in blocks
                    )
                    in_block += inside
                    in_prose += not inside
                    state = "in block" if inside else "IN PROSE"
                    if k in loose:
                        state += " (loud)"
                        flagged += 1
                hits.append((no, state, texts[k].strip(), texts[host].strip()[-30:]))
    finally:
        doc.close()
    if show:
        for h in hits[:show]:
            print(f"    p{h[0]} {h[1]:9} {h[2]!r} beside …{h[3]!r}")
    return {"file": path.name, "found": found, "attached": attached, "in_block": in_block, "unmarked_in_prose": in_prose, "loud": flagged}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--json")
    ap.add_argument("--show", type=int, default=0)
    args = ap.parse_args()
    paths = sorted(CORPUS.glob("*.pdf"))
    if args.names:
        paths = [p for p in paths if any(n in p.name for n in args.names)]
    rows = []
    for path in paths:
        row = audit(path, args.show)
        if row is None:
            continue
        rows.append(row)
        if row["found"] or args.names:
            print(f"{row['file'][:60]:60} found {row['found']:3}  attached {row['attached']:3}  in block {row['in_block']:3}  unmarked in prose {row['unmarked_in_prose']:3}  loud {row['loud']:3}", flush=True)
    total = {k: sum(r[k] for r in rows) for k in ("found", "attached", "in_block", "unmarked_in_prose", "loud")}
    print(f"{len(rows)} PDFs: {total}")
    if args.json:
        Path(args.json).write_text(json.dumps({"files": rows, "total": total}, indent=1))


if __name__ == "__main__":
    main()
