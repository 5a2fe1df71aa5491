"""Issue 20 item 1: a no-op ingest and the nightly tick over an unchanged
inbox answer from the last ingest's snapshot (runtime/inbox_snapshot.py)
without touching each document's record, and say exactly what the full path
says; anything that changed (a file, the registry, a warehouse folder, a run)
takes the full path."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import dagster as dg
import pytest

import duocthu_assets.ingest.run as ingest_module
from duocthu_assets.runtime import inbox_snapshot
from duocthu_assets.runtime.instance import open_instance

from tests.support.ingest import ingest_quietly, nightly_tick, write_price_csv

pytestmark = pytest.mark.slow


def _snapshot(warehouse: Path) -> Path:
    return warehouse / "dagster_home" / inbox_snapshot.NAME


class _FullPathTaken(AssertionError):
    pass


def _refuse(*args, **kwargs):
    raise _FullPathTaken(f"the full path scanned {args}")


@pytest.fixture
def no_full_path(monkeypatch):
    """Fails the test if the ingest scans the inbox (its full path)."""
    monkeypatch.setattr(ingest_module, "scan", _refuse)


@pytest.fixture
def grown(tmp_path: Path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i, drug in enumerate(["Amoxicilin", "Vancomycin"]):
        write_price_csv(inbox / f"d{i}.csv", drug, 1000 + i)
    warehouse = tmp_path / "wh"
    first, _ = ingest_quietly(inbox, warehouse)
    assert [d.status for d in first.documents] == ["ok", "ok"]
    return inbox, warehouse


def test_a_noop_after_a_build_answers_from_the_snapshot_as_the_full_path_does(grown, monkeypatch):
    inbox, warehouse = grown
    write_price_csv(inbox / "d2.csv", "Meropenem", 9900)
    built, _ = ingest_quietly(inbox, warehouse)  # builds d2, remembers the inbox as it found it
    assert [d.doc_id for d in built.documents if d.rebuilt] == ["d2.csv"]
    assert _snapshot(warehouse).is_file()

    with monkeypatch.context() as patched:
        patched.setattr(ingest_module, "scan", _refuse)
        fast, fast_printed = ingest_quietly(inbox, warehouse)
    assert fast.runs == 0 and not any(d.rebuilt for d in fast.documents)
    _snapshot(warehouse).unlink()
    full, full_printed = ingest_quietly(inbox, warehouse)  # the full path, for comparison
    assert [dataclasses.asdict(d) for d in fast.documents] == [dataclasses.asdict(d) for d in full.documents]
    assert fast_printed.splitlines()[:-1] == full_printed.splitlines()[:-1]  # the last line says the seconds
    assert "unchanged since built: 3 documents (3 ok; 6 chunks, 6 vectors kept)" in fast_printed


@pytest.mark.parametrize("change", ["file_rewritten", "file_added", "registry", "warehouse_folder", "run"])
def test_any_change_takes_the_full_path(grown, change, no_full_path):
    inbox, warehouse = grown
    fast, _ = ingest_quietly(inbox, warehouse)  # the fixture's ingest was a build: this one is answered from its snapshot
    assert fast.runs == 0
    if change == "file_rewritten":  # same name, same size, new content
        write_price_csv(inbox / "d0.csv", "Amoxicilim", 1000)
    elif change == "file_added":
        write_price_csv(inbox / "d9.csv", "Cefuroxim", 1009)
    elif change == "registry":
        os.utime(warehouse / "registry.json")
    elif change == "warehouse_folder":
        (warehouse / "chunks" / "d1.csv.parquet").unlink()  # by hand: the index must notice
    elif change == "run":
        instance = open_instance(str(warehouse))
        try:
            instance.add_run(dg.DagsterRun(job_name="ingest", run_id="0" * 36, status=dg.DagsterRunStatus.SUCCESS))
        finally:
            instance.dispose()
    with pytest.raises(_FullPathTaken, match="the full path scanned"):
        ingest_quietly(inbox, warehouse)


def test_no_snapshot_when_the_inbox_holds_a_symlink(grown, tmp_path):
    inbox, warehouse = grown
    outside = tmp_path / "outside.csv"
    write_price_csv(outside, "Linezolid", 1)
    (inbox / "link.csv").symlink_to(outside)  # refused unread: only the full scan judges links
    result, _ = ingest_quietly(inbox, warehouse)
    assert {d.doc_id: d.status for d in result.documents}["link.csv"] == "rejected"
    assert inbox_snapshot.listing_digest([inbox]) is None
    assert not _snapshot(warehouse).exists()


def test_the_nightly_tick_answers_from_the_snapshot_and_sees_a_removed_file(grown, monkeypatch):
    from duocthu_assets import automation
    from duocthu_assets.resources import WarehouseResource

    inbox, warehouse = grown
    monkeypatch.setenv("DUOCTHU_INBOX", str(inbox))

    def tick():
        return nightly_tick(warehouse)

    with monkeypatch.context() as patched:
        patched.setattr(automation, "Registry", _refuse)
        answer = tick()
        instance = open_instance(str(warehouse))
        try:
            with dg.build_sensor_context(instance=instance, resources={"warehouse": WarehouseResource(root=str(warehouse))}) as context:
                sensed = automation.inbox_sensor(context)
        finally:
            instance.dispose()
    assert answer.run_requests == [] and answer.skip_message == "2 document(s) unchanged since built"
    assert sensed.run_requests == [] and sensed.dynamic_partitions_requests == []

    (inbox / "d1.csv").unlink()  # removed: the full path marks it and asks for its run
    answer = tick()
    assert [r.partition_key for r in answer.run_requests] == ["d1.csv"]


def test_the_registry_stores_each_settings_dict_once_and_reads_the_old_form(tmp_path):
    import json

    from duocthu_assets.inbox.scan import scan
    from duocthu_assets.inbox.registration import register_files
    from duocthu_assets.inbox.registry import Registry
    from duocthu_assets.inbox.registry_file import SETTINGS_TABLE, decode_registry
    from duocthu_assets.warehouse import Warehouse

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i in range(3):
        write_price_csv(inbox / f"d{i}.csv", "Amoxicilin", i)
    registry = Registry(Warehouse(tmp_path / "wh"))
    register_files(registry, scan([inbox]).found)
    registry.records["d0.csv"].built = {"sha256": "x", "settings": dict(registry.records["d0.csv"].settings)}
    registry.save()
    text = (tmp_path / "wh" / "registry.json").read_text()
    raw = json.loads(text)
    assert list(raw[SETTINGS_TABLE]) == [raw["d0.csv"]["settings"]]  # one entry, named by every record
    assert raw["d0.csv"]["built"]["settings"] == raw["d1.csv"]["settings"]
    again = Registry(Warehouse(tmp_path / "wh")).records
    assert {d: vars(r) for d, r in again.items()} == {d: vars(r) for d, r in registry.records.items()}
    # a registry written before the table (every record holding its dicts) reads the same
    old = "{\n" + ",\n".join(f"{json.dumps(d)}: {json.dumps(vars(r))}" for d, r in registry.records.items()) + "\n}"
    assert decode_registry(old) == {d: vars(r) for d, r in registry.records.items()}
    # (the checks read a document's settings from its raw_documents row, not from here)


def test_a_registry_save_reuses_unchanged_lines_and_writes_the_same_bytes(tmp_path):
    """A save encodes only the records changed since the file was read or
    written (the others' lines are reused): the file is the same bytes a
    fresh encode of every record gives, and a changed record's new values
    are in it (a reused line never hides a change)."""
    from duocthu_assets.inbox.scan import scan
    from duocthu_assets.inbox.registration import register_files
    from duocthu_assets.inbox.registry import Registry
    from duocthu_assets.inbox.registry_file import decode_registry, encode_registry
    from duocthu_assets.warehouse import Warehouse

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i in range(4):
        write_price_csv(inbox / f"d{i}.csv", "Amoxicilin", i)
    path = tmp_path / "wh" / "registry.json"
    registry = Registry(Warehouse(tmp_path / "wh"))
    register_files(registry, scan([inbox]).found)
    registry.save()
    for round_, doc_id in enumerate(["d1.csv", "d3.csv"]):  # the second save reuses the lines the first wrote
        registry.records[doc_id].built = {"sha256": f"s{round_}", "settings": registry.records[doc_id].settings}
        registry.records[doc_id].outcome = {"status": "ok", "chunks": round_}
        registry.save()
        text = path.read_text()
        assert text == encode_registry(dict(sorted(decode_registry(text).items())))[0]
        assert decode_registry(text)[doc_id]["built"]["sha256"] == f"s{round_}"
    fresh = Registry(Warehouse(tmp_path / "wh"))  # a file read back (lines from the text) and changed again
    fresh.records["d0.csv"].outcome = {"status": "blocked"}
    fresh.save()
    text = path.read_text()
    assert text == encode_registry(dict(sorted(decode_registry(text).items())))[0]
    assert {d: vars(r) for d, r in Registry(Warehouse(tmp_path / "wh")).records.items()} == {d: vars(r) for d, r in fresh.records.items()}
    assert fresh.records["d3.csv"].outcome == {"status": "ok", "chunks": 1}
