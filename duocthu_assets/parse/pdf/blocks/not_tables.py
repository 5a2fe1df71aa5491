"""Figure rejection: a region that curves or slanted lines fill is a plot or
a drawing, not a table (the aligned tick labels of a row of charts)."""

from __future__ import annotations

from ..geometry import BBox
from ....settings.pdf import PdfSettings


def is_figure(bbox: BBox, graphics: tuple[BBox, ...] | list[BBox], settings: PdfSettings) -> bool:
    """Whether curves or slanted lines (a plot, a drawing) fill the region: the
    aligned tick labels of a row of charts are not a table."""
    inside = 0
    d = settings.figure_near
    near = (bbox[0] - d, bbox[1] - d, bbox[2] + d, bbox[3] + d)
    for g in graphics:
        if g[0] < near[2] and g[2] > near[0] and g[1] < near[3] and g[3] > near[1]:
            inside += 1
            if inside >= settings.figure_min_graphics:
                return True
    return False
