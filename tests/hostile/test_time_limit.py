"""A parser that spins or crashes ends only its own document.

PyMuPDF cannot easily be made to spin on purpose, so the catalog proves the
time limit with a 1 ms ``parse_timeout_s`` (``time_limit/long.pdf``). Here the
same mechanism meets a real infinite loop and a real segfault: first in
:func:`run_isolated` alone, then inside `duocthu ingest`, where the parse of
two documents is replaced (in the forked parser children only) by a spin and
by a SIGSEGV while the good documents of the same run are parsed for real.
"""

from __future__ import annotations

import faulthandler
import hashlib
import json
import os
import signal
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from duocthu_assets import stages
from duocthu_assets.cli import main
from duocthu_assets.runtime.isolation import run_isolated

from tests.support.hostile_makers import write_good_documents
from tests.support.paths import REPO


def _spin() -> None:
    while True:
        pass


def _segfault() -> None:
    faulthandler.disable()  # pytest's handler, inherited through fork, would print a traceback
    os.kill(os.getpid(), signal.SIGSEGV)


def _quick(value: int) -> int:
    return value * 2


def _raise() -> None:
    raise ValueError("bad table")


def test_run_isolated_ends_a_spinning_and_a_crashing_child_only():
    started = time.monotonic()
    outcomes = run_isolated(
        lambda kind, *args: {"spin": _spin, "crash": _segfault, "quick": _quick, "raise": _raise}[kind](*args),
        [("spin", ("spin",)), ("crash", ("crash",)), ("quick", ("quick", 21)), ("raise", ("raise",))],
        timeout_s=1.0,
        workers=2,
    )
    elapsed = time.monotonic() - started
    assert outcomes["quick"].value == 42 and outcomes["quick"].error is None
    assert outcomes["spin"].error_kind == "timeout" and "1 s limit" in str(outcomes["spin"].error)
    assert "parse_timeout_s" in str(outcomes["spin"].error)
    assert outcomes["crash"].error_kind == "crash" and "SIGSEGV" in str(outcomes["crash"].error)
    assert outcomes["raise"].error_kind == "exception" and isinstance(outcomes["raise"].error, ValueError)
    assert elapsed < 6, f"the spinning child was not stopped at its limit ({elapsed:.1f} s)"


def _pid_or_fail(kind: str) -> int:
    {"spin": _spin, "crash": _segfault, "raise": _raise}.get(kind, lambda: None)()
    return os.getpid()


def test_a_reused_child_loses_only_the_job_it_was_on():
    kinds = ["ok", "ok", "crash", "ok", "ok", "spin", "ok", "raise", "ok", "ok"]
    outcomes = run_isolated(
        _pid_or_fail, [(f"{i}-{kind}", (kind,)) for i, kind in enumerate(kinds)], timeout_s=1.0, workers=1, jobs_per_child=3
    )
    assert set(outcomes) == {f"{i}-{kind}" for i, kind in enumerate(kinds)}
    assert outcomes["2-crash"].error_kind == "crash" and "SIGSEGV" in str(outcomes["2-crash"].error)
    assert outcomes["5-spin"].error_kind == "timeout"
    assert outcomes["7-raise"].error_kind == "exception" and isinstance(outcomes["7-raise"].error, ValueError)
    pids = [outcomes[f"{i}-ok"].value for i, kind in enumerate(kinds) if kind == "ok"]
    assert all(isinstance(p, int) and p != os.getpid() for p in pids)
    served = {p: pids.count(p) for p in pids}
    assert max(served.values()) > 1, "each child served one job only"
    assert max(served.values()) <= 3, "a child served more than jobs_per_child"
    # a crash and a timeout each end their child: the next job gets a fresh one
    assert outcomes["1-ok"].value != outcomes["3-ok"].value and outcomes["4-ok"].value != outcomes["6-ok"].value


