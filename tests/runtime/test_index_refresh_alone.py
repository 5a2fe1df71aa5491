"""After the ingest's refresh run builds the search index, the index is
checked against what passes (``index_agrees``: a ``stat`` of two files per
document) only when another run was unfinished or changed status while it
built; alone, it agrees by construction (issue 20 item 1)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.ingest import index_refresh
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.warehouse import Warehouse

pytestmark = pytest.mark.slow


@pytest.fixture()
def built(tmp_path: Path) -> Path:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.csv").write_text("ten_thuoc,gia\nAmoxicilin,1200\n")
    warehouse = tmp_path / "wh"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0
    return warehouse


def _refresh(warehouse: Path, monkeypatch) -> tuple[int, list[int]]:
    asked: list[int] = []

    def counting(instance, wh):
        asked.append(1)
        return True

    monkeypatch.setattr(index_refresh, "index_agrees", counting)
    instance = open_instance(str(warehouse))
    try:
        runs = index_refresh.refresh_index_until_current(build_definitions(str(warehouse)), instance, Warehouse(str(warehouse)), force=True, built=[])
    finally:
        instance.dispose()
    return runs, asked


def test_a_refresh_no_other_run_overlapped_is_not_checked_again(built, monkeypatch):
    runs, asked = _refresh(built, monkeypatch)
    assert runs == 1 and asked == []


def test_a_refresh_while_another_run_is_unfinished_is_checked_against_what_passes(built, monkeypatch):
    instance = open_instance(str(built))
    try:
        instance.add_run(dg.DagsterRun(job_name="elsewhere", run_id="another-run", status=dg.DagsterRunStatus.STARTED))
    finally:
        instance.dispose()
    runs, asked = _refresh(built, monkeypatch)
    assert runs == 1 and asked == [1]
