"""A question that asks two things (issue 40's multi-document questions):
``lãi suất trong họ bị giới hạn bao nhiêu và Bộ luật Dân sự giới hạn lãi
suất vay thế nào`` needs Decree 19's article and the Civil Code's. Ranked
whole, one document fills the list (and naming the Civil Code narrows to
it); ranked clause by clause and interleaved, each clause's best unit is in
view.

:func:`split_clauses` splits a query at ``và`` / ``so với`` (accents
optional) when both halves hold three words or more and the halves are two
questions: the first ends with a question word (``không``, ``bao nhiêu``,
``thế nào``, ``là gì`` …), or one half names a document the other does not.
A query that cites a unit is never split (the caller checks).
:func:`interleave` merges the clauses' rankings, first of each, then second
of each, each position once.

Nothing here imports Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..textnorm import fold

_JOINT = re.compile(r"(?:,\s*)?\b(?:va|so voi)\b")
_ASKED = re.compile(r"(?:khong|bao nhieu|the nao|ra sao|la gi|o dau|theo dau|tai dau|nao|gi)\s*[?,]?\s*$")
_WORD = re.compile(r"\w+")


def split_clauses(query: str, names_in: Callable[[str], Sequence[str]]) -> list[str]:
    """The query's two clauses (as written), or [] when it asks one thing.
    ``names_in(text)``: the documents ``text`` names."""
    folded = fold(query)
    if len(folded) != len(query):  # folding changed the length (a ligature): leave it whole
        return []
    for found in _JOINT.finditer(folded):
        left, right = query[: found.start()].strip(" ,"), query[found.end() :].strip(" ,")
        if len(_WORD.findall(left)) < 3 or len(_WORD.findall(right)) < 3:
            continue
        if _ASKED.search(fold(left)) or set(names_in(left)) != set(names_in(right)):
            return [left, right]
    return []


def interleave(rankings: Sequence[Sequence[tuple[int, float]]], k: int) -> list[tuple[int, float]]:
    """The rankings' first entries, then their second ones, …; each position
    once (where it first comes), ``k`` at most."""
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for depth in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if depth < len(ranking) and ranking[depth][0] not in seen:
                seen.add(ranking[depth][0])
                out.append(ranking[depth])
    return out[:k]
