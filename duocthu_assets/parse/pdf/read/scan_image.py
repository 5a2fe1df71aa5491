"""What a scanned page's image shows besides its words, found with OpenCV
(opencv-python-headless): the ruled lines of its tables, by morphology (an
opening with a long thin kernel keeps only runs of ink that long: lines,
not letters), and its pictures — signatures, seals, photographs — as the
ink left once the confidently read words and the rules are taken away.

The rules become :class:`..records.Rule` records, so a ruled table on a
scan is found by the same rule-based finder as on a born-digital page and
lifted as a table block; the pictures become picture blocks. Boxes are PDF
points (the page as displayed), the image's pixels scaled by ``72 / dpi``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..geometry import BBox, center, contains_point
from ..records import Rule
from .ocr import OcrWord

LINE_MIN_FRAC = 1 / 25  # a rule spans at least this share of the page's width (height for a vertical one)
RULE_MAX_THICKNESS_PT = 3.0  # thicker runs of ink are bars or pictures, not rules
PICTURE_MIN_SIDE_PT = 20.0  # a picture is at least this wide and this high (a signature, a seal)
PICTURE_MIN_AREA_PT2 = 2000.0
PICTURE_JOIN_PT = 8.0  # strokes this close belong to one picture
PICTURE_MIN_INK = 0.02  # of its box: less ink is specks of noise
FRAME_REACH_PT = 3.0  # a rule this close to a picture is its frame or axis (a chart's)
TEXT_CONFIDENCE = 50.0  # a word read at least this sure is text, not a picture's ink


def _decode(png: bytes):
    import cv2
    import numpy as np

    return cv2.imdecode(np.frombuffer(png, dtype=np.uint8), cv2.IMREAD_GRAYSCALE)


def _ink(grey):
    """Dark pixels as 255, the rest 0 (Otsu's threshold, which a grey scan's
    background and ink separate well)."""
    import cv2

    _, bw = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return bw


def _line_masks(bw, scale: float):
    import cv2

    h, w = bw.shape
    horizontal = cv2.morphologyEx(bw, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (max(int(w * LINE_MIN_FRAC), 10), 1)))
    vertical = cv2.morphologyEx(bw, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, max(int(h * LINE_MIN_FRAC), 10))))
    return horizontal, vertical


def _rules_from(mask, scale: float, horizontal: bool) -> list[Rule]:
    import cv2

    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    rules: list[Rule] = []
    for k in range(1, count):
        x, y, w, h, _area = (int(v) for v in stats[k])
        thick = (h if horizontal else w) * scale
        if thick > RULE_MAX_THICKNESS_PT:
            continue
        if horizontal:
            mid = (y + h / 2) * scale
            rules.append(Rule(round(x * scale, 2), round(mid, 2), round((x + w) * scale, 2), round(mid, 2), True))
        else:
            mid = (x + w / 2) * scale
            rules.append(Rule(round(mid, 2), round(y * scale, 2), round(mid, 2), round((y + h) * scale, 2), False))
    return sorted(rules, key=lambda r: (r.y0, r.x0, r.y1, r.x1))


def image_rules(png: bytes, dpi: int) -> list[Rule]:
    """The ruled lines of a page image, as rules in points."""
    scale = 72.0 / dpi
    horizontal, vertical = _line_masks(_ink(_decode(png)), scale)
    return _rules_from(horizontal, scale, True) + _rules_from(vertical, scale, False)


def _framed(picture: BBox, rules: Sequence[Rule]) -> BBox:
    """The picture grown over the rules that touch it (once: rules that touch
    only those rules, a table's beside it, stay apart): a chart's plotted ink
    is found as a picture, its frame and axes as rules."""
    touching = [r.bbox for r in rules if _touches(picture, r.bbox) and not _within(r.bbox, picture)]
    return (min([picture[0]] + [b[0] for b in touching]), min([picture[1]] + [b[1] for b in touching]),
            max([picture[2]] + [b[2] for b in touching]), max([picture[3]] + [b[3] for b in touching]))


def _touches(box: BBox, other: BBox, pad: float = FRAME_REACH_PT) -> bool:
    return other[0] <= box[2] + pad and other[2] >= box[0] - pad and other[1] <= box[3] + pad and other[3] >= box[1] - pad


def _within(inner: BBox, outer: BBox) -> bool:
    return inner[0] >= outer[0] - 0.5 and inner[1] >= outer[1] - 0.5 and inner[2] <= outer[2] + 0.5 and inner[3] <= outer[3] + 0.5


def image_features(png: bytes, dpi: int, words: Sequence[OcrWord]) -> tuple[list[Rule], list[BBox]]:
    """The page image's rules and pictures (see the module docstring): a
    picture is ink in no confidently read word and no rule, its strokes
    joined, large enough and inked enough to be a signature, a seal or a
    photograph, grown over the rules touching it (a chart's frame and axes)."""
    import cv2
    import numpy as np

    scale = 72.0 / dpi
    bw = _ink(_decode(png))
    horizontal, vertical = _line_masks(bw, scale)
    rules = _rules_from(horizontal, scale, True) + _rules_from(vertical, scale, False)
    rest = cv2.subtract(bw, cv2.bitwise_or(horizontal, vertical))
    for w in words:
        if w.confidence >= TEXT_CONFIDENCE:
            x0, y0, x1, y1 = (round(v / scale) for v in w.bbox)
            rest[max(y0 - 2, 0) : y1 + 2, max(x0 - 2, 0) : x1 + 2] = 0
    join = max(int(PICTURE_JOIN_PT / scale), 1)
    joined = cv2.dilate(rest, np.ones((join, join), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    pictures: list[BBox] = []
    for k in range(1, count):
        x, y, w, h, _area = (int(v) for v in stats[k])
        # the dilation grew the box by half the kernel on each side
        x0, y0, x1, y1 = x + join // 2, y + join // 2, x + w - join // 2, y + h - join // 2
        wp, hp = (x1 - x0) * scale, (y1 - y0) * scale
        if wp < PICTURE_MIN_SIDE_PT or hp < PICTURE_MIN_SIDE_PT or wp * hp < PICTURE_MIN_AREA_PT2:
            continue
        ink = float((rest[y0:y1, x0:x1] > 0).mean()) if x1 > x0 and y1 > y0 else 0.0
        if ink < PICTURE_MIN_INK:
            continue
        pictures.append((round(x0 * scale, 2), round(y0 * scale, 2), round(x1 * scale, 2), round(y1 * scale, 2)))
    pictures = [_framed(p, rules) for p in pictures]
    # a stroke of a signature or a seal that ran straight for a while is the picture's, not a rule; so is a chart's frame
    rules = [r for r in rules if not any(contains_point(p, *center(r.bbox), pad=1.0) for p in pictures)]
    return rules, sorted(pictures, key=lambda b: (b[1], b[0]))
