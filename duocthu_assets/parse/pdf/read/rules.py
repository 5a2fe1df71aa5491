"""Vector rules: the page's drawings read into rules, fraction bars and the
shapes the other finders ask for, and collinear pieces snapped and joined
(the grid, strike and table finders all start from merged rules)."""

from __future__ import annotations

import statistics
from typing import NamedTuple

from ....settings.pdf import PdfSettings
from ..engine import PageImages
from ..geometry import BBox
from ..records import Rule
from .hidden import Fill, is_pale
from .orientation import turned_box

IMAGE_OPS = frozenset(("fill-image", "fill-imgmask"))  # MuPDF's bbox-log names of a raster image drawn
BAR_IMAGE_MAX_PX = 2  # an image this few pixels high or wide may be drawn as a bar
BAR_MIN_LENGTH = 1.5  # points: a horizontal stroke this long and up, shorter than a rule, may be a fraction bar


class Drawings(NamedTuple):
    """What a page's vector graphics draw, in reading orientation (:func:`read_drawings`)."""

    rules: list[Rule]  # horizontal and vertical segments
    graphics: list[BBox]  # paths drawn with curves or slanted lines (plots, figures)
    path_count: int
    bars: list[Rule]  # horizontal strokes too short to be rules, and raster images drawn as thin as a bar
    fills: list[Fill]  # opaque filled rectangles, white ones too, that could cover a word or be its ground
    marks: list[BBox]  # every path drawn in a visible colour
    strokes: list[BBox]  # the graphics that are stroked


def read_drawings(page, matrix, settings: PdfSettings, images: PageImages | None = None) -> Drawings:
    """Horizontal and vertical segments of the page's vector graphics, the
    boxes of paths drawn with curves or slanted lines (plots, figures), and
    the number of paths. Invisible paths (white fill, zero opacity) and
    page-sized backgrounds are skipped; a rectangle contributes its four
    edges. Besides: the horizontal strokes too short to be rules (an inline
    fraction's bar, :data:`BAR_MIN_LENGTH` and up) and the raster images
    drawn as thin as a bar, whatever their length; the opaque filled
    rectangles, white ones too, that could cover a word
    (:func:`.hidden.covered_words`) or be the ground white text is seen on
    (:func:`.hidden.pale_words`); the box of every path drawn in a visible
    colour (a drawn figure's axes, ticks and labels set as outlines:
    :func:`.pictures.drawn_figures`), and the boxes of the graphics that are
    stroked (a plot's lines, a diagram's arrows — a banner's rounded shape
    is filled)."""
    rules: list[Rule] = []
    bars: list[Rule] = []
    graphics: list[BBox] = []
    fills: list[Fill] = []
    marks: list[BBox] = []
    strokes: list[BBox] = []
    paths = page.get_cdrawings()
    page_area = page.rect.width * page.rect.height
    thick = settings.rule_max_thickness
    for path in paths:
        kind = path.get("type", "")
        if "f" in kind and (path.get("fill_opacity", 1.0) or 0) >= 0.99:
            fills += _fills(path, matrix, thick, page_area)
        stroked = "s" in kind and (path.get("stroke_opacity", 1.0) or 0) > 0 and not _is_white(path.get("color"))
        filled = "f" in kind and (path.get("fill_opacity", 1.0) or 0) > 0 and not _is_white(path.get("fill"))
        if not (stroked or filled):
            continue
        marks.append(turned_box(path["rect"], matrix))
        items = path.get("items", ())
        if any(it[0] == "c" or (it[0] == "l" and abs(it[1][0] - it[2][0]) > 1 and abs(it[1][1] - it[2][1]) > 1) for it in items):
            graphics.append(turned_box(path["rect"], matrix))
            if stroked:
                strokes.append(graphics[-1])
        for item in items:
            for box in _segment_boxes(item, matrix, thick, page_area):
                segment = _segment(box, thick, settings.rule_min_length)
                if segment is not None:
                    rule, is_bar = segment
                    (bars if is_bar else rules).append(rule)
    if (images or PageImages(page)).any(lambda img: min(img[2], img[3]) <= BAR_IMAGE_MAX_PX):
        # a raster image of a pixel or two drawn as thin as a bar is one: TeX drivers draw fraction
        # bars so (a 1x1 image, stretched). Bars only, never rules: some papers draw their tables'
        # rules as 1-pixel inline images (seen in a corpus paper), and the table finders, tuned on
        # drawn rules, would cut those tables at every midrule. (Inline images are not listed by
        # ``get_images``: only pages with an image object pay for the drawing log.)
        for kind, rect in page.get_bboxlog():
            if kind in IMAGE_OPS:
                x0, y0, x1, y1 = turned_box(rect, matrix)
                if y1 - y0 <= min(thick, 0.5 * (x1 - x0)) and x1 - x0 >= BAR_MIN_LENGTH:
                    bars.append(Rule(x0, (y0 + y1) / 2, x1, (y0 + y1) / 2, True))
    return Drawings(rules, graphics, len(paths), bars, fills, marks, strokes)


