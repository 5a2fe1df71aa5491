"""Per-document leases (ingest/leases.py): another process's lease is seen
as held, taken once it lets go, and a killed holder leaves no stale lease."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from duocthu_assets.ingest.leases import Leases
from duocthu_assets.warehouse import Warehouse
from tests.support.paths import REPO

HOLDER = """
import sys, time
from duocthu_assets.ingest.leases import Leases
from duocthu_assets.warehouse import Warehouse
leases = Leases(Warehouse(sys.argv[1]))
print(leases.take(sys.argv[2:])[0], flush=True)
time.sleep(600)
"""


def _holder(warehouse, *doc_ids):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(warehouse), *doc_ids], stdout=subprocess.PIPE, text=True, env=env)
    assert process.stdout.readline().strip() == str(list(doc_ids))
    return process


def test_a_document_leased_by_another_process_is_not_taken_and_is_free_once_it_is_killed(tmp_path):
    holder = _holder(tmp_path, "a.pdf")
    leases = Leases(Warehouse(str(tmp_path)))
    try:
        assert leases.take(["a.pdf", "b.csv"]) == (["b.csv"], ["a.pdf"])
        holder.send_signal(signal.SIGKILL)  # killed: the kernel drops its locks, no lease is left stale
        holder.wait()
        leases.wait_and_take(["a.pdf"])
        assert leases.held == {"a.pdf", "b.csv"}
    finally:
        leases.close()
        if holder.poll() is None:
            holder.kill()


def test_a_released_lease_is_taken_by_the_next_process(tmp_path):
    leases = Leases(Warehouse(str(tmp_path)))
    leases.take(["a.pdf"])
    leases.release()
    holder = _holder(tmp_path, "a.pdf")  # would print [] had the lease still been held
    holder.kill()
    holder.wait()
    leases.close()
