"""A persistent Dagster instance inside the warehouse (``<warehouse>/dagster_home``),
shared by `duocthu ingest` and `make ui`, so the UI shows the CLI's runs."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
from pathlib import Path

import dagster as dg

from .warehouse import process_alive

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


SETUP_DONE = ".duocthu-setup-complete"
SETUP_LOCK = ".duocthu-setup.lock"
# the SQLite files Dagster creates at set-up, relative to the home
SETUP_DATABASES = ("history/runs.db", "history/runs/index.db", "schedules/schedules.db")


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def ensure_dagster_home(path: Path) -> Path:
    """The instance's home, its ``dagster.yaml`` current and its set-up
    complete. The first set-up (Dagster creating its SQLite databases) runs
    once, under an exclusive lock, and ends by writing a marker: a second
    process waits for it instead of racing it (``UNIQUE constraint failed:
    alembic_version``), and a set-up a kill interrupted (say, an ``index.db``
    without tables, which Dagster never initialises again) is detected by the
    missing marker and redone."""
    path.mkdir(parents=True, exist_ok=True)
    config = path / "dagster.yaml"
    wanted = dagster_yaml(path)
    current = config.read_text() if config.exists() else None
    # ours is kept current (the warehouse may have moved, or an older duocthu
    # wrote it); one someone wrote by hand is left alone; an empty one is what
    # a kill during its first write left
    if not current or (current.startswith(MARKER) and current != wanted):
        _write_atomic(config, wanted)
    if not (path / SETUP_DONE).exists():
        with open(path / SETUP_LOCK, "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                if not (path / SETUP_DONE).exists():
                    _complete_setup(path)
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    return path


def _stamped(database: Path) -> bool:
    """Whether Dagster finished creating this SQLite database (it stamps the
    schema revision last)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as conn:
            return conn.execute("SELECT count(*) FROM alembic_version").fetchone()[0] > 0
    except sqlite3.Error:
        return False


def _has_runs(home: Path) -> bool:
    database = home / "history" / "runs.db"
    if not database.exists() or not _stamped(database):
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as conn:
            return conn.execute("SELECT count(*) FROM runs").fetchone()[0] > 0
    except sqlite3.Error:
        return False


def _remove_database(database: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)


def _complete_setup(home: Path) -> None:
    """Under the set-up lock, with no marker: redo what an interrupted set-up
    left, create the instance, prove its tables are there, write the marker.
    An instance that never ran anything is recreated from scratch; one with
    runs (written before this marker existed) keeps every database Dagster
    finished, and only the unfinished ones are created again."""
    if _has_runs(home):
        for name in SETUP_DATABASES:
            if (home / name).exists() and not _stamped(home / name):
                _remove_database(home / name)
    else:
        for name in SETUP_DATABASES:
            _remove_database(home / name)
    previous = os.environ.get("DAGSTER_HOME")
    os.environ["DAGSTER_HOME"] = str(home)
    try:
        instance = dg.DagsterInstance.get()
        try:
            instance.get_runs(limit=1)
            instance.get_dynamic_partitions("documents")  # the table a half-made index.db lacks
        finally:
            instance.dispose()
    finally:
        if previous is None:
            os.environ.pop("DAGSTER_HOME", None)
        else:
            os.environ["DAGSTER_HOME"] = previous
    _write_atomic(home / SETUP_DONE, "the Dagster instance here was set up completely by duocthu\n")


def open_instance(warehouse_root: str) -> dg.DagsterInstance:
    home = ensure_dagster_home(dagster_home_for(warehouse_root))
    os.environ["DAGSTER_HOME"] = str(home)
    return dg.DagsterInstance.get()


ACTIVE_STATUSES = (dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING)


def fail_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark as failed the runs a killed process left STARTING/STARTED: their
    process is gone, and left alone they would fill the run queue's slots so
    the daemon never starts another run. Returns the run ids released."""
    released = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=list(ACTIVE_STATUSES))):
        starts = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_START)
        pid = starts[0].dagster_event.pid if starts and starts[0].dagster_event else None
        if pid is not None and not process_alive(pid):  # a run still starting has no pid yet
            instance.report_run_failed(run, "the process running it is gone (killed or crashed); released by duocthu")
            released.append(run.run_id)
    return released
