"""Driving the Dagster UI the way a person does: a real `dagster dev` (webserver,
daemon, code server) on a free loopback port over a warehouse in a temporary
folder, GraphQL against it, and headless Chromium in front of it.

Every server is started in its own process group and stopped by that group's
id, never by a process name.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from tests.support.paths import REPO

BIN = Path(sys.executable).parent
OUTPUT = REPO / "tests" / "output"
LOCATION = "duocthu_assets.definitions"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class UiPlace:
    """A warehouse, an inbox and DAGSTER_HOME inside the warehouse, all under one folder."""

    root: Path
    warehouse: Path = field(init=False)
    inbox: Path = field(init=False)
    home: Path = field(init=False)

    def __post_init__(self) -> None:
        from duocthu_assets.runtime.instance import dagster_home_for, ensure_dagster_home

        self.warehouse = self.root / "warehouse"
        self.inbox = self.root / "inbox"
        self.inbox.mkdir(parents=True, exist_ok=True)
        self.home = ensure_dagster_home(dagster_home_for(str(self.warehouse)))

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DUOCTHU_", "DAGSTER_"))}
        env.update(
            DAGSTER_HOME=str(self.home),
            DUOCTHU_WAREHOUSE=str(self.warehouse),
            DUOCTHU_INBOX=str(self.inbox),
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env


def register_documents(place: UiPlace, folder: Path) -> list[str]:
    """Register every document under ``folder`` the way the inbox sensor does,
    and add their partitions to the instance; returns the doc_ids."""
    import dagster as dg

    from duocthu_assets.inbox.scan import discover
    from duocthu_assets.inbox.registration import register_files
    from duocthu_assets.inbox.registry import Registry
    from duocthu_assets.warehouse import Warehouse

    registry = Registry(Warehouse(str(place.warehouse)))
    records, _ = register_files(registry, discover([folder]))
    registry.save()
    doc_ids = [r.doc_id for r in records]
    with dg.DagsterInstance.from_config(str(place.home)) as instance:
        instance.add_dynamic_partitions("documents", doc_ids)
    return doc_ids


class UiServer:
    """A Dagster UI process (its whole process group) and the way to talk to it."""

    def __init__(self, command: list[str], env: dict[str, str], port: int, log: Path, cwd: Path = REPO):
        self.command, self.env, self.port, self.log_path, self.cwd = command, env, port, log, cwd
        self.proc: subprocess.Popen | None = None
        self.started_at = 0.0
        self.ready_after = 0.0
        self.stopped = False
        self.killed = False
        self.stop_seconds = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90) -> "UiServer":
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("wb")
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen(
            self.command, cwd=self.cwd, env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_default_signals,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.command[0]} exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if requests.get(f"{self.url}/server_info", timeout=2).ok and self._location_loaded():
                    self.ready_after = time.monotonic() - self.started_at
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.5)
        self.stop()
        raise TimeoutError(f"the UI did not answer on {self.url} within {timeout}s:\n{self.log_tail()}")

    def _location_loaded(self) -> bool:
        data = self.graphql(
            "{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus "
            "locationOrLoadError { __typename ... on PythonError { message } } } } } }"
        )
        entries = data["workspaceOrError"]["locationEntries"]
        for entry in entries:
            error = entry["locationOrLoadError"]
            if error and error["__typename"] == "PythonError":
                raise RuntimeError(f"code location {entry['name']} failed to load: {error['message']}")
        return bool(entries) and all(e["loadStatus"] == "LOADED" and e["locationOrLoadError"] for e in entries)

    def graphql(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        response = requests.post(f"{self.url}/graphql", json={"query": query, "variables": variables or {}}, timeout=30)
        response.raise_for_status()
        payload = response.json()
        if payload.get("errors"):
            raise AssertionError(f"GraphQL errors: {payload['errors']}")
        return payload["data"]

    def group_alive(self) -> list[int]:
        """Live (non-zombie) processes of the server's process group."""
        if self.proc is None:
            return []
        alive = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            state, pgid = fields[0], int(fields[2])
            if pgid == self.proc.pid and state != "Z":
                alive.append(int(stat.parent.name))
        return alive

    def stop(self, grace: float = 15) -> None:
        """SIGTERM to the process group (the server, its daemon, code servers and
        run workers), SIGKILL to whatever is left after ``grace`` seconds."""
        if self.proc is None or self.stopped:
            return
        started = time.monotonic()
        pgid = self.proc.pid
        self._signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and (self.proc.poll() is None or self.group_alive()):
            time.sleep(0.2)
        if self.proc.poll() is None or self.group_alive():
            self.killed = True
            self._signal_group(pgid, signal.SIGKILL)
            self.proc.wait(timeout=10)
            deadline = time.monotonic() + 10
            while self.group_alive() and time.monotonic() < deadline:
                time.sleep(0.2)
        self.stopped = True
        self.stop_seconds = time.monotonic() - started
        self._log.close()

    @staticmethod
    def _signal_group(pgid: int, sig: int) -> None:
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _default_signals() -> None:
    """In the child: default SIGINT/SIGTERM handling, even when the test runs
    from a shell that ignores them in background jobs (dagster dev relays an
    interrupt to its webserver, daemon and code server, which must not ignore it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def dagster_dev(place: UiPlace, port: int, log: Path) -> UiServer:
    """`dagster dev -w workspace.yaml`: the same code location, instance and
    loopback host `make ui` serves through `dg dev` (tests/ui/test_ui_make.py
    starts that one)."""
    command = [str(BIN / "dagster"), "dev", "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)]
    return UiServer(command, place.env(), port, log)


# -- GraphQL -------------------------------------------------------------------

METADATA_FIELDS = """
  label
  __typename
  ... on JsonMetadataEntry { jsonString }
  ... on TextMetadataEntry { text }
  ... on MarkdownMetadataEntry { mdStr }
  ... on IntMetadataEntry { intValue intRepr }
  ... on FloatMetadataEntry { floatValue }
  ... on BoolMetadataEntry { boolValue }
  ... on PathMetadataEntry { path }
