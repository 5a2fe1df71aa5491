"""What every block finder returns: a candidate block, and the drawings the
text-only finders need. Shared by :mod:`.grids`, :mod:`.rule_tables`,
:mod:`.borderless`, :mod:`.formulas` and the page orchestrator
:mod:`.find`."""

from __future__ import annotations

from dataclasses import dataclass

from ....model import BlockKind, BlockShape
from ..geometry import BBox, union
from ..records import Fragment, Rule
from ..records import fragments_in


@dataclass(frozen=True)
class BlockCandidate:
    kind: BlockKind
    shape: BlockShape
    bbox: BBox
    finder: str  # "grid" | "rules" | "whitespace" | "fraction"



@dataclass(frozen=True)
class Drawings:
    """What of a page's vector graphics the text-only finders need."""

    graphics: tuple[BBox, ...] = ()  # paths with curves or slanted lines
    horizontal: tuple[Rule, ...] = ()  # merged horizontal rules
    vertical: tuple[Rule, ...] = ()  # merged vertical rules and box edges (column separators for the reading order)



def drop_nested(cands: list[BlockCandidate]) -> list[BlockCandidate]:
    """Of candidates nested in one another keep the inner ones: a ruled frame
    around a page or a section holds tables, it is not one."""
    keep = [c for c in cands if not any(o is not c and inside_box(o.bbox, c.bbox) and o.bbox != c.bbox for o in cands)]
    unique: list[BlockCandidate] = []
    for c in keep:
        if not any(inside_box(c.bbox, k.bbox) for k in unique):
            unique.append(c)
    return sorted(unique, key=lambda c: (c.bbox[1], c.bbox[0]))


def inside_box(a: BBox, b: BBox, pad: float = 2.0) -> bool:
    return a[0] >= b[0] - pad and a[1] >= b[1] - pad and a[2] <= b[2] + pad and a[3] <= b[3] + pad


def cover_fragments(block: BlockCandidate, fragments: list[Fragment]) -> BlockCandidate:
    """The block's box grown to hold the whole of every fragment it lifts
    (those whose centre it holds): a cell or a matrix row sticking out of
    the rules is in the box, and so in the crop."""
    bbox = block.bbox
    for _ in range(20):  # growing may bring another fragment's centre inside: to a fixed point
        inside = fragments_in(bbox, fragments)
        grown = union([bbox, *(f.bbox for f in inside)]) if inside else bbox
        if grown == bbox:
            break
        bbox = grown
    return block if bbox == block.bbox else BlockCandidate(block.kind, block.shape, bbox, block.finder)


RULE_REACH = 6.0  # points: a rule this close under or over a table's text, within its width, is the table's


def cover_rules(block: BlockCandidate, horizontal) -> BlockCandidate:
    """A table's box grown over the horizontal rules that close it: within
    its width and at most :data:`RULE_REACH` above or below its text (the
    rule under a total row), so the crop shows them."""
    if block.kind is not BlockKind.TABLE:
        return block
    x0, y0, x1, y1 = block.bbox
    near = [r for r in horizontal if r.x0 >= x0 - 2 and r.x1 <= x1 + 2 and y0 - RULE_REACH <= r.pos <= y1 + RULE_REACH]
    if not near:
        return block
    bbox = union([block.bbox, *((r.x0, r.pos - 0.5, r.x1, r.pos + 0.5) for r in near)])
    return block if bbox == block.bbox else BlockCandidate(block.kind, block.shape, bbox, block.finder)
