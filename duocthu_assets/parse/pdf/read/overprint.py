"""Glyphs drawn a second time over a line already read: the page shows one
line, so the reader reads it once (pdfplumber's ``dedupe_chars`` drops such
glyphs for the same reason)."""

from __future__ import annotations

from ..geometry import BBox

OVERPRINT_TOL = 0.5  # points: a line this close to another's top, bottom and sides is drawn over it


def _is_subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(c in rest for c in short)


def overprinted_lines(lines: list[tuple[BBox, str, str, float]]) -> set[int]:
    """The lines (``(bbox, text, font, size)``, in page order) that repeat
    some of the glyphs of a longer line drawn in the same place: same font
    and size, inside its box on the same baseline, their characters a
    subsequence of its own (a partial copy drawn over a line: a reader sees
    one line). pdfplumber's ``dedupe_chars`` drops such glyphs for the same
    reason. Pure."""
    tol = OVERPRINT_TOL
    buckets: dict[tuple[str, float, int], list[int]] = {}
    for k, (box, _text, font, size) in enumerate(lines):
        buckets.setdefault((font, size, round(box[3])), []).append(k)
    out: set[int] = set()
    for k, (box, text, font, size) in enumerate(lines):
        short = text.replace(" ", "")
        if not short:
            continue
        for key in ((font, size, round(box[3]) + d) for d in (-1, 0, 1)):
            for j in buckets.get(key, ()):
                other, otext = lines[j][0], lines[j][1].replace(" ", "")
                if (
                    j != k
                    and len(otext) > len(short)
                    and abs(other[1] - box[1]) <= tol
                    and abs(other[3] - box[3]) <= tol
                    and other[0] - tol <= box[0]
                    and box[2] <= other[2] + tol
                    and _is_subsequence(short, otext)
                ):
                    out.add(k)
                    break
            if k in out:
                break
    return out