"""

CHECK_EXECUTIONS = (
    """
query CheckExecutions($assetKey: AssetKeyInput!, $checkName: String!, $partition: String) {
  assetCheckExecutions(assetKey: $assetKey, checkName: $checkName, partition: $partition, limit: 5) {
    runId
    status
    partition
    evaluation {
      checkName
      success
      severity
      description
      partition
      metadataEntries { %s }
    }
  }
}
"""
    % METADATA_FIELDS
)

ASSET_CHECKS = """
query AssetChecks($assetKey: AssetKeyInput!) {
  assetNodeOrError(assetKey: $assetKey) {
    ... on AssetNode { assetChecksOrError { ... on AssetChecks { checks { name blocking } } } }
  }
}
"""

MATERIALIZATIONS = (
    """
query Materializations($assetKey: AssetKeyInput!, $partitions: [String!]) {
  assetOrError(assetKey: $assetKey) {
    ... on Asset { assetMaterializations(partitions: $partitions, limit: 1) { runId partition metadataEntries { %s } } }
  }
}
"""
    % METADATA_FIELDS
)

RUN_MESSAGES = """
query RunMessages($runId: ID!) {
  runOrError(runId: $runId) {
    __typename
    ... on Run { status tags { key value } eventConnection(limit: 2000) { events { __typename ... on MessageEvent { message } } } }
  }
}
"""

AUTOMATION = """
{
  repositoriesOrError {
    ... on RepositoryConnection {
      nodes {
        name
        location { name }
        sensors { name sensorState { status } }
        schedules { name cronSchedule executionTimezone scheduleState { status } }
        jobs { name }
      }
    }
  }
  instance {
    info
    runQueuingSupported
    runQueueConfig { maxConcurrentRuns }
    daemonHealth { allDaemonStatuses { daemonType required healthy } }
  }
}
"""


def metadata_dict(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """GraphQL metadata entries to {label: python value}."""
    out: dict[str, Any] = {}
    for entry in entries:
        kind = entry["__typename"]
        if kind == "JsonMetadataEntry":
            out[entry["label"]] = json.loads(entry["jsonString"])
        elif kind == "TextMetadataEntry":
            out[entry["label"]] = entry["text"]
        elif kind == "MarkdownMetadataEntry":
            out[entry["label"]] = entry["mdStr"]
        elif kind == "IntMetadataEntry":
            out[entry["label"]] = entry["intValue"] if entry["intValue"] is not None else int(entry["intRepr"])
        elif kind == "FloatMetadataEntry":
            out[entry["label"]] = entry["floatValue"]
        elif kind == "BoolMetadataEntry":
            out[entry["label"]] = entry["boolValue"]
        elif kind == "PathMetadataEntry":
            out[entry["label"]] = entry["path"]
        else:
            out[entry["label"]] = entry
    return out


def check_executions(server: UiServer, asset: str, check: str, partition: str) -> list[dict[str, Any]]:
    data = server.graphql(CHECK_EXECUTIONS, {"assetKey": {"path": [asset]}, "checkName": check, "partition": partition})
    return data["assetCheckExecutions"]


def latest_materialization(server: UiServer, asset: str, partition: str) -> dict[str, Any] | None:
    data = server.graphql(MATERIALIZATIONS, {"assetKey": {"path": [asset]}, "partitions": [partition]})
    found = data["assetOrError"].get("assetMaterializations") or []
    if not found:
        return None
    return {**found[0], "metadata": metadata_dict(found[0]["metadataEntries"])}


def wait_for_run(client, run_id: str, timeout: float) -> str:
    """Poll dagster-graphql's client until the run ends; returns the status name."""
    from dagster import DagsterRunStatus

    finished = {DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED}
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        status = client.get_run_status(run_id)
        if status in finished:
            return status.value
        time.sleep(1)
    raise TimeoutError(f"run {run_id} still {status} after {timeout}s")


