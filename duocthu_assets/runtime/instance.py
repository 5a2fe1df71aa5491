"""A persistent Dagster instance inside the warehouse (``<warehouse>/dagster_home``),
shared by `duocthu ingest` and `make ui`, so the UI shows the CLI's runs."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

import dagster as dg

from ..warehouse import process_alive
from .postgres_pool import pool_postgres_connections

MARKER = "# written by duocthu"
# What every instance duocthu writes has: no telemetry, and a run queue.
_COMMON_YAML = """telemetry:
  enabled: false
nux:
  enabled: false
# Runs launched from the UI, by the inbox sensor or by the nightly schedule
# wait in a queue that the daemon (`make ui` = `dg dev`) drains, at most
# this many at a time; inside a run, the multiprocess executor runs at most
# DUOCTHU_MAX_CONCURRENT steps at once. Sized for two cores.
run_queue:
  max_concurrent_runs: 2
  dequeue_interval_seconds: 2
"""
DAGSTER_YAML = MARKER + ": a local instance inside the warehouse\n" + _COMMON_YAML + """# Dagster's SQLite event log (same files, same tables) with its connections
# kept between events: see duocthu_assets/runtime/event_log.py.
event_log_storage:
  module: duocthu_assets.runtime.event_log
  class: PooledSqliteEventLogStorage
  config:
    base_dir: {event_log_dir}
"""


POSTGRES_URL_ENV = "DUOCTHU_POSTGRES_URL"
# The same instance with its history (runs, events, schedules and sensor
# ticks) in PostgreSQL through dagster-postgres's stock storage, for several
# machines or processes sharing one instance: the custom SQLite event log
# above is the single-machine fast path only. The URL stays in the
# environment (it may hold a password), never in this file.
POSTGRES_YAML = MARKER + ": a shared instance, its history in PostgreSQL\n" + _COMMON_YAML + """# dagster-postgres (the `scale` extra); the URL is read from $DUOCTHU_POSTGRES_URL.
# Its event log writes a check planned over many documents without a copy of
# the plan in each document's row: see duocthu_assets/runtime/planned_checks.py.
run_storage:
  module: dagster_postgres.run_storage
  class: PostgresRunStorage
  config:
    postgres_url:
      env: DUOCTHU_POSTGRES_URL
event_log_storage:
  module: duocthu_assets.runtime.postgres_event_log
  class: PlannedOncePostgresEventLogStorage
  config:
    postgres_url:
      env: DUOCTHU_POSTGRES_URL
schedule_storage:
  module: dagster_postgres.schedule_storage
  class: PostgresScheduleStorage
  config:
    postgres_url:
      env: DUOCTHU_POSTGRES_URL
