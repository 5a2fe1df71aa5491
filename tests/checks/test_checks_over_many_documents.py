"""A run's checks ask Dagster for the latest materialization of each of its
documents. Dagster refuses a query for more than 10,000 records
(``MAX_LIMIT_GET_EVENT_RECORDS``), and a one-ingest rebuild of 10,021
documents embeds them in one run: its checks step failed on that, leaving two
blocking checks *planned* for every document and none of them in the index.
Here the limit is 2 and one run holds 3 documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from checks.asset_checks import fetch_batch_size
from duocthu_assets.cli import main
from duocthu_assets.runtime.gates import check_statuses, passing_documents
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.warehouse import Warehouse

pytestmark = pytest.mark.slow


def test_a_run_over_more_documents_than_dagster_fetches_at_once_evaluates_every_check(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("MAX_LIMIT_GET_EVENT_RECORDS", "2")
    assert fetch_batch_size() == 2
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, price in (("a", 1200), ("b", 3400), ("c", 5600)):
        (inbox / f"{name}.csv").write_text(f"ten_thuoc,gia\nAmoxicilin {name},{price}\n")
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0
    instance = open_instance(str(warehouse))
    try:
        ingest_runs = [r for r in instance.get_run_records() if r.dagster_run.job_name == "ingest"]
        assert any(r.dagster_run.tags.get("dagster/asset_partition_range_start") == "a.csv"
                   and r.dagster_run.tags.get("dagster/asset_partition_range_end") == "c.csv" for r in ingest_runs)
        statuses = check_statuses(instance, ["a.csv", "b.csv", "c.csv"])
        assert {s for by_check in statuses.values() for s in by_check.values()} == {"SUCCEEDED"}
        assert passing_documents(instance, Warehouse(str(warehouse)), ["a.csv", "b.csv", "c.csv"]).passed == ["a.csv", "b.csv", "c.csv"]
    finally:
        instance.dispose()


def test_the_batch_follows_dagsters_limit_and_stays_bounded(monkeypatch):
    monkeypatch.delenv("MAX_LIMIT_GET_EVENT_RECORDS", raising=False)
    assert fetch_batch_size() == 1000
    monkeypatch.setenv("MAX_LIMIT_GET_EVENT_RECORDS", "not a number")
    assert fetch_batch_size() == 1000


def test_a_checks_step_that_raises_leaves_its_documents_to_be_built_again(tmp_path: Path, monkeypatch, capsys):
    """The assets of the run were written but its checks step raised: the
    documents are errors, not recorded as built, so the next ingest builds
    and checks them (before, they stayed *not checked* for good, each ingest
    calling them unchanged)."""
    import checks.asset_checks as asset_checks

    monkeypatch.setenv("MAX_LIMIT_GET_EVENT_RECORDS", "2")
    monkeypatch.setattr(asset_checks, "fetch_batch_size", lambda: 3)  # the query that failed at 10,021
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, price in (("a", 1200), ("b", 3400), ("c", 5600)):
        (inbox / f"{name}.csv").write_text(f"ten_thuoc,gia\nAmoxicilin {name},{price}\n")
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse)]) != 0
    first = capsys.readouterr().out
    assert "3 documents: 3 failed" in first and "Cannot fetch more than 2 event records at a time" in first
    monkeypatch.undo()
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse)]) == 0
    second = capsys.readouterr()
    assert "3 documents, 3 to build" in second.err and "3 documents: 3 ok" in second.out
