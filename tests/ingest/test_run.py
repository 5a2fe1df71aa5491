"""`duocthu ingest` (ingest/run.py) saying what a user would otherwise not
see: a typo in a collection.toml that takes searchable documents out of
search, and a hidden file passed over."""

from __future__ import annotations

import json

import pytest

from tests.support.faults import ingest_here

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