def test_an_interrupted_run_leaves_no_child_behind(monkeypatch: pytest.MonkeyPatch):
    import multiprocessing

    from duocthu_assets.runtime import isolation

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt  # Ctrl-C while the children work

    monkeypatch.setattr(isolation, "wait", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_isolated(time.sleep, [("a", (30,)), ("b", (30,))], timeout_s=None, workers=2, daemon=False)
    assert multiprocessing.active_children() == []


_REAL_PARSE = stages._parse_stored


def _hostile_parse(job: stages.ParseJob):
    """The parse each forked child runs: spin or crash for the two hostile
    documents, the real parser for everything else."""
    if job.doc_id.startswith("spin"):
        _spin()
    if job.doc_id.startswith("crash"):
        _segfault()
    return _REAL_PARSE(job)


@pytest.mark.slow
def test_spinning_and_crashing_parsers_fail_only_their_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    inbox = tmp_path / "inbox"
    phrases = write_good_documents(inbox)
    for name in ("spin.pdf", "crash.pdf"):
        (inbox / name).write_bytes((inbox / "huong_dan.pdf").read_bytes() + f"% {name}\n".encode())
    (inbox / "collection.toml").write_text("parse_timeout_s = 2\n")
    monkeypatch.setattr(stages, "_parse_stored", _hostile_parse)

    warehouse, report = tmp_path / "wh", tmp_path / "r.json"
    started = time.monotonic()
    code = main(["ingest", str(inbox), "--warehouse", str(warehouse), "--report", str(report), "--quiet"])
    elapsed = time.monotonic() - started
    docs = {d["doc_id"]: d for d in json.loads(report.read_text())["documents"]}
    assert code == 1

    assert docs["spin.pdf"]["status"] == "failed"
    assert "2 s limit" in docs["spin.pdf"]["reason"]
    assert docs["crash.pdf"]["status"] == "failed"
    assert "SIGSEGV" in docs["crash.pdf"]["reason"]
    for doc_id in ("spin.pdf", "crash.pdf"):
        raw = pq.read_table(warehouse / "raw_documents" / f"{doc_id}.parquet").to_pylist()[0]
        kept = warehouse / raw["stored_path"]
        assert hashlib.sha256(kept.read_bytes()).hexdigest() == hashlib.sha256((inbox / doc_id).read_bytes()).hexdigest()

    indexed = pq.read_table(warehouse / "search_index" / "parts", columns=["doc_id", "text"])  # every indexed chunk
    for name, phrase in phrases.items():
        assert docs[name]["status"] == "ok", docs[name]
        texts = [t for d, t in zip(indexed.column("doc_id").to_pylist(), indexed.column("text").to_pylist()) if d == name]
        assert any(phrase in t for t in texts), (name, phrase)
    assert elapsed < 120, elapsed


ORPHAN_SCRIPT = r"""
import os, sys, time
from duocthu_assets.runtime.isolation import run_isolated

def job(folder, name):
    with open(os.path.join(folder, name), "w") as fh:
        fh.write(str(os.getpid()))
    if name == "quick":
        return 1
    time.sleep(600)

folder = sys.argv[1]
run_isolated(job, [("quick", (folder, "quick")), ("slow", (folder, "slow")), ("slower", (folder, "slower"))],
             timeout_s=None, workers=2, jobs_per_child=1)
"""


def test_children_exit_when_the_parent_is_killed(tmp_path):
    """Issue 22: children waiting for their next job (or working) must not
    outlive a parent killed with SIGKILL (they blocked forever in recv())."""
    import signal
    import subprocess
    import sys
    import time

    process = subprocess.Popen([sys.executable, "-c", ORPHAN_SCRIPT, str(tmp_path)], cwd=REPO)

    def written(name: str) -> str:
        path = tmp_path / name
        return path.read_text().strip() if path.exists() else ""

    try:
        deadline = time.monotonic() + 60
        while not (written("slow") and written("slower")) and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = [int(written(name)) for name in ("slow", "slower") if written(name)]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert len(pids) == 2, "the children never started their jobs"
    deadline = time.monotonic() + 15
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in pids if Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]]
        time.sleep(0.1)
    for pid in alive:  # a failing run leaves nothing behind either
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"children {alive} outlived their killed parent"