def _fills(path: dict, matrix, thick: float, page_area: float) -> list[Fill]:
    """The opaque shapes an opaquely filled ``path`` draws: each rectangle
    thicker than a rule (a dark one as large as the page is its background,
    covering nothing), and, for a dark path with curves, its box."""
    out: list[Fill] = []
    pale = is_pale(path.get("fill"))
    items = path.get("items", ())
    for item in items:
        if item[0] == "re":
            box = turned_box(item[1], matrix)
            if box[2] - box[0] > thick and box[3] - box[1] > thick:
                if (box[2] - box[0]) * (box[3] - box[1]) <= 0.6 * page_area:
                    out.append(Fill(box, pale))
                elif not pale:
                    out.append(Fill(box, pale, cover=False))  # a dark page's background
    if not pale and any(item[0] != "re" for item in items):
        out.append(Fill(turned_box(path["rect"], matrix), pale, cover=False))  # a banner's rounded box
    return out


def _segment_boxes(item: tuple, matrix, thick: float, page_area: float) -> list[BBox]:
    """The boxes of the segments a path's item may draw: a line's, a thin
    rectangle's own, a thicker one's four edges (none for a page background
    or frame)."""
    op = item[0]
    if op == "l":
        (ax, ay), (bx, by) = item[1], item[2]
        return [turned_box((min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)), matrix)]
    if op not in ("re", "qu"):
        return []
    if op == "re":
        box = turned_box(item[1], matrix)
    else:
        quad = item[1]
        xs = [p[0] for p in quad]
        ys = [p[1] for p in quad]
        box = turned_box((min(xs), min(ys), max(xs), max(ys)), matrix)
    w, h = box[2] - box[0], box[3] - box[1]
    if w * h > 0.6 * page_area:
        return []  # page background or frame
    if h <= thick or w <= thick:
        return [box]
    x0, y0, x1, y1 = box
    return [(x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)]


def _is_white(color) -> bool:
    return color is not None and len(color) >= 1 and all(c >= 0.97 for c in color)


def _segment(box: BBox, thick: float, min_length: float) -> tuple[Rule, bool] | None:
    """The segment a thin ``box`` draws and whether it is a bar (a
    horizontal stroke :data:`BAR_MIN_LENGTH` long and up, too short for a
    rule) rather than a rule; None when it is neither."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if h <= thick and w >= min_length and w > h:
        y = (y0 + y1) / 2
        return Rule(x0, y, x1, y, True), False
    if h <= min(thick, 0.5 * w) and BAR_MIN_LENGTH <= w < min_length:
        y = (y0 + y1) / 2
        return Rule(x0, y, x1, y, True), True
    if w <= thick and h >= min_length and h > w:
        x = (x0 + x1) / 2
        return Rule(x, y0, x, y1, False), False
    return None


def merge_rules(rules: list[Rule] | tuple[Rule, ...], tol: float) -> tuple[list[Rule], list[Rule]]:
    """Snap rules within ``tol`` of one another onto one line and join the
    collinear pieces that touch; return (horizontal, vertical)."""
    return merge_axis([r for r in rules if r.horizontal], tol, True), merge_axis([r for r in rules if not r.horizontal], tol, False)


def merge_axis(rules: list[Rule], tol: float, horizontal: bool) -> list[Rule]:
    if not rules:
        return []
    rules = sorted(rules, key=lambda r: r.pos)
    clusters: list[list[Rule]] = [[rules[0]]]
    for r in rules[1:]:
        if r.pos - clusters[-1][-1].pos <= tol:
            clusters[-1].append(r)
        else:
            clusters.append([r])
    merged: list[Rule] = []
    for cluster in clusters:
        pos = statistics.fmean(r.pos for r in cluster)
        spans = sorted(((r.x0, r.x1) if horizontal else (r.y0, r.y1)) for r in cluster)
        start, end = spans[0]
        for a, b in spans[1:]:
            if a <= end + tol:
                end = max(end, b)
            else:
                merged.append(Rule(start, pos, end, pos, True) if horizontal else Rule(pos, start, pos, end, False))
                start, end = a, b
        merged.append(Rule(start, pos, end, pos, True) if horizontal else Rule(pos, start, pos, end, False))
    return merged
