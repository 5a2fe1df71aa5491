"""Find the tables and 2D formulas on a page, so they can be lifted out of the
prose and quarantined (ADR 0006).

Only regions a page's drawings or text layout make possible are examined:

- ``rules`` → :func:`merge_rules` → :func:`rules_to_grids` → grid tables
  (ruled, with merged header cells or not);
- horizontal rules of the same extent stacked on top of each other →
  :func:`rule_stacks` → tables with rules only above and below (booktabs);
- short horizontal rules with text centred above and below →
  :func:`find_fractions` → ``formula_2d``;
- rows of several text fragments whose gaps line up →
  :func:`find_whitespace_tables` → borderless tables (run per column region
  by the layout, so a two-column page is not taken for a two-column table).

Every candidate must then show tabular evidence (:func:`tabular_evidence`):
at least two columns and two rows of text, and little prose, so a framed
paragraph, an underlined line or a page of prose with numbers is not a table.
The functions are pure: fragments and rules in, candidates out.

One module per finder, each a chain of small pure functions:
:mod:`.grids` (ruled grids), :mod:`.rule_tables` (rules-bounded, booktabs),
:mod:`.borderless` (whitespace tables), :mod:`.formulas` (fractions),
:mod:`.display_math` (display math), :mod:`.not_tables` (figure rejection),
:mod:`.scoring` (tabular evidence) and :mod:`.extent` (a table's rows past
its last rule).
This module runs them on one page.
"""

from __future__ import annotations

from dataclasses import dataclass

from ....model import BlockKind, BlockShape
from .borderless import find_whitespace_tables, split_numeric_cells
from .candidates import BlockCandidate, Drawings, cover_fragments, cover_rules, drop_nested, inside_box
from .not_tables import is_figure
from .formulas import bar_fragments, display_bars, find_fractions, over_its_bars, with_cell_lines
from ..geometry import center, contains_point, overlaps, union
from .grids import Grid, bridge_rule_gaps, find_grid_tables, grid_merged_header, rule_stacks, rules_to_grids, trim_grid
from ..read.rules import merge_rules
from ..records import Fragment, Rule
from .display_math import find_display_math, find_stacked_math, find_word_formulas, has_lone_operator, may_hold_math
from .extent import grow_down
from .rule_tables import find_continued_parts, find_rule_bounded_tables
from ....settings.pdf import PdfSettings
from .scoring import Evidence, column_separators, is_prose_row, row_box, tabular_evidence, text_rows
from ..records import fragments_in

@dataclass(frozen=True)
class RuleBlocks:
    """What the rule-based finders found on a page, and the intermediate
    steps (kept for debugging, as pdfplumber's TableFinder does)."""

    horizontal: tuple[Rule, ...]
    vertical: tuple[Rule, ...]
    grids: tuple[Grid, ...]
    stacks: tuple[tuple[Rule, ...], ...]
    blocks: tuple[BlockCandidate, ...]


def _outermost_formulas(blocks: list[BlockCandidate]) -> list[BlockCandidate]:
    """A formula block inside another one, once both have grown over their
    fragments, is part of it (a fraction a display finder also took whole,
    seen in a corpus paper), not a second block holding the same text."""
    formulas = [(i, b.bbox) for i, b in enumerate(blocks) if b.kind is BlockKind.FORMULA]
    return [
        b for i, b in enumerate(blocks)
        if b.kind is not BlockKind.FORMULA
        or not any(j != i and inside_box(b.bbox, box, pad=0.5) and (box != b.bbox or j < i) for j, box in formulas)
    ]


