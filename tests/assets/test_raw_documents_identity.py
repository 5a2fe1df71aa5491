"""Issue 40 items 3 and 5 through Dagster, as `duocthu ingest` runs them: a
decree dropped into an inbox with no collection.toml is read as a law (the
evidence on its raw_documents row and materialization), knows who it is, and
every article is its own section; the same file under a collection.toml that
names a profile is read with that profile."""

from __future__ import annotations

import json
import re

import dagster as dg
import duckdb
import pytest

from duocthu_assets.cli import main
from tests.support.legal_docs import DECREE, plain_docx


@pytest.mark.slow
def test_a_decree_without_a_profile_is_read_as_a_law(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    (inbox / "dropped").mkdir(parents=True)
    (inbox / "named").mkdir()
    long_clause = "Bên bảo đảm có nghĩa vụ giao tài sản và giấy tờ cho bên nhận bảo đảm đúng hạn. " * 14
    decree = DECREE + [f"{n}. {long_clause}" for n in range(1, 3)] + ["Điều 4. Hiệu lực thi hành", "Nghị định này có hiệu lực."]
    (inbox / "dropped" / "nd21.docx").write_bytes(plain_docx(decree))
    (inbox / "named" / "nd21_generic.docx").write_bytes(plain_docx(decree))
    (inbox / "named" / "collection.toml").write_text('profile = "generic"\n', encoding="utf-8")
    warehouse = tmp_path / "wh"
    report = tmp_path / "report.json"
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--report", str(report), "--quiet"]) == 0
    doc_ids = {d["source"].split("/")[-1]: d["doc_id"] for d in json.loads(report.read_text())["documents"]}

    con = duckdb.connect()
    raw = {r[0]: r[1:] for r in con.execute(
        f"SELECT doc_id, profile, settings.profile_source, profile_evidence, identity FROM '{warehouse}/raw_documents/*.parquet'"
    ).fetchall()}
    profile, source, evidence, identity = raw[doc_ids["nd21.docx"]]
    assert (profile, source) == ("legal", "detected")
    assert evidence == ["national header: CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM", "number line: Số: 21/2021/NĐ-CP",
                        "articles in a run: Điều 1 to Điều 4 (4 found)"]
    assert (identity["number"], identity["kind"], identity["issued"]) == ("21/2021/NĐ-CP", "nghị định", "2021-03-19")
    assert "NĐ 21/2021" in identity["aliases"]
    profile, source, evidence, identity = raw[doc_ids["nd21_generic.docx"]]
    assert (profile, source, evidence) == ("generic", "collection.toml", [])
    assert identity["number"] == "21/2021/NĐ-CP"  # who it is does not depend on how it is read

    chunks = con.execute(
        f"SELECT doc_id, section_key, text FROM '{warehouse}/chunks/*.parquet' WHERE doc_id = ? ORDER BY chunk_index",
        [doc_ids["nd21.docx"]],
    ).fetchall()
    keys = [key for _, key, _ in chunks]
    assert {"dieu_1", "dieu_2", "dieu_3", "dieu_4"} <= set(keys)
    assert keys.count("dieu_3") >= 2  # the long article is several chunks, each filed under it
    for _, _, text in chunks:
        assert len(re.findall(r"Điều \d+\.", text)) <= 1  # no chunk straddles two articles

    from duocthu_assets.runtime.instance import open_instance

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    instance = open_instance(str(warehouse))
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey("raw_documents"), asset_partitions=[doc_ids["nd21.docx"]]), limit=1
    ).records
    metadata = records[0].asset_materialization.metadata
    assert metadata["settings"].value["profile"] == "legal"
    assert metadata["profile_evidence"].value[1] == "number line: Số: 21/2021/NĐ-CP"
    assert metadata["identity"].value["title"].startswith("Nghị định quy định thi hành Bộ luật Dân sự")
