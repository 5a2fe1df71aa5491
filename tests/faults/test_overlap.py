"""Fault: one file reached by several paths (issue 42, item 2): its folder,
then its subfolder; a link to it named on the command line; two ingests of
overlapping folders at once. It stays one document, and the warehouse is
byte for byte a clean ingest of the folder."""

from __future__ import annotations

import json

import pytest

from tests.support.faults import (
    clean_digest,
    differences,
    ingest_here,
    ingest_process,
    output_digest,
    small_inbox,
    statuses,
)

pytestmark = pytest.mark.slow


def _active(warehouse) -> dict[str, str]:
    records = json.loads((warehouse / "registry.json").read_text())
    return {doc_id: r["path"] for doc_id, r in records.items() if not doc_id.startswith("@") and r["status"] == "active"}


def test_a_folder_its_subfolder_and_a_link_make_one_document_per_file(tmp_path):
    inbox, warehouse = small_inbox(tmp_path / "ov"), tmp_path / "wh"
    assert ingest_here([inbox], warehouse, tmp_path / "1.json")[0] == 0
    code, sub = ingest_here([inbox / "sub"], warehouse, tmp_path / "2.json")
    assert code == 0 and set(statuses(sub)) == {"sub-table.pdf", "sub-xoa.csv"}, sub  # the same doc_ids
    assert not any(d["rebuilt"] for d in sub["documents"]), sub  # nothing new to build
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "link.csv").symlink_to(inbox / "gia.csv")
    code, linked = ingest_here([tmp_path / "elsewhere" / "link.csv"], warehouse, tmp_path / "3.json")
    assert code == 0 and set(statuses(linked)) == {"gia.csv"}, linked

    active = _active(warehouse)
    assert len(active) == 4 and len(set(active.values())) == 4, active
    assert not differences(output_digest(warehouse), clean_digest(tmp_path, [inbox]))


def test_two_overlapping_ingests_at_once_make_one_document_per_file(tmp_path):
    inbox, warehouse = small_inbox(tmp_path / "ov"), tmp_path / "wh"
    both = [ingest_process([inbox], warehouse, tmp_path / "a.json"), ingest_process([inbox / "sub"], warehouse, tmp_path / "b.json")]
    said = [p.communicate(timeout=900) for p in both]
    assert [p.returncode for p in both] == [0, 0], said
    active = _active(warehouse)
    assert len(active) == 4 and len(set(active.values())) == 4, active
    # which doc_id a file keeps depends on which ingest registered it first; the
    # folder's own ingest, run again, converges on it whichever it was
    code, again = ingest_here([inbox], warehouse, tmp_path / "c.json")
    assert code == 0 and len(statuses(again)) == 4, again
