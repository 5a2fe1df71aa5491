"""Spreading a ranking over units (issue 40): an article cut into five
chunks fills half of a top ten with one answer, and the unit a second
question or a second document needs falls out of view.

:func:`spread` keeps the ranking's order but lets each unit (whatever
``key`` says: the structure's document and ``Điều``, or section) hold at
most ``cap`` places before every other unit has had its turn: the repeats
follow, in their own order. The first hit never moves.

Nothing here imports Dagster.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")


def spread(ranking: Sequence[T], key: Callable[[T], Hashable], cap: int = 1) -> list[T]:
    """``ranking`` with each key's entries beyond its first ``cap`` moved
    after all the others (both parts in their own order)."""
    if cap < 1:
        raise ValueError(f"cap must be 1 or more, not {cap}")
    seen: dict[Hashable, int] = {}
    first: list[T] = []
    later: list[T] = []
    for entry in ranking:
        unit = key(entry)
        seen[unit] = seen.get(unit, 0) + 1
        (first if seen[unit] <= cap else later).append(entry)
    return first + later


def by_document(ranking: Sequence[T], document: Callable[[T], Hashable], documents: Sequence[Hashable]) -> list[T]:
    """``ranking`` with the entries of ``documents`` (a query names them)
    first, taken in turn, one of each document (in the order their best
    entries come) then the second of each …; the other entries after, in
    their own order. Each named document's best units are in view, not only
    the one that matches best."""
    named = set(documents)
    own: dict[Hashable, list[T]] = {}
    rest: list[T] = []
    for entry in ranking:
        doc = document(entry)
        (own.setdefault(doc, []) if doc in named else rest).append(entry)
    turns = list(own.values())
    merged = [turns[i][depth] for depth in range(max((len(t) for t in turns), default=0)) for i in range(len(turns)) if depth < len(turns[i])]
    return merged + rest


def own_text_first(ranking: Sequence[T], amending: Callable[[T], bool], depth: int = 2) -> list[T]:
    """``ranking`` with first place given to the best entry among the first
    ``depth`` that is not an amending article, when the first is one.

    An article that amends another document (``Điều 13. Sửa đổi, bổ sung một
    số điều của Nghị định số 103/2024/NĐ-CP``) quotes that document's
    provisions at length, so it matches a question about them as well as the
    article that rules on it does; the question asks for the rule itself
    (none of the dev gold's answers is an amending article); the searcher
    gives a chunk of a decree outside its articles (an annexed form, the
    signature block) the same treatment. Only the first
    ``depth`` places are reordered: the top ``depth`` hold the same entries."""
    if depth < 2:
        raise ValueError(f"depth must be 2 or more, not {depth}")
    head = list(ranking[:depth])
    if not head or not amending(head[0]):
        return list(ranking)
    own = next((i for i, entry in enumerate(head) if not amending(entry)), None)
    if own is None:
        return list(ranking)
    return [head[own], *head[:own], *head[own + 1 :], *ranking[depth:]]
