"""A persistent Dagster instance inside the warehouse (``<warehouse>/dagster_home``),
shared by `duocthu ingest` and `make ui`, so the UI shows the CLI's runs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import dagster as dg

MARKER = "# written by duocthu"
DAGSTER_YAML = MARKER + """: a local instance inside the warehouse
telemetry:
  enabled: false
nux:
  enabled: false
# Runs launched from the UI, by the inbox sensor or by the nightly schedule
# wait in a queue that the daemon (`make ui` = `dagster dev`) drains, at most
# this many at a time; inside a run, the multiprocess executor runs at most
# DUOCTHU_MAX_CONCURRENT steps at once. Sized for two cores.
run_queue:
  max_concurrent_runs: 2
  dequeue_interval_seconds: 2
# Dagster's SQLite event log (same files, same tables) with its connections
# kept between events: see duocthu_assets/event_log.py.
event_log_storage:
  module: duocthu_assets.event_log
  class: PooledSqliteEventLogStorage
  config:
    base_dir: {event_log_dir}
"""


def dagster_yaml(home: Path) -> str:
    return DAGSTER_YAML.format(event_log_dir=json.dumps(str(home.absolute() / "history" / "runs")))


def dagster_home_for(warehouse_root: str) -> Path:
    if "://" in warehouse_root and not warehouse_root.startswith("file://"):
        return Path(os.environ.get("DAGSTER_HOME") or Path.cwd() / ".duocthu" / "dagster_home")
    return Path(warehouse_root.removeprefix("file://")).absolute() / "dagster_home"


def ensure_dagster_home(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    config = path / "dagster.yaml"
    wanted = dagster_yaml(path)
    current = config.read_text() if config.exists() else None
    # ours is kept current (the warehouse may have moved, or an older duocthu
    # wrote it); one someone wrote by hand is left alone
    if current is None or (current.startswith(MARKER) and current != wanted):
        config.write_text(wanted)
    return path


def open_instance(warehouse_root: str) -> dg.DagsterInstance:
    home = ensure_dagster_home(dagster_home_for(warehouse_root))
    os.environ["DAGSTER_HOME"] = str(home)
    return dg.DagsterInstance.get()


ACTIVE_STATUSES = (dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING)


def _process_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fail_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark as failed the runs a killed process left STARTING/STARTED: their
    process is gone, and left alone they would fill the run queue's slots so
    the daemon never starts another run. Returns the run ids released."""
    released = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=list(ACTIVE_STATUSES))):
        starts = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_START)
        pid = starts[0].dagster_event.pid if starts and starts[0].dagster_event else None
        if pid is not None and not _process_alive(pid):  # a run still starting has no pid yet
            instance.report_run_failed(run, "the process running it is gone (killed or crashed); released by duocthu")
            released.append(run.run_id)
    return released
