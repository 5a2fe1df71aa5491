"""The chunks preview a reviewer opens in the UI: per document, chunks with
quarantined content first (⚠, page, crop), then the rest; ``path`` is the
document's own Parquet file, not a pattern."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg

from duocthu_assets.assets.chunks import markdown_preview
from duocthu_assets.cli import main
from duocthu_assets.runtime.instance import open_instance

from tests.support.paths import INBOX

SAMPLES = INBOX / "formulary"


def _row(i: int, quarantined: bool) -> dict:
    attachments = [{"block_id": "b1", "physical_page": 3, "source_crop": "crops/d.pdf/b1.png"}] if quarantined else []
    return {"chunk_id": f"d.pdf:{i}", "chunk_kind": "prose", "token_count": 10, "text": f"chunk {i}\ntext",
            "has_quarantined_content": quarantined, "attachments": attachments, "regions": [{"page_no": 3}]}


def test_quarantined_chunks_come_first_with_page_and_crop():
    rows = [_row(i, quarantined=i in (7, 9)) for i in range(12)]
    lines = markdown_preview("d.pdf", rows).splitlines()
    assert lines[0] == "### d.pdf" and lines[1] == "12 chunks, 2 with quarantined content"
    assert lines[2] == "- ⚠ quarantined content page 3, crop `crops/d.pdf/b1.png`: `d.pdf:7` (prose, 10 tokens): chunk 7 text"
    assert lines[3].startswith("- ⚠ quarantined content page 3") and "`d.pdf:9`" in lines[3]
    assert lines[4].startswith("- `d.pdf:0`") and lines[-1] == "- … 5 more"


def test_each_documents_materialization_has_its_own_path_and_preview(tmp_path: Path):
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLES, inbox)
    warehouse = tmp_path / "wh"
    main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"])
    instance = open_instance(str(warehouse))
    records = instance.fetch_materializations(dg.AssetKey("chunks"), limit=50).records
    assert records
    flagged = 0
    for record in records:
        doc_id = record.partition_key
        metadata = record.asset_materialization.metadata
        assert metadata["path"].value == str(warehouse / "chunks" / f"{doc_id}.parquet")
        assert Path(metadata["path"].value).exists()
        preview = metadata["preview"].value
        assert preview.startswith(f"### {doc_id}\n")
        body = preview.splitlines()[2:]
        marked = [line.startswith("- ⚠") for line in body if not line.startswith("- …")]
        assert marked == sorted(marked, reverse=True), "a quarantined chunk after an ordinary one"
        flagged += sum(marked)
        for line in body:
            if line.startswith("- ⚠"):
                assert " page " in line and ("crop `crops/" in line or "no crop" in line), line
    assert flagged, "the sample formulary has lifted tables: some chunk should carry quarantined content"
