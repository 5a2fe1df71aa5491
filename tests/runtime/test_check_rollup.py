"""A partitioned check's roll-up (what the UI's check list, graph node and
catalog load: ``get_latest_asset_check_execution_by_key`` with no
partition) reads *failed* while any document's own latest evaluation fails
it, naming that document, and *passed* once every document's latest passed
(:mod:`duocthu_assets.runtime.check_rollup`). Runs real Dagster jobs on the
instance duocthu opens (its SQLite event log); the same statement serves
PostgreSQL (tests/scale/test_scale_postgres.py)."""

from __future__ import annotations

import dagster as dg
import pytest

from duocthu_assets.runtime.check_rollup import rollup_statement
from duocthu_assets.runtime.dagster_private import PartitionKeyFilter
from duocthu_assets.runtime.instance import open_instance

documents = dg.DynamicPartitionsDefinition(name="documents")
UNREADABLE: set[str] = set()  # the documents the `readable` rule fails, per test


@dg.asset(partitions_def=documents)
def pages(context):
    return None


@dg.asset_check(asset=pages, blocking=True, partitions_def=documents)
def readable(context):
    doc = context.op_execution_context.partition_key
    return dg.AssetCheckResult(passed=doc not in UNREADABLE, metadata={"message": f"{doc}: no text"})


@dg.asset(partitions_def=documents, deps=[pages])
def chunks(context):
    return None


@dg.asset_check(asset=chunks, partitions_def=documents)
def chunk_ok(context):
    return dg.AssetCheckResult(passed=True)


READABLE = dg.AssetCheckKey(dg.AssetKey("pages"), "readable")
CHUNK_OK = dg.AssetCheckKey(dg.AssetKey("chunks"), "chunk_ok")


@pytest.fixture
def instance(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))  # open_instance sets it; restored after the test
    instance = open_instance(str(tmp_path / "wh"))
    instance.add_dynamic_partitions("documents", ["locked.pdf", "good.pdf", "other.pdf"])
    UNREADABLE.clear()
    yield instance
    instance.dispose()


def _run(instance, doc: str) -> bool:
    return dg.materialize(
        [pages, readable, chunks, chunk_ok], instance=instance, partition_key=doc, raise_on_error=False
    ).success


def _rollup(instance) -> dict:
    records = instance.event_log_storage.get_latest_asset_check_execution_by_key([READABLE, CHUNK_OK])
    return {key.name: (r.status.value, r.partition) for key, r in records.items()}


def test_a_rollup_reads_failed_while_any_document_fails_the_check(instance):
    UNREADABLE.add("locked.pdf")
    assert not _run(instance, "locked.pdf")  # blocked at `readable`: chunks and chunk_ok never run for it
    assert _run(instance, "good.pdf")  # a later document passes both
    # Dagster's own answer (the newest row) would be ("SUCCEEDED", "good.pdf") for `readable`
    assert _rollup(instance) == {"readable": ("FAILED", "locked.pdf"), "chunk_ok": ("SUCCEEDED", "good.pdf")}
    record = instance.event_log_storage.get_latest_asset_check_execution_by_key([READABLE])[READABLE]
    assert record.evaluation.metadata["message"].value == "locked.pdf: no text"  # the failing document's own evaluation

    # one document's page still reads that document's latest, as Dagster does
    only_good = instance.event_log_storage.get_latest_asset_check_execution_by_key(
        [READABLE], partition_filter=PartitionKeyFilter(key="good.pdf")
    )
    assert (only_good[READABLE].status.value, only_good[READABLE].partition) == ("SUCCEEDED", "good.pdf")

    UNREADABLE.clear()  # the document is fixed and runs again: every document's latest evaluation passed
    assert _run(instance, "locked.pdf")
    assert _rollup(instance) == {"readable": ("SUCCEEDED", "locked.pdf"), "chunk_ok": ("SUCCEEDED", "locked.pdf")}


def test_the_newest_of_several_failing_documents_is_named(instance):
    UNREADABLE.update({"locked.pdf", "other.pdf"})
    assert not _run(instance, "locked.pdf")
    assert not _run(instance, "other.pdf")
    assert _run(instance, "good.pdf")
    assert _rollup(instance)["readable"] == ("FAILED", "other.pdf")
    UNREADABLE.discard("other.pdf")
    assert _run(instance, "other.pdf")  # other.pdf fixed: locked.pdf still fails, and is named
    assert _rollup(instance)["readable"] == ("FAILED", "locked.pdf")


def test_the_statement_reads_failed_rows_through_the_partial_index(instance):
    """The failed rows come from the partial index of failed rows and each is
    probed for a later row through the per-document index: no scan of the
    passed rows (SQLite's plan; PostgreSQL's is in the scale test)."""
    from sqlalchemy.dialects import sqlite

    statement = rollup_statement([READABLE, CHUNK_OK])
    sql = str(statement.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
    with instance.event_log_storage.index_connection() as conn:
        plan = " | ".join(row[-1] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql))
    assert "idx_duocthu_check_failed" in plan, plan
    assert "idx_duocthu_check_partition" in plan, plan
