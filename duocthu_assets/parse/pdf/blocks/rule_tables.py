"""Rules-bounded (booktabs) tables: horizontal rules of the same extent
stacked on top of each other, the rows between them tabular, and the rows
under the last rule that keep the table's column grid
(:func:`.extent.grow_down`: a table cut by a page or column break has no
closing rule). A lone rule with grid rows over it at the top of a column is
the closing rule of a continued part (:func:`find_continued_parts`)."""

from __future__ import annotations

from ....model import BlockKind, BlockShape
from .candidates import BlockCandidate, drop_nested
from .extent import grow_down, rows_above_rule
from .not_tables import is_figure
from ..records import Fragment, Rule
from ....settings.pdf import PdfSettings
from .scoring import tabular_evidence


def find_rule_bounded_tables(stacks: list[list[Rule]], partial: list[Rule], fragments: list[Fragment], settings: PdfSettings, body_size: float, graphics=()) -> list[BlockCandidate]:
    """Tables drawn with horizontal rules only (above, below, maybe under the
    header): the largest window of a stack whose text is tabular."""
    out: list[BlockCandidate] = []
    for stack in stacks:
        k = len(stack)
        used: list[tuple[int, int]] = []
        for size in range(k, 1, -1):
            for i in range(0, k - size + 1):
                j = i + size - 1
                if any(not (j < a or i > b) for a, b in used):
                    continue
                top, bottom = stack[i], stack[j]
                bbox = (min(top.x0, bottom.x0), top.pos, max(top.x1, bottom.x1), bottom.pos)
                if j == k - 1:
                    bbox = grow_down(bbox, fragments)
                if is_figure(bbox, graphics, settings):
                    continue
                evidence = tabular_evidence(fragments, bbox, [], [], settings, settings.table_min_rows, body_size)
                if evidence is None:
                    continue
                merged = evidence.merged_header or any(
                    bbox[0] - 1 <= r.x0 and r.x1 <= bbox[2] + 1 and (r.x1 - r.x0) < 0.9 * (bbox[2] - bbox[0]) and bbox[1] < r.pos < bbox[3]
                    for r in partial
                )
                shape = BlockShape.MULTI_LEVEL_OR_MERGED_HEADER if merged else BlockShape.SIMPLE_TABLE
                out.append(BlockCandidate(BlockKind.TABLE, shape, bbox, "rules"))
                used.append((i, j))
    return drop_nested(out)



MIN_CLOSING_RULE = 60.0  # points: shorter lone rules are underlines, fraction bars


def find_continued_parts(lone: list[Rule], fragments: list[Fragment], settings: PdfSettings, body_size: float, graphics=()) -> list[BlockCandidate]:
    """Parts of a table continued from the page or column before: rows that
    keep a column grid from the top of their column down to a lone closing
    rule, with tabular evidence."""
    out: list[BlockCandidate] = []
    for rule in lone:
        if rule.x1 - rule.x0 < MIN_CLOSING_RULE:
            continue
        bbox = rows_above_rule(rule.x0, rule.pos, rule.x1, fragments)
        if bbox is None or is_figure(bbox, graphics, settings):
            continue
        evidence = tabular_evidence(fragments, bbox, [], [], settings, settings.table_min_rows, body_size)
        if evidence is None:
            continue
        shape = BlockShape.MULTI_LEVEL_OR_MERGED_HEADER if evidence.merged_header else BlockShape.SIMPLE_TABLE
        out.append(BlockCandidate(BlockKind.TABLE, shape, bbox, "rules"))
    return drop_nested(out)
