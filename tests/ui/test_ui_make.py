"""`make ui`, started for real: `dg dev` (the project pyproject.toml's
[tool.dg] names, this venv's Python) on 127.0.0.1,
DAGSTER_HOME inside the warehouse (its dagster.yaml written by
duocthu_assets/runtime/instance.py), the inbox sensor, the run-status sensors and the
nightly schedule loaded and running, the daemon healthy, the page served."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import requests

from tests.support.paths import REPO
from tests.support.ui_helpers import AUTOMATION, UiServer, free_port

pytestmark = pytest.mark.slow

SENSORS = {"inbox_sensor", "index_after_ingest_success", "index_after_ingest_failure"}
DAEMONS = {"SENSOR", "SCHEDULER", "QUEUED_RUN_COORDINATOR"}


def _listening_addresses(port: int) -> set[str]:
    """Local addresses listening on ``port``, from /proc/net/tcp{,6}."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")


def test_make_ui_serves_the_code_location_with_sensor_and_schedule(tmp_path: Path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    import os

    warehouse, inbox = tmp_path / "warehouse", tmp_path / "inbox"
    inbox.mkdir()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DUOCTHU_", "DAGSTER_", "MAKE"))}
    env.update(PORT=str(port), DUOCTHU_MAX_CONCURRENT="3", PYTHONUNBUFFERED="1")
    command = ["make", "--no-print-directory", "-C", str(REPO), "ui", f"WAREHOUSE={warehouse}", f"INBOX={inbox}"]
    server = UiServer(command, env, port, tmp_path / "make_ui.log")
    try:
        server.start(timeout=180)  # `make ui` runs `make setup` first; a stale stamp reinstalls
        home = warehouse / "dagster_home"
        assert (home / "dagster.yaml").read_text().startswith("# written by duocthu")

        # only loopback
        assert _listening_addresses(port) == {"0100007F"}, _listening_addresses(port)
        page = requests.get(server.url, timeout=10)
        assert page.ok and "Dagster" in page.text

        data = server.graphql(AUTOMATION)
        (repo,) = data["repositoriesOrError"]["nodes"]
        assert repo["location"]["name"].startswith("duocthu_assets.definitions")
        sensors = {s["name"]: s["sensorState"]["status"] for s in repo["sensors"]}
        assert sensors == {name: "RUNNING" for name in SENSORS}
        (schedule,) = repo["schedules"]
        assert schedule["name"] == "nightly_reingest"
        assert schedule["cronSchedule"] == "0 2 * * *"
        assert schedule["executionTimezone"] == "Asia/Ho_Chi_Minh"
        assert schedule["scheduleState"]["status"] == "RUNNING"
        assert {"ingest", "refresh_search_index"} <= {j["name"] for j in repo["jobs"]}

        info = data["instance"]["info"]
        assert f"base_dir: {home}" in info, info  # DAGSTER_HOME inside the warehouse
        assert data["instance"]["runQueuingSupported"] is True  # runs wait in the daemon's queue
        assert data["instance"]["runQueueConfig"]["maxConcurrentRuns"] == 2
        healthy = _wait_for_daemons(server)
        assert DAEMONS <= healthy, healthy

        # `make ui` hands dagster dev the warehouse, the inbox and the executor's step limit
        dev = [pid for pid in server.group_alive() if "/dg dev " in _cmdline(pid)]
        assert dev, [(pid, _cmdline(pid)) for pid in server.group_alive()]
        environ = _environ(dev[0])
        assert environ["DAGSTER_HOME"] == str(home)
        assert environ["DUOCTHU_WAREHOUSE"] == str(warehouse)
        assert environ["DUOCTHU_INBOX"] == str(inbox)
        assert environ["DUOCTHU_MAX_CONCURRENT"] == "3"
        assert " -h 127.0.0.1 " in _cmdline(dev[0]) and f" -p {port}" in _cmdline(dev[0])
    finally:
        server.stop()
    assert not server.group_alive()
    assert not _listening_addresses(port), "the port is still taken after stopping the UI"
    # the command this Dagster line recommends: no "use dg dev instead", no venv mismatch
    log = server.log_path.read_text(errors="replace")
    assert "SupersessionWarning" not in log and "does not match the virtual environment" not in log, log[-2000:]
    print(f"\nmake ui: ready after {server.ready_after:.1f}s, stopped in {server.stop_seconds:.1f}s")


def _wait_for_daemons(server: UiServer, timeout: float = 45) -> set[str]:
    import time

    deadline = time.monotonic() + timeout
    healthy: set[str] = set()
    while time.monotonic() < deadline:
        statuses = server.graphql(AUTOMATION)["instance"]["daemonHealth"]["allDaemonStatuses"]
        healthy = {d["daemonType"] for d in statuses if d["healthy"]}
        if DAEMONS <= healthy:
            break
        time.sleep(1)
    return healthy
