"""One page laid out: its tables and formulas lifted (the rule-based finders
run only on a page that draws lines or holds math), the rest put in reading
order, a region set sideways laid out in its own frame, and paragraphs made
once the document's line spacing is known."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from ....model import BlockKind, BlockShape
from ....settings.pdf import PdfSettings
from ..blocks.candidates import BlockCandidate, Drawings
from ..blocks.display_math import has_lone_operator, may_hold_math
from ..blocks.find import find_rule_blocks
from ..blocks.formulas import bar_fragments, display_bars
from ..blocks.grids import cut_at_rules
from ..furniture.bands import is_rotated
from ..furniture.detect import PageFurniture
from ..geometry import BBox, center, contains_point, union
from ..read.fractions import fraction_bars, join_inline_fractions
from ..read.ocr_need import needs_ocr
from ..read.orientation import turned_box
from ..read.pictures import reading_position
from ..read.script_marks import attach_script_fragments
from ..records import Fragment, PageContent, Rule, fragments_in
from .items import Leaf
from .order import order_page
from .paragraphs import Para, leaf_paragraphs, split_paragraphs


@dataclass(frozen=True)
class PageLayout:
    """One page laid out: its items in reading order (paragraphs and the
    blocks lifted among them), the column regions they came from, and what
    each lifted block took of the page's fragments."""

    page_no: int
    printed_page: int | None
    printed_label: str
    items: tuple[Para | BlockCandidate, ...]
    leaves: tuple[Leaf, ...]
    block_fragments: dict[int, tuple[Fragment, ...]]  # id(candidate) → the fragments it lifts
    needs_ocr: bool
    rule_scan: bool = False  # the rule-based finders ran (the page draws lines)
    across: tuple[Fragment, ...] = ()  # vertical lines of the body, each its own paragraph after the page's prose
    rule_seconds: float = 0.0
    # a region set sideways (PageContent.sideways): its leaves, laid out in the
    # region's own frame, and the turn taking that frame back to the page's
    sideways_leaves: frozenset[int] = frozenset()  # ids of those leaves
    sideways_back: object = None
    sideways_items: frozenset[int] = frozenset()  # ids of the items made from them
    pictures: tuple[BBox, ...] = ()  # PageContent.pictures' boxes: placed among the items by with_paragraphs


def usable_rules(content: PageContent, body: list[Fragment], furniture_fragments: list[Fragment]) -> list[Rule]:
    """The page's rules minus the ones that belong to its furniture: a rule
    between a running header and the body (or the body and a footer) that
    stands clear of the body text."""
    if not furniture_fragments or not body:
        return list(content.rules)
    top = min(f.bbox[1] for f in body)
    bottom = max(f.bbox[3] for f in body)
    head = [f for f in furniture_fragments if f.bbox[3] <= top]
    foot = [f for f in furniture_fragments if f.bbox[1] >= bottom]
    head_y = max((f.bbox[3] for f in head), default=None)
    foot_y = min((f.bbox[1] for f in foot), default=None)
    out = []
    for r in content.rules:
        if r.horizontal and head_y is not None and head_y - 1 <= r.pos <= top - 6:
            continue
        if r.horizontal and foot_y is not None and bottom + 6 <= r.pos <= foot_y + 1:
            continue
        out.append(r)
    return out



