"""No ingest run holds more than MAX_RUN_DOCUMENTS (duocthu_assets/ingest/plan.py)."""

from __future__ import annotations

from duocthu_assets.ingest import plan
from duocthu_assets.ingest.plan import (
    EMBEDDING_ASSET,
    INGEST_ASSETS,
    PlannedRun,
    at_most,
    plan_runs,
)

ALL = frozenset(INGEST_ASSETS)


def test_at_most_cuts_evenly_in_order():
    keys = [f"d{i:03d}" for i in range(10)]
    pieces = at_most(keys, 4)
    assert [len(p) for p in pieces] == [4, 3, 3] and [k for p in pieces for k in p] == keys
    assert at_most(keys, 10) == [keys] and at_most([], 3) == []


def test_a_large_inbox_makes_runs_of_at_most_the_limit(monkeypatch):
    monkeypatch.setattr(plan, "MAX_RUN_DOCUMENTS", 100)
    order = [f"doc_{i:05d}" for i in range(1000)]
    parse_runs = plan_runs({doc: ALL for doc in order}, order, workers=2)
    embed_runs = plan_runs({doc: frozenset({EMBEDDING_ASSET}) for doc in order}, order, workers=2)
    for runs, assets in ((parse_runs, ALL - {EMBEDDING_ASSET}), (embed_runs, frozenset({EMBEDDING_ASSET}))):
        assert max(len(r.keys) for r in runs) == 100 and len(runs) == 10
        assert [k for r in runs for k in r.keys] == order  # contiguous ranges, every document once
        assert {r.assets for r in runs} == {assets}
    assert plan_runs({"a": ALL}, ["a"], workers=2) == [PlannedRun(("a",), ALL)]


def test_a_large_document_runs_alone_after_the_others_its_embedding_next_round():
    order = [f"doc_{i:03d}" for i in range(60)]
    big = "doc_010"
    runs = plan_runs({doc: ALL for doc in order}, order, workers=2, alone=[big])
    assert runs[-1] == PlannedRun((big,), ALL - {EMBEDDING_ASSET})
    assert all(big not in r.keys for r in runs[:-1])
    assert sorted(k for r in runs[:-1] for k in r.keys) == sorted(set(order) - {big})
    # the next round: its embedding alone, after the others'
    embed = plan_runs({doc: frozenset({EMBEDDING_ASSET}) for doc in order}, order, workers=2, alone=[big])
    assert embed[-1] == PlannedRun((big,), frozenset({EMBEDDING_ASSET}))
    # one worker: the whole document in its one run, still last
    assert plan_runs({"a": ALL, big: ALL}, ["a", big], workers=1, alone=[big])[-1] == PlannedRun((big,), ALL)
