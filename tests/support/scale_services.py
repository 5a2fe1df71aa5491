"""Real servers for the scale tests, started from nothing on loopback and
stopped again: PostgreSQL (Debian's package, ``initdb`` in a temporary folder,
run as the unprivileged ``postgres`` user when we are root), Redis (Debian's
``redis-server``), Celery workers (``celery -A dagster_celery.app worker``,
each a separate process), ``dagster-daemon run`` and moto's S3-compatible
server.

Each started process's id is also written to ``$DUOCTHU_SCALE_PIDS`` (a
folder) when that is set, so `make scale-test`'s trap can stop whatever a
killed test run left behind. Nothing here installs anything: a missing
binary or Python package is reported by :func:`missing`, and the tests skip
saying so.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from tests.support.paths import REPO

PIDS_ENV = "DUOCTHU_SCALE_PIDS"
VENV_BIN = Path(sys.executable).parent
CELERY_CONFIG_DIR = REPO / "scripts" / "celery"


def postgres_bin(name: str) -> str | None:
    """A PostgreSQL server program: on PATH, else in Debian's versioned
    folder (``/usr/lib/postgresql/<major>/bin``, not on PATH by default)."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(Path(p).parts[4]))
    return candidates[-1] if candidates else None


def missing(*needs: str) -> str | None:
    """Why the named services cannot run here (None when they can):
    ``postgres``, ``redis``, ``celery``, ``s3``."""
    reasons = []
    modules = {
        "postgres": ["dagster_postgres", "psycopg2"],
        "redis": ["redis"],
        "celery": ["dagster_celery", "celery", "redis"],
        "s3": ["s3fs", "moto", "flask"],
    }
    for need in needs:
        absent = [m for m in modules.get(need, []) if importlib.util.find_spec(m) is None]
        if absent:
            reasons.append(f"Python package(s) {', '.join(absent)} not installed (`make scale-test` installs the `scale` extra)")
    if "postgres" in needs:
        if not (postgres_bin("initdb") and postgres_bin("postgres")):
            reasons.append("PostgreSQL's initdb/postgres not found (Debian package `postgresql`; `make scale-test` installs it)")
        elif os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                reasons.append("running as root and no unprivileged `postgres` user to run the server as")
    if ("redis" in needs or "celery" in needs) and not shutil.which("redis-server"):
        reasons.append("redis-server not found (Debian package `redis-server`; `make scale-test` installs it)")
    return "; ".join(reasons) or None


def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode} before listening on 127.0.0.1:{port}")
        with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def _remember(process: subprocess.Popen) -> None:
    folder = os.environ.get(PIDS_ENV)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / str(process.pid)).write_text(" ".join(map(str, process.args)) if isinstance(process.args, list) else str(process.args))


def _forget(process: subprocess.Popen) -> None:
    folder = os.environ.get(PIDS_ENV)
    if folder:
        (Path(folder) / str(process.pid)).unlink(missing_ok=True)


def stop(process: subprocess.Popen, timeout: float = 20, sig: int = signal.SIGTERM) -> None:
    """Stop a process this module started (its own process group: a Celery
    worker's pool children go with it) and reap it."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    else:  # its children may outlive it
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    _forget(process)


def spawn(args: list[str], log: Path, env: dict[str, str] | None = None, **kwargs) -> subprocess.Popen:
    handle = open(log, "ab")
    process = subprocess.Popen(
        args, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        env=env, start_new_session=True, **kwargs,
    )
    handle.close()
    _remember(process)
    return process


@dataclass
class Postgres:
    """A throwaway PostgreSQL cluster: trust authentication, loopback only."""

    root: Path
    port: int = 0
    process: subprocess.Popen | None = None
    user: str = "duocthu"

    @property
    def url(self) -> str:
        return f"postgresql+psycopg2://{self.user}@127.0.0.1:{self.port}/dagster"

    def start(self) -> "Postgres":
        as_user = {}
        data, sockets = self.root / "data", self.root / "sockets"
        for folder in (data, sockets):
            folder.mkdir(parents=True)
        if os.geteuid() == 0:  # postgres refuses to run as root
            account = pwd.getpwnam("postgres")
            self.root.chmod(0o755)
            for folder in (data, sockets):
                os.chown(folder, account.pw_uid, account.pw_gid)
            as_user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
        log = self.root / "postgres.log"
        log.touch()
        if as_user:
            os.chown(log, as_user["user"], as_user["group"])
        made = subprocess.run(
            [postgres_bin("initdb"), "-D", str(data), "-U", self.user, "--auth=trust", "-E", "UTF8",
             "--no-locale", "--no-sync"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=self.root, **as_user,
        )
        if made.returncode:
            raise RuntimeError(f"initdb failed ({made.returncode}): {made.stderr.decode(errors='replace')[-2000:]}")
        self.port = free_port()
        self.process = spawn(
            [postgres_bin("postgres"), "-D", str(data), "-h", "127.0.0.1", "-p", str(self.port),
             "-k", str(sockets), "-c", "max_connections=200"],
            log, cwd=self.root, **as_user,
        )
        wait_for_port(self.port, self.process, "postgres")
        import psycopg2

        deadline = time.monotonic() + 60
        while True:
            try:
                conn = psycopg2.connect(host="127.0.0.1", port=self.port, user=self.user, dbname="postgres")
                break
            except psycopg2.OperationalError:  # "the database system is starting up"
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute("CREATE DATABASE dagster")
        conn.close()
        return self

    def new_database(self, name: str) -> str:
        import psycopg2

        conn = psycopg2.connect(host="127.0.0.1", port=self.port, user=self.user, dbname="postgres")
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        conn.close()
        return f"postgresql+psycopg2://{self.user}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process, sig=signal.SIGINT)  # postgres' "fast" shutdown


@dataclass
class Redis:
    root: Path
    port: int = 0
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "Redis":
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process = spawn(
            [shutil.which("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.root)],
            self.root / "redis.log",
        )
        wait_for_port(self.port, self.process, "redis-server")
        return self

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)


@dataclass
class MotoS3:
    """moto's server mode: an S3-compatible API on loopback."""

    root: Path
    port: int = 0
    process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "MotoS3":
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process = spawn(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)], self.root / "moto.log"
        )
        wait_for_port(self.port, self.process, "moto server")
        return self

    def env(self) -> dict[str, str]:
        """What fsspec/s3fs (and boto) read to reach this server."""
        return {
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": self.endpoint, "AWS_ENDPOINT_URL_S3": self.endpoint,
        }

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)


