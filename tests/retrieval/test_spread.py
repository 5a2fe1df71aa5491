"""A ranking spread over units (issue 40): each unit's first chunk before
any unit's second, the first hit never moved."""

from __future__ import annotations

import pytest

from duocthu_assets.retrieval.spread import by_document, own_text_first, spread


def test_a_units_repeats_wait_until_every_unit_had_its_turn():
    ranking = [("a", 1), ("a", 2), ("a", 3), ("b", 1), ("c", 1), ("b", 2)]
    assert spread(ranking, key=lambda hit: hit[0]) == [("a", 1), ("b", 1), ("c", 1), ("a", 2), ("a", 3), ("b", 2)]
    assert spread(ranking, key=lambda hit: hit[0], cap=2) == [("a", 1), ("a", 2), ("b", 1), ("c", 1), ("b", 2), ("a", 3)]
    assert spread([], key=lambda hit: hit) == []


def test_a_cap_below_one_is_refused():
    with pytest.raises(ValueError, match="cap must be 1 or more, not 0"):
        spread([1, 2], key=lambda hit: hit, cap=0)


def test_the_named_documents_units_come_in_turn_before_the_others():
    ranking = ["a1", "a2", "x1", "a3", "b1", "b2"]
    assert by_document(ranking, document=lambda hit: hit[0], documents=["a", "b"]) == ["a1", "b1", "a2", "b2", "a3", "x1"]
    assert by_document(ranking, document=lambda hit: hit[0], documents=["c"]) == ranking  # a document with no entry takes no turn


def test_an_amending_article_first_gives_way_to_the_next_own_rule():
    amending = {"amend13", "amend12"}
    is_amending = amending.__contains__
    # the violation: another decree's text quoted by an amending article ranked first
    assert own_text_first(["amend13", "art11", "art10"], is_amending) == ["art11", "amend13", "art10"]
    assert own_text_first(["amend13", "amend12", "art11"], is_amending, depth=3) == ["art11", "amend13", "amend12"]
    assert own_text_first(["amend13", "amend12", "art11"], is_amending) == ["amend13", "amend12", "art11"]  # beyond depth: kept
    assert own_text_first(["art11", "amend13"], is_amending) == ["art11", "amend13"]
    assert own_text_first([], is_amending) == []


def test_an_amending_depth_below_two_is_refused():
    with pytest.raises(ValueError, match="depth must be 2 or more, not 1"):
        own_text_first(["a"], lambda hit: True, depth=1)
