"""Fault: a full disk (issue 42, item 3), on a real file system: an 8 MB
ext4 image on a loop device, filled to its last byte, mounted where one
kind of file is written, the Dagster instance and the rest of the warehouse
on another disk.

1. Under ``crops/<doc_id>/``: the table PDF's crop cannot be written. The
   document fails, saying the disk is full; once space is freed, the next
   ingest builds it again (it is not "unchanged") and the warehouse is a
   clean ingest's, byte for byte.
2. Under ``tables/``: the consolidation cannot be written. The summary and
   the exit status say so; once space is freed, the next ingest redoes it
   although no document changed.

Needs root and a loop device; skipped, saying which is missing, otherwise."""

from __future__ import annotations

import pytest

from tests.support.faults import (
    clean_digest,
    differences,
    fill,
    loop_disk,
    output_digest,
    run_ingest,
    small_inbox,
    statuses,
)

pytestmark = pytest.mark.slow


def test_a_crop_written_to_a_full_disk_fails_its_document_until_space_is_freed(tmp_path):
    inbox, warehouse = small_inbox(tmp_path / "inbox"), tmp_path / "wh"
    with loop_disk(warehouse / "crops" / "sub-table.pdf") as disk:
        filler = fill(disk)
        code, said, first = run_ingest([inbox], warehouse, tmp_path / "1.json")
        assert code == 1, said[-3000:]
        doc = {d["doc_id"]: d for d in first["documents"]}["sub-table.pdf"]
        assert doc["status"] == "failed" and "no space left on device" in doc["reason"], doc
        assert "the next ingest builds them again" in said

        filler.unlink()
        code, said, second = run_ingest([inbox], warehouse, tmp_path / "2.json")
        assert code == 0, said[-3000:]
        doc = {d["doc_id"]: d for d in second["documents"]}["sub-table.pdf"]
        assert doc["status"] == "ok" and doc["rebuilt"], doc  # built again, not "unchanged"
        assert not differences(output_digest(warehouse), clean_digest(tmp_path, [inbox]))


def test_consolidated_tables_on_a_full_disk_are_reported_and_redone(tmp_path):
    inbox, warehouse = small_inbox(tmp_path / "inbox"), tmp_path / "wh"
    with loop_disk(warehouse / "tables") as disk:
        filler = fill(disk)
        code, said, first = run_ingest([inbox], warehouse, tmp_path / "1.json")
        assert code == 1, said[-3000:]
        assert set(statuses(first).values()) == {"ok"}, first
        assert "no space left on device" in first["tables_error"], first["tables_error"]
        assert "consolidated tables/ not written" in said, said[-3000:]

        filler.unlink()
        code, said, second = run_ingest([inbox], warehouse, tmp_path / "2.json")
        assert code == 0 and not second["tables_error"], said[-3000:]
        assert not any(d["rebuilt"] for d in second["documents"]), second  # nothing rebuilt: only the tables redone
        assert not differences(output_digest(warehouse), clean_digest(tmp_path, [inbox]))
