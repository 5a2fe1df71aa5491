"""Several writers on one warehouse (issue 22): two `duocthu ingest`
processes at once, the inbox sensor beside a CLI ingest. No document may
drop out of the registry or the index because another writer saved last."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from duocthu_assets.inbox.scan import discover
from duocthu_assets.inbox.registration import register_files
from duocthu_assets.inbox.registry import Registry
from duocthu_assets.warehouse import Warehouse

from tests.support.paths import REPO


def _csvs(folder: Path, prefix: str, n: int) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"{prefix}{i:02d}.csv").write_text(f"Mã,Tên\n{prefix.upper()}{i:02d},thuốc {prefix} số {i}\n", encoding="utf-8")
    return [f"{prefix}{i:02d}.csv" for i in range(n)]


def test_two_registries_saving_keep_each_others_records(tmp_path):
    """The read-modify-write race of issue 22, in one process: A and B load
    the same registry, each registers its own folder and saves, then A saves
    again (its build record): B's documents are still there."""
    warehouse = Warehouse(str(tmp_path / "wh"))
    _csvs(tmp_path / "a", "a", 3)
    _csvs(tmp_path / "b", "b", 3)
    first, second = Registry(warehouse), Registry(warehouse)
    register_files(first, discover([tmp_path / "a"]))
    first.save()
    register_files(second, discover([tmp_path / "b"]))
    second.save()
    for record in first.records.values():
        record.built = {"sha256": record.sha256}
    first.save()  # first never saw b's records: they must survive its save
    on_disk = Registry(warehouse).records
    assert sorted(on_disk) == [f"a{i:02d}.csv" for i in range(3)] + [f"b{i:02d}.csv" for i in range(3)]
    assert all(on_disk[f"a{i:02d}.csv"].built for i in range(3))
    assert sorted(first.records) == sorted(on_disk)  # and the saver now knows them too


@pytest.mark.slow
def test_two_ingests_of_different_folders_at_once_index_every_document(tmp_path):
    warehouse = tmp_path / "wh"
    names = {"a": _csvs(tmp_path / "a", "a", 8), "b": _csvs(tmp_path / "b", "b", 8)}
    env = {**os.environ, "DUOCTHU_INGEST_WORKERS": "1"}
    processes = {
        folder: subprocess.Popen(
            [sys.executable, "-m", "duocthu_assets.cli", "ingest", str(tmp_path / folder), "--warehouse", str(warehouse),
             "--quiet", "--report", str(tmp_path / f"{folder}.json")],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for folder in names
    }
    errors = {folder: p.communicate(timeout=600)[1] for folder, p in processes.items()}
    for folder, process in processes.items():
        assert process.returncode == 0, f"ingest of {folder} failed:\n{errors[folder][-3000:]}"
        report = json.loads((tmp_path / f"{folder}.json").read_text())
        assert {d["status"] for d in report["documents"]} == {"ok"}
    expected = {name for folder in names.values() for name in folder}
    assert set(Registry(Warehouse(str(warehouse))).records) == expected
    indexed = set(pq.read_table(warehouse / "search_index" / "index.parquet", columns=["doc_id"]).column("doc_id").to_pylist())
    assert indexed == expected, f"missing from the index: {sorted(expected - indexed)}"
