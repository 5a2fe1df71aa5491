"""Fault injection for `duocthu ingest` (tests/faults/): a small real file
system that fills up (an ext4 image on a loop device), ingests run as
separate processes the way users run them, and what a warehouse holds,
compared byte for byte with a clean ingest of the same inbox."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.hostile_makers import make_table_pdf
from tests.support.ingest import tree_digest
from tests.support.paths import REPO

LOOP_MB = 8  # the smallest ext4 image that mounts comfortably


def small_inbox(folder: Path) -> Path:
    """Four cheap documents, one of them a PDF whose ruled table is lifted
    and cropped to PNG (``table.pdf``, in ``folder/sub``)."""
    (folder / "sub").mkdir(parents=True, exist_ok=True)
    make_table_pdf(folder / "sub" / "table.pdf")
    (folder / "gia.csv").write_text("ten_thuoc,gia\nAmpicilin,1200\nGentamicin,5400\n", encoding="utf-8")
    (folder / "ma.csv").write_text("ma,hoat_chat\nJ01CA04,Amoxicilin\nJ01GB03,Gentamicin\n", encoding="utf-8")
    (folder / "sub" / "xoa.csv").write_text("ten_thuoc,ghi_chu\nVancomycin,Truyen cham trong 60 phut\n", encoding="utf-8")
    return folder


def ingest_process(paths: list[Path], warehouse: Path, report: Path) -> subprocess.Popen:
    """`duocthu ingest PATHS --warehouse W --report R --quiet`, started."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen(
        [sys.executable, "-m", "duocthu_assets.cli", "ingest", *map(str, paths), "--warehouse", str(warehouse),
         "--report", str(report), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def ingest_here(paths: list[Path], warehouse: Path, report: Path) -> tuple[int, dict]:
    """`duocthu ingest` in this process (cheaper than a process of its own):
    (exit code, its report)."""
    from duocthu_assets.cli import main

    code = main(["ingest", *map(str, paths), "--warehouse", str(warehouse), "--report", str(report), "--quiet"])
    return code, json.loads(report.read_text())


def run_ingest(paths: list[Path], warehouse: Path, report: Path) -> tuple[int, str, dict]:
    """An ingest run to its end: (exit code, what it printed, its report)."""
    process = ingest_process(paths, warehouse, report)
    out, err = process.communicate(timeout=900)
    return process.returncode, out + err, json.loads(report.read_text()) if report.exists() else {}


def statuses(report: dict) -> dict[str, str]:
    return {d["doc_id"]: d["status"] for d in report.get("documents", [])}


def output_digest(warehouse: Path, leave_out: tuple[str, ...] = (), empty_parts: bool = True) -> dict[str, str]:
    """sha256 of every output file (``tree_digest``), without the folders
    in ``leave_out`` (relative paths, e.g. ``"sources"``), and without the
    consolidated parts left with no row when ``empty_parts`` is false (a
    part whose documents all left is emptied, not deleted: compaction.py)."""
    import pyarrow.parquet as pq

    return {path: digest for path, digest in tree_digest(warehouse).items()
            if not any(path == folder or path.startswith(folder + "/") for folder in leave_out)
            and (empty_parts or not path.startswith("tables/") or not path.endswith(".parquet") or pq.ParquetFile(warehouse / path).metadata.num_rows)}


def clean_digest(tmp: Path, inbox_paths: list[Path], leave_out: tuple[str, ...] = (), empty_parts: bool = True) -> dict[str, str]:
    """The digest of a clean ingest of ``inbox_paths`` into a fresh warehouse."""
    code, said, _ = run_ingest(inbox_paths, tmp / "clean-wh", tmp / "clean.json")
    assert code == 0, said[-3000:]
    return output_digest(tmp / "clean-wh", leave_out, empty_parts)


def loop_device_or_skip(where: Path) -> None:
    """Skip the calling test, saying why, unless a loop file system can be
    mounted here (root, a loop device, ``mkfs.ext4``)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a loop file system (run the suite as root, as CI does)")
    if shutil.which("mkfs.ext4") is None or shutil.which("mount") is None:
        pytest.skip("needs mkfs.ext4 and mount (e2fsprogs, util-linux)")
    if not Path("/dev/loop-control").exists() and not any(Path("/dev").glob("loop[0-9]*")):
        pytest.skip("no loop device in this machine or container (/dev/loop-control)")


@contextlib.contextmanager
def loop_disk(target: Path, size_mb: int = LOOP_MB) -> Iterator[Path]:
    """An ext4 file system of ``size_mb`` (no blocks reserved for root),
    from an image file in a temporary folder, mounted at ``target`` and
    unmounted at the end; the test is skipped, saying why, when that cannot
    be done here."""
    loop_device_or_skip(target)
    image = Path(tempfile.mkdtemp(prefix="duocthu-loop-")) / "disk.ext4"  # on another disk than the one made
    subprocess.run(["truncate", "-s", f"{size_mb}M", str(image)], check=True)
    made = subprocess.run(["mkfs.ext4", "-q", "-F", "-m", "0", str(image)], capture_output=True, text=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"mkfs.ext4 failed: {made.stderr.strip()}")
    target.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-o", "loop", str(image), str(target)], capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a loop file system here: {mounted.stderr.strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)
        shutil.rmtree(image.parent, ignore_errors=True)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to its last byte with one file (deleted to free it)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as fh:
        for size in (1 << 16, 4096, 512, 1):
            try:
                while fh.write(b"\0" * size):
                    pass
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
    return filler


def differences(got: dict[str, str], clean: dict[str, str]) -> list[str]:
    """The files that differ from a clean ingest's, one line each (empty: the same bytes)."""
    return [f"{path}: {'missing' if path not in got else 'extra' if path not in clean else 'other bytes'}"
            for path in sorted(set(got) | set(clean)) if got.get(path) != clean.get(path)]