"""


class InstanceSettingError(ValueError):
    """An instance setting that cannot be used, said so the user can fix it."""


def postgres_url() -> str | None:
    """The PostgreSQL instance selected by ``$DUOCTHU_POSTGRES_URL``, if any.
    It names its driver (``postgresql+psycopg2://user:password@host:port/db``):
    SQLAlchemy 2.1 reads a bare ``postgresql://`` as the psycopg 3 driver,
    which dagster-postgres (built on psycopg2) does not install."""
    url = os.environ.get(POSTGRES_URL_ENV, "").strip() or None
    if url and url.split("://", 1)[0] in ("postgres", "postgresql"):
        import importlib.util

        if importlib.util.find_spec("psycopg") is None:
            raise InstanceSettingError(
                f"{POSTGRES_URL_ENV} must name its driver: postgresql+psycopg2://{url.split('://', 1)[-1].rsplit('@', 1)[-1]} "
                "(a bare postgresql:// asks SQLAlchemy for psycopg 3, which is not installed)"
            )
    return url


# Dagster's own options, set (unless already set) for the PostgreSQL instance:
# one planned event per asset for a range of documents, and a step's
# materializations written as one batch. Measured at 200 tiny documents, they
# cut the events stored per document and the connections dagster-postgres
# opens (one per write). The SQLite instance batches too, but plans each asset
# per document (see event_log.py), so a blocked document's unbuilt assets read
# *failed* there, *missing* here.
POSTGRES_EVENT_OPTIONS = {"DAGSTER_EVENT_BATCH_SIZE": "1000", "DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS": "true"}


def apply_postgres_event_options() -> None:
    if postgres_url():
        for name, value in POSTGRES_EVENT_OPTIONS.items():
            os.environ.setdefault(name, value)


def dagster_yaml(home: Path) -> str:
    if postgres_url():
        return POSTGRES_YAML
    return DAGSTER_YAML.format(event_log_dir=json.dumps(str(home.absolute() / "history" / "runs")))


def _setup_stamp(config_text: str) -> str:
    """What the set-up marker says: which storage was set up (for Postgres, a
    digest of the URL, so pointing the home at another database sets that one
    up too)."""
    if config_text.startswith(MARKER) and "dagster_postgres" in config_text and postgres_url():
        digest = hashlib.sha256(postgres_url().encode()).hexdigest()[:16]
        return f"the Dagster instance here was set up completely by duocthu (postgres {digest})\n"
    return "the Dagster instance here was set up completely by duocthu\n"


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
    stamp = _setup_stamp(config.read_text())
    if not _set_up(path, stamp):
        with open(path / SETUP_LOCK, "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                if not _set_up(path, stamp):
                    _complete_setup(path, stamp)
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    return path


def _set_up(home: Path, stamp: str) -> bool:
    try:
        return (home / SETUP_DONE).read_text() == stamp
    except OSError:
        return False


def _has_rows(database: Path, table: str) -> bool:
    """Whether ``table`` of this SQLite database holds a row (read-only; an
    unreadable database or a missing table: no)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as conn:
            return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0
    except sqlite3.Error:
        return False


def _stamped(database: Path) -> bool:
    """Whether Dagster finished creating this SQLite database (it stamps the
    schema revision last)."""
    return _has_rows(database, "alembic_version")


def _has_runs(home: Path) -> bool:
    database = home / "history" / "runs.db"
    return database.exists() and _stamped(database) and _has_rows(database, "runs")


def _remove_database(database: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)


def _complete_setup(home: Path, stamp: str) -> None:
    """Under the set-up lock, with no marker: redo what an interrupted set-up
    left, create the instance, prove its tables are there, write the marker.
    An instance that never ran anything is recreated from scratch; one with
    runs (written before this marker existed) keeps every database Dagster
    finished, and only the unfinished ones are created again. On PostgreSQL
    the SQLite files are left alone; dagster-postgres creates its tables
    once, here, under the lock (two processes racing to create them fail)."""
    if "(postgres " in stamp:
        pass
    elif _has_runs(home):
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
    _write_atomic(home / SETUP_DONE, stamp)


def open_instance(warehouse_root: str) -> dg.DagsterInstance:
    apply_postgres_event_options()
    home = ensure_dagster_home(dagster_home_for(warehouse_root))
    os.environ["DAGSTER_HOME"] = str(home)
    instance = dg.DagsterInstance.get()
    if postgres_url():
        pool_postgres_connections(instance)
    return instance


ACTIVE_STATUSES = (dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING)


PID_TAG = "duocthu/pid"
"""The process making a run in `duocthu ingest` (ingest/rounds.py): a run it
left NOT_STARTED is released as soon as that process is gone."""
NOT_STARTED_GRACE_S = 600
"""A NOT_STARTED run with no known process, older than this, is released:
one being launched is started within seconds (queued runs are QUEUED)."""


def fail_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark as failed the runs a killed process left STARTING/STARTED, or
    NOT_STARTED (killed between making a run and starting it): their process
    is gone, and left alone they would fill the run queue's slots so the
    daemon never starts another run, and stay "not started" in the UI
    forever. Returns the run ids released."""
    released = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=list(ACTIVE_STATUSES))):
        starts = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_START)
        pid = starts[0].dagster_event.pid if starts and starts[0].dagster_event else None
        if pid is not None and not process_alive(pid):  # a run still starting has no pid yet
            instance.report_run_failed(run, "the process running it is gone (killed or crashed); released by duocthu")
            released.append(run.run_id)
    now = time.time()
    for record in instance.get_run_records(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.NOT_STARTED])):
        tagged = record.dagster_run.tags.get(PID_TAG, "")
        gone = tagged.isdigit() and not process_alive(int(tagged))
        if gone or (not tagged and now - record.create_timestamp.timestamp() > NOT_STARTED_GRACE_S):
            instance.report_run_failed(record.dagster_run, "the process that made it was killed before it started; "
                                       "released by duocthu")
            released.append(record.dagster_run.run_id)
    return released
