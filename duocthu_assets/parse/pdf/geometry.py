"""Small pure helpers on bboxes ``(x0, y0, x1, y1)``, top-left origin."""

from __future__ import annotations

from typing import Iterable

BBox = tuple[float, float, float, float]


def union(boxes: Iterable[BBox]) -> BBox:
    x0 = y0 = float("inf")
    x1 = y1 = float("-inf")
    for b in boxes:
        x0, y0, x1, y1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
    if x0 == float("inf"):
        raise ValueError("union of no boxes")
    return (x0, y0, x1, y1)


def rounded(b: BBox) -> BBox:
    """``b`` to the hundredth of a point, as the parse reports boxes."""
    return (round(b[0], 2), round(b[1], 2), round(b[2], 2), round(b[3], 2))


def area(b: BBox) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def intersection(a: BBox, b: BBox) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def overlaps(a: BBox, b: BBox, by: float = 1.0) -> bool:
    """The boxes overlap by more than ``by`` points both ways (touching is not overlapping)."""
    return min(a[2], b[2]) - max(a[0], b[0]) > by and min(a[3], b[3]) - max(a[1], b[1]) > by


def iou(a: BBox, b: BBox) -> float:
    inter = intersection(a, b)
    whole = area(a) + area(b) - inter
    return inter / whole if whole > 0 else 0.0


def center(b: BBox) -> tuple[float, float]:
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def contains_point(b: BBox, x: float, y: float, pad: float = 0.0) -> bool:
    return b[0] - pad <= x <= b[2] + pad and b[1] - pad <= y <= b[3] + pad


def expand(b: BBox, pad: float) -> BBox:
    return (b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad)


def free_intervals(spans: Iterable[tuple[float, float]], lo: float, hi: float, min_width: float) -> list[tuple[float, float]]:
    """Given occupied intervals, return the gaps of at least ``min_width``
    strictly between occupied parts (not the margins) within [lo, hi]."""
    merged: list[list[float]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    gaps = []
    for (_, end), (start, _) in zip(merged, merged[1:]):
        if start - end >= min_width and end >= lo and start <= hi:
            gaps.append((end, start))
    return gaps


def merge_overlapping(boxes: Iterable[BBox], slack_x: float = 1.0, slack_y: float = 1.0) -> list[BBox]:
    """``boxes`` with every two that overlap (or come within ``slack_x``
    across and ``slack_y`` down of each other) made one, until none do; top
    to bottom, then left to right."""
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        out: list[BBox] = []
        for b in boxes:
            for i, o in enumerate(out):
                if min(o[2], b[2]) - max(o[0], b[0]) > -slack_x and min(o[3], b[3]) - max(o[1], b[1]) > -slack_y:
                    out[i] = union([o, b])
                    merged = True
                    break
            else:
                out.append(b)
        boxes = out
    return sorted(boxes, key=lambda b: (b[1], b[0]))