# -- Chromium ------------------------------------------------------------------


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot_dir() -> Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    return OUTPUT


PARTITION_STATUSES = """
query PartitionStatuses($keys: [AssetKeyInput!]) {
  assetNodes(assetKeys: $keys) {
    assetKey { path }
    assetPartitionStatuses {
      ... on DefaultPartitionStatuses { materializedPartitions failedPartitions unmaterializedPartitions materializingPartitions }
    }
    assetChecksOrError {
      ... on AssetChecks {
        checks {
          name
          partitionStatuses {
            ... on AssetCheckDefaultPartitionStatuses {
              succeededPartitions failedPartitions inProgressPartitions skippedPartitions executionFailedPartitions
            }
          }
        }
      }
    }
  }
}
"""


def dagster_webserver(warehouse: Path, port: int, log: Path) -> UiServer:
    """The webserver alone (no daemon) over a warehouse's instance: what the UI reads."""
    from duocthu_assets.runtime.instance import dagster_home_for, ensure_dagster_home

    home = ensure_dagster_home(dagster_home_for(str(warehouse)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DUOCTHU_", "DAGSTER_"))}
    env.update(DAGSTER_HOME=str(home), DUOCTHU_WAREHOUSE=str(warehouse), PYTHONUNBUFFERED="1")
    command = [str(BIN / "dagster-webserver"), "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)]
    return UiServer(command, env, port, log)


def partition_statuses(server: UiServer, assets: list[str]) -> dict[str, dict[str, Any]]:
    """asset -> {"asset": {status: [documents]}, "checks": {check: {status: [documents]}}}, as the UI reads them."""
    data = server.graphql(PARTITION_STATUSES, {"keys": [{"path": [a]} for a in assets]})
    out: dict[str, dict[str, Any]] = {}
    for node in data["assetNodes"]:
        checks = node["assetChecksOrError"].get("checks", [])
        out[node["assetKey"]["path"][-1]] = {
            "asset": node["assetPartitionStatuses"],
            "checks": {c["name"]: c["partitionStatuses"] for c in checks},
        }
    return out


ROLLUPS = """
query Rollups($keys: [AssetKeyInput!]) {
  assetNodes(assetKeys: $keys) {
    assetKey { path }
    assetChecksOrError {
      ... on AssetChecks { checks { name executionForLatestMaterialization { status partition runId } } }
    }
  }
}
"""

RUNS = """
{
  runsOrError(limit: 100) {
    ... on Runs { results { runId jobName status tags { key value } } }
  }
}
"""