def find_rule_blocks(rules: list[Rule], fragments: list[Fragment], settings: PdfSettings, body_size: float, graphics=(), short_bars=()) -> RuleBlocks:
    """Grid tables, rule-bounded tables and stacked fractions of one page
    (``short_bars``: strokes too short to be rules, fraction bars)."""
    if not rules:
        # fractions typed with a bar of ─── or ___ need no drawing
        drawn = display_bars(short_bars, body_size)
        typed = find_fractions(drawn, fragments, settings) if drawn or bar_fragments(fragments) else []
        shown = []
        if may_hold_math(fragments):
            shown = find_display_math(_outside(fragments, typed))
            shown += find_stacked_math(_outside(fragments, typed + shown), list(short_bars))
        shown += find_word_formulas(_outside(fragments, typed + shown)) if has_lone_operator(fragments) else []
        found = _outermost_formulas([cover_fragments(over_its_bars(b, list(short_bars), fragments, settings), fragments) for b in typed + shown])
        found = with_cell_lines(found, fragments)
        return RuleBlocks((), (), (), (), tuple(sorted(found, key=lambda b: (b.bbox[1], b.bbox[0]))))
    tol = settings.snap_tolerance
    horizontal, vertical = merge_rules(rules, tol)
    vertical = bridge_rule_gaps(horizontal, vertical, tol)
    grids, loose = rules_to_grids(horizontal, vertical, tol)
    blocks = find_grid_tables(grids, fragments, settings, body_size, graphics)
    blocks = [_grown(b, fragments, blocks) for b in blocks]
    remaining = _outside(fragments, blocks)
    loose = [r for r in loose if not any(inside_box(r.bbox, b.bbox) for b in blocks)]
    stacks = rule_stacks(loose, 2 * tol + 2)
    in_stacks = {id(r) for s in stacks for r in s}
    partial = [r for r in loose if id(r) not in in_stacks]
    ruled = find_rule_bounded_tables(stacks, partial, remaining, settings, body_size, graphics)
    lone = [r for r in partial if not any(inside_box(r.bbox, b.bbox) for b in ruled)]
    ruled = ruled + find_continued_parts(lone, _outside(remaining, ruled), settings, body_size, graphics)
    blocks = blocks + ruled
    remaining = _outside(remaining, ruled)
    used = [r for r in loose if any(inside_box(r.bbox, b.bbox) for b in ruled)]
    bars = [r for r in loose if r not in used and (r.x1 - r.x0) < 0.95 * _max_width(fragments)]
    fractions = find_fractions(bars + display_bars(short_bars, body_size), remaining, settings)
    blocks = blocks + fractions
    shown: list[BlockCandidate] = []
    if may_hold_math(fragments):
        shown = find_display_math(_outside(remaining, fractions))
        shown += find_stacked_math(_outside(remaining, fractions + shown), list(short_bars) + [r for r in horizontal if not any(inside_box(r.bbox, b.bbox) for b in blocks)])
    if has_lone_operator(remaining):
        shown += find_word_formulas(_outside(remaining, fractions + shown))
    blocks = blocks + shown
    bars = bars + list(short_bars)
    blocks = _outermost_formulas([cover_rules(cover_fragments(over_its_bars(b, bars, fragments, settings), fragments), horizontal) for b in blocks])
    blocks = with_cell_lines(blocks, fragments)
    return RuleBlocks(tuple(horizontal), tuple(vertical), tuple(grids), tuple(tuple(s) for s in stacks), tuple(sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))))


def _grown(block: BlockCandidate, fragments: list[Fragment], blocks: list[BlockCandidate]) -> BlockCandidate:
    """A ruled grid with the rows under its last rule that keep its columns."""
    others = [b.bbox for b in blocks if b is not block]
    bbox = grow_down(block.bbox, fragments, others)
    if bbox == block.bbox or any(inside_box(o, bbox) or overlaps(o, bbox) for o in others):
        return block
    return BlockCandidate(block.kind, block.shape, bbox, block.finder)


def _max_width(fragments: list[Fragment]) -> float:
    if not fragments:
        return 0.0
    return max(f.bbox[2] for f in fragments) - min(f.bbox[0] for f in fragments)


def _outside(fragments: list[Fragment], blocks: list[BlockCandidate]) -> list[Fragment]:
    return [f for f in fragments if not any(contains_point(b.bbox, *center(f.bbox), pad=1.0) for b in blocks)]


def join_stacked(blocks: list[BlockCandidate], fragments: list[Fragment], body_size: float) -> list[BlockCandidate]:
    """A borderless table right under a rule-bounded block of the same width,
    nothing between them, is one table: its header was ruled, its body not."""
    blocks = sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))
    out: list[BlockCandidate] = []
    for b in blocks:
        if out and b.kind is BlockKind.TABLE and out[-1].kind is BlockKind.TABLE and "whitespace" in (b.finder, out[-1].finder):
            a = out[-1]
            gap = b.bbox[1] - a.bbox[3]
            overlap = min(a.bbox[2], b.bbox[2]) - max(a.bbox[0], b.bbox[0])
            narrower = min(a.bbox[2] - a.bbox[0], b.bbox[2] - b.bbox[0])
            between = (min(a.bbox[0], b.bbox[0]), a.bbox[3], max(a.bbox[2], b.bbox[2]), b.bbox[1])
            if -2 <= gap <= 2.5 * body_size and overlap >= 0.7 * narrower and not fragments_in(between, fragments, pad=-1.0):
                merged = BlockShape.MULTI_LEVEL_OR_MERGED_HEADER in (a.shape, b.shape)
                out[-1] = BlockCandidate(
                    BlockKind.TABLE,
                    BlockShape.MULTI_LEVEL_OR_MERGED_HEADER if merged else BlockShape.SIMPLE_TABLE,
                    union([a.bbox, b.bbox]),
                    a.finder + "+" + b.finder,
                )
                continue
        out.append(b)
    return out


__all__ = [
    "may_hold_math", "has_lone_operator",
    "BlockCandidate", "Drawings", "Evidence", "Grid", "RuleBlocks", "bar_fragments", "column_separators",
    "drop_nested", "find_fractions", "find_grid_tables", "find_rule_blocks", "find_rule_bounded_tables",
    "find_whitespace_tables", "fragments_in", "grid_merged_header", "is_figure", "is_prose_row", "join_stacked",
    "merge_rules", "row_box", "rule_stacks", "rules_to_grids", "split_numeric_cells", "tabular_evidence",
    "text_rows", "trim_grid",
]
