"""A partitioned check's state per document, built in one pass
(:mod:`duocthu_assets.runtime.check_states`), is the state Dagster's own
builder makes from the same records: real jobs on the instance duocthu
opens, documents that pass, fail, are rebuilt since their check, and one
whose partition was removed."""

from __future__ import annotations

import dagster as dg
import pytest

from duocthu_assets.runtime.dagster_private import (
    AssetCheckExecutionResolvedStatus,
    AssetCheckState,
    bulk_update_asset_check_state,
)
from duocthu_assets.runtime.instance import open_instance

documents = dg.DynamicPartitionsDefinition(name="documents")
UNREADABLE: set[str] = set()


@dg.asset(partitions_def=documents)
def pages(context):
    return None


@dg.asset_check(asset=pages, partitions_def=documents)
def readable(context):
    return dg.AssetCheckResult(passed=context.op_execution_context.partition_key not in UNREADABLE)


READABLE = dg.AssetCheckKey(dg.AssetKey("pages"), "readable")
KEYS = [(READABLE, documents)]


@pytest.fixture
def instance(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    instance = open_instance(str(tmp_path / "wh"))
    UNREADABLE.clear()
    yield instance
    instance.dispose()


def _dagsters(instance) -> AssetCheckState:
    # as the webserver calls it: with the instance as the partitions' store
    with dg.partition_loading_context(dynamic_partitions_store=instance):
        return bulk_update_asset_check_state(instance, KEYS, {READABLE: AssetCheckState.empty()})[READABLE]


def _keys(state: AssetCheckState, status) -> set[str]:
    return set(state.subsets[status].value.get_partition_keys())


def test_one_pass_gives_dagsters_state(instance):
    names = [f"doc_{i}.pdf" for i in range(8)]
    instance.add_dynamic_partitions("documents", names)
    UNREADABLE.update({"doc_1.pdf", "doc_4.pdf"})
    for doc in names[:6]:
        dg.materialize([pages, readable], instance=instance, partition_key=doc, raise_on_error=False)
    dg.materialize([pages], instance=instance, partition_key="doc_2.pdf")  # rebuilt since its check: stale
    UNREADABLE.discard("doc_4.pdf")
    dg.materialize([pages, readable], instance=instance, partition_key="doc_4.pdf")  # failed, then passed
    instance.delete_dynamic_partition("documents", "doc_5.pdf")  # a removed document's record is not counted

    ours = instance.event_log_storage.get_asset_check_state(KEYS)[READABLE]
    assert ours == _dagsters(instance)
    assert _keys(ours, AssetCheckExecutionResolvedStatus.SUCCEEDED) == {"doc_0.pdf", "doc_3.pdf", "doc_4.pdf"}
    assert _keys(ours, AssetCheckExecutionResolvedStatus.FAILED) == {"doc_1.pdf"}
    assert ours.latest_storage_id > 0


def test_a_check_never_run_has_empty_subsets(instance):
    instance.add_dynamic_partitions("documents", ["a.pdf"])
    ours = instance.event_log_storage.get_asset_check_state(KEYS)[READABLE]
    assert ours == _dagsters(instance)
    assert all(not _keys(ours, status) for status in AssetCheckExecutionResolvedStatus)
