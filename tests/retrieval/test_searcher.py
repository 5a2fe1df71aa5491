"""The final ranking (issue 40): a cited unit first, then the documents the
query names -- two named, their units in turn; one named, the base's best
kept in view when another document holds it."""

from __future__ import annotations

from types import SimpleNamespace

import pyarrow as pa

from duocthu_assets.retrieval.searcher import apply_resolution
from duocthu_assets.retrieval.structure import Resolution

INDEX = SimpleNamespace(rows=pa.table({"doc_id": ["blds", "blds", "blds", "nd19", "nd19", "nd99"]}))


def _order(resolution, base):
    return [p for p, _ in apply_resolution(resolution, [(p, 1.0 - i / 10) for i, p in enumerate(base)], INDEX, 10)]


def test_one_named_document_first_but_the_bases_best_elsewhere_stays_second():
    assert _order(Resolution("", documents=("blds",)), [3, 0, 5, 1, 2, 4]) == [0, 3, 1, 2, 5, 4]
    assert _order(Resolution("", documents=("blds",)), [0, 3, 1, 2]) == [0, 1, 2, 3]  # the best is in it: the named first


def test_two_named_documents_take_turns():
    assert _order(Resolution("", documents=("blds", "nd19")), [0, 1, 2, 5, 3, 4]) == [0, 3, 1, 4, 2, 5]


def test_a_cited_unit_comes_first_and_a_missing_one_shows_nothing():
    assert _order(Resolution("found", positions=(4,), documents=("nd19",)), [0, 3, 4, 1]) == [4, 3, 0, 1]  # no lead kept: it cites
    assert _order(Resolution("missing", documents=("blds",)), [0, 1]) == []
