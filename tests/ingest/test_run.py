"""`duocthu ingest` runs a large document alone, after the small ones beside
it (duocthu_assets/ingest/run.py, plan.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from duocthu_assets.ingest import run as ingest_run
from duocthu_assets.runtime.instance import open_instance
from tests.support.ingest import ingest_quietly, write_price_csv


@pytest.mark.slow
def test_a_large_document_runs_after_the_small_ones(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(ingest_run, "LARGE_DOCUMENT_BYTES", 500)  # "large": over 500 bytes here
    inbox, warehouse = tmp_path / "inbox", tmp_path / "wh"
    inbox.mkdir()
    (inbox / "a_big.csv").write_text("ten_thuoc,gia\n" + "".join(f"Thuoc {i},{i}\n" for i in range(100)))
    for name in ("b", "c", "d"):
        write_price_csv(inbox / f"{name}.csv", f"Thuoc {name}", 100)
    result, _ = ingest_quietly(inbox, warehouse)
    assert {d.doc_id: d.status for d in result.documents} == dict.fromkeys(["a_big.csv", "b.csv", "c.csv", "d.csv"], "ok")
    instance = open_instance(str(warehouse))
    try:
        runs = [r for r in reversed(instance.get_runs()) if r.job_name == "ingest"]  # oldest first
    finally:
        instance.dispose()
    first = runs[0].tags
    assert (first.get("dagster/asset_partition_range_start"), first.get("dagster/asset_partition_range_end")) == ("b.csv", "d.csv")
    assert [r.tags.get("dagster/partition") for r in runs[1:]] == ["a_big.csv", "a_big.csv"]  # alone: stages, then embedding
