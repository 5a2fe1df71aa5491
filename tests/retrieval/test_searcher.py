"""The final ranking (issue 40): a cited unit first, then the documents the
query names -- two named, their units in turn; one named, the base's best
kept in view when another document holds it."""

from __future__ import annotations

from types import SimpleNamespace

import pyarrow as pa

from duocthu_assets.retrieval.searcher import amendments_after, apply_resolution
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


def test_an_amending_article_first_gives_way_unless_the_query_asks_about_amendments():
    ranked = [(7, 0.99), (3, 0.96), (5, 0.70)]  # 7: "Điều 13. Sửa đổi, bổ sung … Nghị định số 103/2024/NĐ-CP"
    assert amendments_after(ranked, Resolution(""), {7}, "có được miễn tiền thuê đất không") == [(3, 0.96), (7, 0.99), (5, 0.70)]
    assert amendments_after(ranked, Resolution(""), {7}, "nghi dinh 50 sua doi nhung gi") == ranked
    assert amendments_after(ranked, Resolution("found", "Điều 13", (7,)), {7}, "điều 13 quy định gì") == ranked
    assert amendments_after(ranked, Resolution(""), set(), "có được miễn tiền thuê đất không") == ranked


def test_a_decrees_chunk_outside_its_articles_first_gives_way_unless_the_query_asks_about_a_form():
    ranked = [(9, 0.99), (3, 0.96), (5, 0.70)]  # 9: Decree 99's annexed form, "ký, con dấu/Signature and seal"
    outside = {9}.__contains__
    query = "tên công ty viết bằng tiếng nước ngoài thì điền thế nào"
    assert amendments_after(ranked, Resolution(""), set(), query, outside) == [(3, 0.96), (9, 0.99), (5, 0.70)]
    assert amendments_after(ranked, Resolution(""), set(), query) == ranked  # the violation: nothing says which lie outside
    assert amendments_after(ranked, Resolution(""), set(), "mẫu số 01a ghi những gì", outside) == ranked  # it asks about a form
    assert amendments_after(ranked, Resolution(""), set(), "phu luc nghi dinh 99", outside) == ranked
    assert amendments_after(ranked, Resolution("found", "Điều 7", (9,)), set(), "điều 7 quy định gì", outside) == ranked
    # an amending article and a form both first: each gives way as its own exception allows
    assert amendments_after([(7, 0.99), (9, 0.98), (3, 0.9)], Resolution(""), {7}, query, outside) == [(7, 0.99), (9, 0.98), (3, 0.9)]