def layout_page(content: PageContent, furniture: PageFurniture, settings: PdfSettings, body_size: float) -> PageLayout:
    """Lift the page's blocks and put the rest in reading order (paragraphs
    are made later, once the document's line spacing is known)."""
    furniture_frags = [f for i, f in enumerate(content.fragments) if i in furniture.furniture]
    body = [f for i, f in enumerate(content.fragments) if i not in furniture.furniture and not is_rotated(f)]
    # vertical lines inside the page (a rotated table label, an axis title): their own
    # paragraphs after the page's prose, never interleaved with horizontal lines
    across = [f for i, f in enumerate(content.fragments) if i not in furniture.furniture and is_rotated(f)]
    started = time.perf_counter()
    rules = usable_rules(content, body, furniture_frags)
    # gate: the rule-based finders only run on a page that draws lines or bars (or types a fraction bar, or holds math)
    may_hold = bool(body) and (bool(rules) or bool(display_bars(content.bars, body_size)) or bool(bar_fragments(body)) or may_hold_math(body) or has_lone_operator(body))
    rule_blocks = find_rule_blocks(rules, body, settings, body_size, content.graphics, content.bars) if may_hold else None
    rule_seconds = time.perf_counter() - started
    lifted = list(rule_blocks.blocks) if rule_blocks else []
    if content.figures:  # a drawn figure holds what lies in it: its labels, a legend taken for a formula
        drawn = [BlockCandidate(BlockKind.PICTURE, BlockShape.PICTURE, box, "drawn") for box in content.figures]
        lifted = [b for b in lifted if not any(contains_point(f.bbox, *center(b.bbox)) for f in drawn)] + drawn
    remaining = [f for f in body if not any(contains_point(b.bbox, *center(f.bbox), pad=1.0) for b in lifted)]
    remaining = attach_script_fragments(remaining, content.script_hosts)  # scripts MuPDF set apart, back in their prose line
    remaining = join_inline_fractions(remaining, fraction_bars(content))  # a fraction set in a prose line: ``a/b`` in it
    drawings = Drawings(content.graphics, rule_blocks.horizontal, rule_blocks.vertical) if rule_blocks else Drawings(content.graphics)
    leaves = order_page(remaining, lifted, settings, body_size, drawings)
    block_fragments: dict[int, tuple[Fragment, ...]] = {}
    taken: set[int] = set()
    lifted_all = [item.block for leaf in leaves for item in leaf.items if item.block is not None]
    across = [f for f in across if not any(contains_point(b.bbox, *center(f.bbox), pad=1.0) for b in lifted_all)]
    for leaf in leaves:
        for item in leaf.items:
            if item.block is not None:
                # furniture inside a table (a repeated header row taken for a
                # running header) still belongs to the block's text; a line
                # where two blocks' boxes overlap belongs to the first only
                mine = [f for f in fragments_in(item.block.bbox, list(content.fragments)) if id(f) not in taken]
                taken.update(map(id, mine))
                if item.block.kind is BlockKind.TABLE and drawings.vertical:
                    mine = cut_at_rules(mine, [v for v in drawings.vertical if contains_point(item.block.bbox, v.x0, (v.y0 + v.y1) / 2, pad=1.0)])
                block_fragments[id(item.block)] = tuple(mine)
    layout = PageLayout(
        page_no=content.page_no,
        printed_page=furniture.printed_page,
        printed_label=furniture.printed_label,
        items=(),
        leaves=tuple(leaves),
        block_fragments=block_fragments,
        needs_ocr=needs_ocr(content, body + across, settings),
        across=tuple(across),
        rule_scan=rule_blocks is not None,
        rule_seconds=rule_seconds,
        # an image inside a lifted table or figure is shown by that block's crop: no block of its own
        pictures=tuple(p.bbox for p in content.pictures if not any(contains_point(b.bbox, *center(p.bbox)) for b in lifted_all)),
    )
    if content.sideways is not None and content.sideways.words:
        layout = with_sideways(layout, content, settings, body_size)
    return layout


def with_sideways(layout: PageLayout, content: PageContent, settings: PdfSettings, body_size: float) -> PageLayout:
    """The page's layout with its sideways region laid out in the region's
    own frame (tables found there as on a page of their own), read before
    the upright text when it stands to its left or above it, after it
    otherwise. Its blocks keep their boxes in the region's frame until
    :func:`..assemble.assemble` turns them back to the page's."""
    region = content.sideways
    none = PageFurniture(content.page_no, frozenset(), None, "")
    sub = layout_page(region, none, settings, body_size)
    back = ~content.sideways_matrix
    box = turned_box(union(w.bbox for w in region.words), back)
    upright = union(w.bbox for w in content.words) if content.words else box
    # to the left of the upright text (its middle left of theirs), or above all of it
    first = (box[0] + box[2]) < (upright[0] + upright[2]) or box[3] <= upright[1] + 1
    leaves = sub.leaves + layout.leaves if first else layout.leaves + sub.leaves
    return dataclasses.replace(
        layout,
        leaves=leaves,
        block_fragments={**layout.block_fragments, **sub.block_fragments},
        rule_scan=layout.rule_scan or sub.rule_scan,
        rule_seconds=layout.rule_seconds + sub.rule_seconds,
        sideways_leaves=frozenset(map(id, sub.leaves)),
        sideways_back=back,
    )


def with_paragraphs(layout: PageLayout, settings: PdfSettings, line_gap: float) -> PageLayout:
    """The layout with its items: each column region's paragraphs (split at
    the document's ``line_gap``), the vertical lines after them, and each
    picture where it is read."""
    items: list[Para | BlockCandidate] = []
    sideways: set[int] = set()
    for leaf in layout.leaves:
        made = split_paragraphs(leaf_paragraphs(layout.page_no, leaf), leaf, settings, line_gap)
        if id(leaf) in layout.sideways_leaves:
            sideways.update(map(id, made))
        items += made
    items += [Para(layout.page_no, ((f,),), f.bbox) for f in layout.across]
    for box in layout.pictures:  # each where it is read: it lifts no words, it marks where something is not text
        items.insert(reading_position(items, box), BlockCandidate(BlockKind.PICTURE, BlockShape.PICTURE, box, "picture"))
    return dataclasses.replace(layout, items=tuple(items), sideways_items=frozenset(sideways))
