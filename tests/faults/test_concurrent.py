"""Fault: four `duocthu ingest` of one folder at once, into one warehouse
(issue 42, item 4). Each document is built by one of them (per-document
leases: the others wait, then find it built), no writer deletes another's
temporary file, and the warehouse ends byte for byte a clean ingest."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.support.faults import (
    clean_digest,
    differences,
    ingest_process,
    output_digest,
    small_inbox,
    statuses,
)

pytestmark = pytest.mark.slow


def test_four_ingests_of_one_folder_at_once_build_each_document_once_and_end_as_one(tmp_path):
    inbox, warehouse = small_inbox(tmp_path / "inbox"), tmp_path / "wh"
    reports = [tmp_path / f"{i}.json" for i in range(4)]
    processes = [ingest_process([inbox], warehouse, report) for report in reports]
    said = [p.communicate(timeout=900) for p in processes]
    assert [p.returncode for p in processes] == [0] * 4, [s[1][-2000:] for s in said]

    built = Counter()
    for report in reports:
        data = json.loads(report.read_text())
        assert set(statuses(data).values()) == {"ok"}, data
        built.update(d["doc_id"] for d in data["documents"] if d["rebuilt"])
    assert built == Counter({doc_id: 1 for doc_id in statuses(data)}), built  # each built once, not four times
    assert not [p for p in warehouse.rglob("*.tmp") if "dagster_home" not in p.parts]
    assert not differences(output_digest(warehouse), clean_digest(tmp_path, [inbox]))
