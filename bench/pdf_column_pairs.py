"""Reading order across columns: of each column's consecutive line pairs, the
share that read together in the parsed text (issue 15, round 6).

    .venv/bin/python bench/pdf_column_pairs.py FILE X0,X1,... [FILE X0,...]

FILE is a corpus PDF; X0,X1,... the left edges of its columns in points.
A pair is two MuPDF lines of one column (more than 15 characters each) at
most 14 pt apart; it "reads together" when the end of the first and the
start of the second follow each other in the parse's segments, compared
without blanks, hyphens, script marks and ligatures (``_bare``). Lines a footnote, a heading or a figure cuts are
counted as pairs too, so 100% is not expected.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from duocthu_assets.model import Format  # noqa: E402
from duocthu_assets.parse import parse_document  # noqa: E402
from duocthu_assets.parse.pdf.engine import pymupdf  # noqa: E402
from duocthu_assets.settings import Settings  # noqa: E402

CORPUS = Path(os.environ.get("DUOCTHU_CORPUS", REPO.parent / "shared" / "corpus"))
PAIR_GAP = 14.0
MIN_CHARS = 15
PROBE = 12  # characters of each line's end and start compared


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _bare(text: str) -> str:
    """Compared without what the parse is meant to change: ligatures
    (NFKC: ``ﬁ`` → ``fi``), script marks (``x^3``, ``w_{(i)}``), hyphens
    (a line-end hyphen kept or joined) and blanks."""
    return re.sub(r"[\s\-^_{}\u00ad]", "", unicodedata.normalize("NFKC", text))


def column_pairs(data: bytes, lefts: list[float]) -> list[tuple[int, int]]:
    """``(read together, pairs)`` per page."""
    parsed = parse_document(data, Format.PDF, Settings())
    text = _bare(" ".join(s.text for s in parsed.segments))
    out = []
    doc = pymupdf.open(stream=data, filetype="pdf")
    for page in doc:
        lines = []
        for block in page.get_text("dict")["blocks"]:
            for line in block.get("lines", []):
                t = "".join(s["text"] for s in line["spans"]).strip()
                if len(t) > MIN_CHARS:
                    lines.append((line["bbox"][0], line["bbox"][1], t))
        found = total = 0
        for c0, c1 in zip(lefts, lefts[1:] + [float("inf")]):
            col = sorted((ln for ln in lines if c0 - 3 <= ln[0] < c1 - 3), key=lambda ln: ln[1])
            for a, b in zip(col, col[1:]):
                if b[1] - a[1] > PAIR_GAP:
                    continue
                total += 1
                if _bare(a[2])[-PROBE:] + _bare(b[2])[:PROBE] in text:
                    found += 1
        out.append((found, total))
    return out


def main(argv: list[str]) -> None:
    for name, lefts in zip(argv[::2], argv[1::2]):
        pages = column_pairs((CORPUS / name).read_bytes(), [float(x) for x in lefts.split(",")])
        found, total = sum(f for f, _ in pages), sum(t for _, t in pages)
        print(f"{name}: {found}/{total} ({100 * found / max(total, 1):.0f}%) — by page " + " ".join(f"{f}/{t}" for f, t in pages))


if __name__ == "__main__":
    main(sys.argv[1:])
