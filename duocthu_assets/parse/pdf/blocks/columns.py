"""Column anchors: where a table's cells line up, for the extent finder and the leak audit."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from ..geometry import center
from ..records import Fragment

ANCHOR_TOL = 2.5  # points: a cell edge this close to a column edge lines up with it


@dataclass(frozen=True)
class Grid:
    """Where a table's columns start, end and centre (each seen in at least
    two rows), and its row pitch."""

    lefts: tuple[float, ...]
    rights: tuple[float, ...]
    centres: tuple[float, ...]
    pitch: float


def near(value: float, anchors: tuple[float, ...]) -> int | None:
    """The index of the anchor nearest ``value`` within the tolerance (the
    first of equals); ``anchors`` are sorted, so only those within reach
    are looked at."""
    best = None
    k = bisect.bisect_left(anchors, value - ANCHOR_TOL)
    while k < len(anchors) and anchors[k] <= value + ANCHOR_TOL:
        if best is None or abs(value - anchors[k]) < abs(value - anchors[best]):
            best = k
        k += 1
    return best


def aligned_columns(line: list[Fragment], grid: Grid) -> int:
    """How many of the line's pieces line up with a column of the grid (by
    left edge, right edge or centre), each column counted once."""
    seen: set[tuple[str, int]] = set()
    count = 0
    for f in line:
        hits = [("l", near(f.bbox[0], grid.lefts)), ("r", near(f.bbox[2], grid.rights)), ("c", near(center(f.bbox)[0], grid.centres))]
        hits = [(kind, k) for kind, k in hits if k is not None]
        if hits and not any(h in seen for h in hits):
            seen.update(hits)
            count += 1
    return count