@dataclass
class CeleryWorkers:
    """``count`` Celery workers, each a separate process (``--pool solo``: one
    step at a time in the worker's own process, so killing the worker kills
    the step it runs), with the settings a deployment uses: the repository's
    ``scripts/celery/dagster_celery_config.py`` (late acknowledgement, the
    broker's visibility timeout from ``DUOCTHU_CELERY_VISIBILITY_TIMEOUT`` in
    ``env``), which dagster-celery's app imports from ``PYTHONPATH``."""

    root: Path
    env: dict[str, str]
    count: int = 2
    processes: list[subprocess.Popen] = field(default_factory=list)

    def start(self) -> "CeleryWorkers":
        self.root.mkdir(parents=True, exist_ok=True)
        env = {**self.env, "PYTHONPATH": os.pathsep.join([str(CELERY_CONFIG_DIR), self.env.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
        for i in range(self.count):
            self.processes.append(
                spawn(
                    [str(VENV_BIN / "celery"), "-A", "dagster_celery.app", "worker",
                     "--pool", "solo", "--concurrency", "1", "-Q", "dagster", "-n", f"duocthu{i}@%h",
                     "--loglevel", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"],
                    self.root / f"worker{i}.log", env=env, cwd=self.root,
                )
            )
        self.wait_ready()
        return self

    @property
    def logs(self) -> list[Path]:
        return [self.root / f"worker{i}.log" for i in range(len(self.processes))]

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(f"a Celery worker exited with code {process.returncode}: see {self.root}")
            if all(log.exists() and b"ready." in log.read_bytes() for log in self.logs):
                return
            time.sleep(0.5)
        raise RuntimeError(f"the Celery workers were not ready within {timeout:.0f} s: see {self.root}")

    def stop(self) -> None:
        for process in self.processes:
            stop(process)


@dataclass
class DagsterDaemon:
    """``dagster-daemon run`` over the instance in ``env['DAGSTER_HOME']``, as
    a deployment runs it beside the webserver: its run monitoring (the
    instance's ``run_monitoring:``) watches every run of the instance, however
    it was launched. Started with ``--empty-workspace``: the code location's
    sensors would start runs of their own (an index rebuild after each ingest),
    which the tests' comparisons do not expect; run monitoring needs no code
    location."""

    root: Path
    env: dict[str, str]
    process: subprocess.Popen | None = None

    @property
    def log(self) -> Path:
        return self.root / "daemon.log"

    def start(self, timeout: float = 180) -> "DagsterDaemon":
        self.root.mkdir(parents=True, exist_ok=True)
        self.process = spawn([str(VENV_BIN / "dagster-daemon"), "run", "--empty-workspace"], self.log, env=self.env, cwd=self.root)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"dagster-daemon exited with code {self.process.returncode}: see {self.log}")
            if b"MonitoringDaemon" in self.log.read_bytes():  # its list of the daemons it runs
                return self
            time.sleep(0.5)
        raise RuntimeError(f"dagster-daemon did not start its run monitoring within {timeout:.0f} s: see {self.log}")

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """A temporary folder under the system's temp dir (not pytest's 0700
    tree, which the ``postgres`` user could not enter)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
