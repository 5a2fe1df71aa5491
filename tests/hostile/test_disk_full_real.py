"""Disk full for real (issue 22, must-show 7): the warehouse on a tmpfs too
small for what is ingested, then the same tmpfs grown and the ingest run
again. test_disk_full.py simulates ENOSPC at one write; here the kernel
refuses whichever write comes first (Dagster's SQLite, a source copy, a
Parquet file), as on a real full disk.

Needs root and tmpfs mounts (skipped otherwise)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import hostile_makers as makers

pytestmark = pytest.mark.slow


def _mount(target: Path, size_mb: int, remount: bool = False) -> bool:
    options = f"{'remount,' if remount else ''}size={size_mb}m"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)], capture_output=True)
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    target = tmp_path / "disk"
    target.mkdir()
    if os.geteuid() != 0 or not _mount(target, 12):
        pytest.skip("needs root and tmpfs mounts")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


def _ingest(inbox: Path, warehouse: Path, report: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "duocthu_assets.cli", "ingest", str(inbox), "--warehouse", str(warehouse),
         "--report", str(report), "--quiet"],
        capture_output=True, text=True, timeout=1800,
    )


def _leftovers(warehouse: Path) -> list[Path]:
    return [p for p in warehouse.rglob("*") if p.is_file() and p.name.endswith(".tmp") and "dagster_home" not in p.parts]


def test_a_really_full_disk_says_so_and_the_next_ingest_converges(tmp_path, small_disk):
    inbox, warehouse = tmp_path / "inbox", small_disk / "wh"
    makers.write_good_documents(inbox / "good")
    # 16 MB of noise, more than the 12 MiB disk holds: a format we refuse, but
    # whose bytes are kept (copied into sources/) like every input's
    (inbox / "big").mkdir()
    (inbox / "big" / "noise.bin").write_bytes(random.Random(7).randbytes(16 * 1024 * 1024))

    first = _ingest(inbox, warehouse, tmp_path / "report1.json")
    said = first.stdout + first.stderr
    if (tmp_path / "report1.json").exists():
        said += (tmp_path / "report1.json").read_text()
    assert first.returncode != 0, said[-2000:]
    assert "no space left on device" in said, said[-3000:]
    assert "disk I/O error" not in said and "Traceback" not in said, said[-3000:]
    assert not _leftovers(warehouse)

    assert _mount(small_disk, 400, remount=True)
    second = _ingest(inbox, warehouse, tmp_path / "report2.json")
    report = json.loads((tmp_path / "report2.json").read_text())
    statuses = {d["doc_id"]: d["status"] for d in report["documents"]}
    reasons = {d["doc_id"]: d["reason"] for d in report["documents"]}
    assert second.returncode == 1, (second.stderr[-2000:], statuses)  # 1: the noise is refused, as it should be
    assert statuses.pop("big-noise.bin") == "rejected" and "space" not in reasons["big-noise.bin"], reasons
    assert set(statuses.values()) == {"ok"} and len(statuses) == 4, statuses
    assert (warehouse / "search_index" / "index.parquet").exists()
    assert not _leftovers(warehouse)
