"""Vector rules: collinear pieces snapped and joined (the grid, strike and
table finders all start from merged rules)."""

from __future__ import annotations

from ..records import Rule
import statistics

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
