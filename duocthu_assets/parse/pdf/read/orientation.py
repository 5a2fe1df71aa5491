"""Which way a page's text reads, and the quarter turns that make it read
left to right.

MuPDF reports text on the unrotated page. A page whose /Rotate turns its
text, or a landscape table set sideways on a portrait page, is read in the
frame where most of its characters run left to right (:func:`reading_matrix`);
lines a quarter turn from that text are margin stamps and labels read
apart, or, when they are many, a region set sideways beside upright prose,
read in its own frame (:func:`lines_apart`).
"""

from __future__ import annotations

from typing import NamedTuple

from ..engine import pymupdf
from ..geometry import BBox

MAX_ACROSS_FRAC = 0.1  # vertical lines up to this share of a page's text are stamps or labels, read apart
MARGIN_FRAC = 0.12  # ... and any number in the outer 12% of the page's width beside the text are margin stamps
MAX_MARGIN_LINES = 4  # ... up to this many of them (more is a sideways table)
SIDEWAYS_PAD = 12.0  # points around a sideways region's words within which its rules are its own


def turned_box(bbox, matrix) -> BBox:
    """The box of ``bbox`` after a quarter-turn ``matrix`` (plain arithmetic:
    a pymupdf.Rect per word costs more than the rest of the word)."""
    x0, y0, x1, y1 = float(bbox[0]), float(bbox[1]), float(bbox[2]), float(bbox[3])
    if matrix is None:
        return (x0, y0, x1, y1)
    a, b, c, d, e, f = matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f
    xs = (a * x0 + c * y0 + e, a * x1 + c * y1 + e)
    ys = (b * x0 + d * y0 + f, b * x1 + d * y1 + f)
    return (min(xs), min(ys), max(xs), max(ys))


def unrotated_size(page) -> tuple[float, float]:
    r = page.rect * page.derotation_matrix if page.rotation else page.rect
    return abs(r.width), abs(r.height)


def line_direction(line: dict) -> tuple[int, int]:
    """The quarter direction a MuPDF line runs in: (1, 0) left to right,
    (0, 1) down the page, (0, -1) up it, (-1, 0) right to left."""
    dx, dy = line.get("dir", (1, 0))
    return (1, 0) if abs(dx) >= abs(dy) and dx > 0 else (-1, 0) if abs(dx) >= abs(dy) else (0, 1) if dy > 0 else (0, -1)


def reading_direction(page_dict: dict) -> tuple[int, int]:
    """The direction most characters of the page run in."""
    weight = {(1, 0): 0, (0, 1): 0, (0, -1): 0, (-1, 0): 0}
    for block in page_dict["blocks"]:
        if block.get("type", 0) != 0:
            continue
        for line in block["lines"]:
            weight[line_direction(line)] += sum(len(sp["text"]) for sp in line["spans"])
    direction = max(weight, key=lambda k: (weight[k], k == (1, 0)))
    return (1, 0) if weight[direction] <= weight[(1, 0)] else direction


def reading_matrix(page_dict: dict, width: float, height: float):
    """The quarter turn (and shift) taking the unrotated page, where MuPDF
    reports text, to reading orientation: the direction most characters run
    in becomes left to right. None when the text already runs that way."""
    return turn_matrix(reading_direction(page_dict), width, height)


def turn_matrix(direction: tuple[int, int], width: float, height: float):
    """The quarter turn (and shift) taking text that runs in ``direction`` on
    a ``width`` × ``height`` page to left to right; None for (1, 0)."""
    if direction == (1, 0):
        return None
    if direction == (0, 1):  # text runs down the page: turn a quarter clockwise back
        return pymupdf.Matrix(0, -1, 1, 0, 0, width)
    if direction == (0, -1):  # text runs up the page
        return pymupdf.Matrix(0, 1, -1, 0, height, 0)
    return pymupdf.Matrix(-1, 0, 0, -1, width, height)


class AcrossLine(NamedTuple):
    """A line a quarter turn from the page's text (vertical on an upright page)."""

    line: int  # its number on the page
    bbox: BBox
    chars: int  # its characters, blanks left out
    direction: tuple[int, int]  # the way it runs (:func:`line_direction`)


class Sideways(NamedTuple):
    """A region set sideways inside an upright page (a table turned a quarter
    beside upright prose), read in its own frame (:func:`turn_matrix`)."""

    direction: tuple[int, int]  # the way its text runs on the page
    lines: set[int]  # its lines' numbers


class Apart(NamedTuple):
    """How the lines across a page's text are read (:func:`lines_apart`)."""

    rotated: set[int]  # lines read apart, each along its own run (stamps, labels)
    sideways: Sideways | None  # a region read in its own frame, if any


def lines_apart(
    across: list[AcrossLine],
    text_chars: int,
    text_x: tuple[float, float],
    direction: tuple[int, int],
    width: float,
    find_sideways: bool,
) -> Apart:
    """How the lines ``across`` the page's text are read. A line clear of the
    text's sides (``text_x``: where the lines running with the text start
    and end) is a margin stamp; together the others are read like the rest
    when they hold more than :data:`MAX_ACROSS_FRAC` of the page's
    ``text_chars`` (a sideways table or figure), apart otherwise. On a page
    read as displayed (``find_sideways``, ``direction`` (1, 0)), those many
    lines are a region set sideways, read in its own frame: the lines that
    run its most frequent way, with the margin stamps inside it."""
    rotated = {a.line for a in across}
    x0, x1 = text_x
    margin = [
        a.line for a in across
        if direction == (1, 0) and (a.bbox[2] <= min(x0 + 1, MARGIN_FRAC * width) or a.bbox[0] >= max(x1 - 1, (1 - MARGIN_FRAC) * width))
    ]
    if len(margin) > MAX_MARGIN_LINES:
        margin = []  # many vertical lines at the side: a sideways table, not stamps
    inside = [a for a in across if a.line not in margin]
    if sum(a.chars for a in inside) <= MAX_ACROSS_FRAC * text_chars:
        return Apart(rotated, None)
    rotated -= {a.line for a in inside}
    if not (find_sideways and direction == (1, 0)):
        return Apart(rotated, None)
    turns: dict[tuple[int, int], int] = {}
    for a in inside:
        turns[a.direction] = turns.get(a.direction, 0) + a.chars
    turn = max(turns, key=lambda d: (turns[d], d))
    lines = {a.line for a in inside if a.direction == turn}
    # a line of the region standing in the margin (its first row, nearest the
    # page's edge) is the region's, not a margin stamp
    by_line = {a.line: a for a in across}
    rx0 = min(by_line[k].bbox[0] for k in lines) - SIDEWAYS_PAD
    rx1 = max(by_line[k].bbox[2] for k in lines) + SIDEWAYS_PAD
    ry0 = min(by_line[k].bbox[1] for k in lines) - SIDEWAYS_PAD
    ry1 = max(by_line[k].bbox[3] for k in lines) + SIDEWAYS_PAD
    joined = {
        k for k, box, _, way in (by_line[k] for k in margin)
        if way == turn and box[2] >= rx0 and box[0] <= rx1 and box[3] >= ry0 and box[1] <= ry1
    }
    return Apart(rotated - joined, Sideways(turn, lines | joined))
