"""`duocthu ingest` (ingest/run.py) saying what a user would otherwise not
see: a typo in a collection.toml that takes searchable documents out of
search, and a hidden file passed over; and running a large document alone,
after the small ones beside it (plan.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duocthu_assets.ingest import run as ingest_run
from duocthu_assets.runtime.instance import open_instance
from tests.support.faults import ingest_here
from tests.support.ingest import ingest_quietly, write_price_csv

pytestmark = pytest.mark.slow


def test_a_typo_in_collection_toml_warns_that_indexed_documents_leave_search(tmp_path, capsys):
    folder = tmp_path / "inbox" / "gia"
    folder.mkdir(parents=True)
    (folder / "collection.toml").write_text('profile = "generic"\n', encoding="utf-8")
    (folder / "gia.csv").write_text("ten_thuoc,gia\nAmpicilin,1200\n", encoding="utf-8")
    (folder / ".nhap.csv").write_text("ten_thuoc,gia\nX,1\n", encoding="utf-8")
    code, first = ingest_here([tmp_path / "inbox"], tmp_path / "wh", tmp_path / "1.json")
    hidden = f"{folder / '.nhap.csv'}: hidden (its name starts with '.'): not a document — rename it to ingest it"
    assert code == 0 and first["skipped"] == [hidden]
    capsys.readouterr()

    (folder / "collection.toml").write_text('profil = "generic"\n', encoding="utf-8")  # the typo
    code, second = ingest_here([tmp_path / "inbox"], tmp_path / "wh", tmp_path / "2.json")
    said = capsys.readouterr().err
    assert code == 1 and second["documents"][0]["status"] == "rejected", second
    assert "1 document(s) that were searchable leave the search index: refused with its folder:" in said, said
    assert "profil" in said
    assert json.loads((tmp_path / "wh" / "registry.json").read_text())["gia-gia.csv"]["status"] == "active"


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
