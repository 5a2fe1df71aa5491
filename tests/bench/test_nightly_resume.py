"""bench/nightly_retention.py --resume: an interrupted run continues on its
kept warehouse with the same nights drawn, and is refused when the
warehouse was built by other code (the nightly tick would rebuild all)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from duocthu_assets.inbox.registry import Registry
from duocthu_assets.warehouse import Warehouse

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _bench(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(ROOT / "bench" / "nightly_retention.py"), "--documents", "6",
                           "--changed", "0.2", *args], capture_output=True, text=True, env=env, cwd=ROOT, check=False)


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_a_resumed_run_runs_only_the_nights_left_and_refuses_other_code(tmp_path):
    kept, log = tmp_path / "run", tmp_path / "first.log"
    first = _bench("--nights", "1", "--keep", str(kept))
    assert first.returncode == 0, first.stderr[-2000:]
    log.write_text(first.stdout)

    resumed = _bench("--nights", "2", "--keep", str(kept), "--resume", str(log))
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    lines = _lines(resumed.stdout)
    assert lines[0] == {"resumed_after_night": 1}
    assert [line["night"] for line in lines if "night" in line] == [2]
    assert all(line["runs_requested"] == 1 for line in lines if "night" in line)  # the one drawn, not every document
    assert lines[-1]["summary"] and lines[-1]["nights"] == 2 and lines[-1]["resumed_after_night"] == 1

    no_seed = tmp_path / "resumed.log"
    no_seed.write_text(resumed.stdout)
    refused = _bench("--nights", "3", "--keep", str(kept), "--resume", str(no_seed))
    assert refused.returncode != 0 and "has no seed line" in refused.stderr

    registry = Registry(Warehouse(str(kept / "wh")))
    record = registry.active()[0]
    record.built = {**record.built, "code_version": "another"}
    registry.save()
    refused = _bench("--nights", "3", "--keep", str(kept), "--resume", str(log))
    assert refused.returncode != 0
    assert "1 document(s)" in refused.stderr and "built by other code" in refused.stderr
