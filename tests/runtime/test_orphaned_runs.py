"""Runs a killed `duocthu ingest` left behind (runtime/instance.fail_orphaned_runs):
one left NOT_STARTED (killed between making the run and starting it) is
released at the next start-up when the process named in its pid tag is gone,
or when it is old and names none; one of a live process is left alone."""

from __future__ import annotations

import os
import subprocess
import sys

import dagster as dg

from duocthu_assets.definitions import build_definitions
from duocthu_assets.jobs import INGEST_JOB
from duocthu_assets.runtime import instance as instance_module
from duocthu_assets.runtime.instance import PID_TAG, fail_orphaned_runs, open_instance


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_run_left_not_started_by_a_killed_process_is_released_and_a_live_ones_is_not(tmp_path, monkeypatch):
    warehouse = str(tmp_path / "wh")
    instance = open_instance(warehouse)
    job = build_definitions(warehouse).resolve_job_def(INGEST_JOB)

    def make(tags: dict) -> str:
        return instance.create_run_for_job(job_def=job, run_config={}, tags=tags, status=dg.DagsterRunStatus.NOT_STARTED).run_id

    dead, alive, untagged = make({PID_TAG: str(_dead_pid())}), make({PID_TAG: str(os.getpid())}), make({})
    assert fail_orphaned_runs(instance) == [dead]
    assert instance.get_run_by_id(dead).status == dg.DagsterRunStatus.FAILURE
    assert instance.get_run_by_id(alive).status == instance.get_run_by_id(untagged).status == dg.DagsterRunStatus.NOT_STARTED

    monkeypatch.setattr(instance_module, "NOT_STARTED_GRACE_S", -1)  # the untagged one is now "old"
    assert fail_orphaned_runs(instance) == [untagged]
    assert instance.get_run_by_id(alive).status == dg.DagsterRunStatus.NOT_STARTED
    instance.dispose()
