"""McNemar's test for two configurations scored on the same queries.

Only the discordant queries carry information: ``b`` = A right and B wrong,
``c`` = A wrong and B right. Under the null hypothesis (no difference) each
discordant query is a fair coin, so with few of them the exact two-sided
binomial test is used; with many, the continuity-corrected chi-square
``(|b - c| - 1)² / (b + c)`` on one degree of freedom (Edwards 1948).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

EXACT_BELOW = 25
"""Use the exact binomial test when ``b + c`` is below this (the usual rule:
the chi-square approximation needs about 25 discordant pairs)."""


@dataclass(frozen=True)
class McNemar:
    b: int  # A correct, B wrong
    c: int  # A wrong, B correct
    statistic: float  # min(b, c) for the exact test, the chi-square otherwise
    p_value: float
    method: str  # "exact" | "chi2-cc" | "none" (no discordant pairs)
    n: int = 0

    def as_tuple(self) -> tuple[int, int, float, float]:
        return self.b, self.c, self.statistic, self.p_value


def mcnemar(a_correct: Sequence[bool], b_correct: Sequence[bool], exact_below: int = EXACT_BELOW) -> McNemar:
    """McNemar's test on paired per-query outcomes of configurations A and B."""
    if len(a_correct) != len(b_correct):
        raise ValueError(f"paired outcomes needed: {len(a_correct)} for A, {len(b_correct)} for B")
    b = sum(1 for x, y in zip(a_correct, b_correct) if x and not y)
    c = sum(1 for x, y in zip(a_correct, b_correct) if y and not x)
    n = len(a_correct)
    if b + c == 0:
        return McNemar(0, 0, 0.0, 1.0, "none", n)
    if b + c < exact_below:
        from scipy.stats import binom

        p = min(1.0, 2.0 * float(binom.cdf(min(b, c), b + c, 0.5)))
        return McNemar(b, c, float(min(b, c)), p, "exact", n)
    from scipy.stats import chi2

    statistic = (abs(b - c) - 1) ** 2 / (b + c)
    return McNemar(b, c, float(statistic), float(chi2.sf(statistic, 1)), "chi2-cc", n)
