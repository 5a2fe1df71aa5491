"""Issue 20 item 5: the ingest job on a real distributed executor, its
warehouse on an object store through the S3 API.

Started from nothing on loopback, stopped at the end: PostgreSQL (the
instance: every process shares it), Redis (Celery's broker and result
backend), moto's S3-compatible server (the warehouse is ``s3://duocthu/wh``,
written through the UPath IO manager and s3fs), and two Celery workers, each
a separate process (``celery -A dagster_celery.app worker``). With
``DUOCTHU_EXECUTOR=celery`` the code location's executor is dagster-celery's:
every step of a run is a Celery task that one of the workers executes.

The sample collections are ingested in process (SQLite, a local warehouse) as
the reference. Then, on the S3 warehouse:

1. from the CLI: ``dagster job execute -m duocthu_assets.definitions -j ingest``
   over the samples' partition range: the outputs are byte-identical;
2. from the UI: the webserver (``dagster-webserver``) launches the same job
   through GraphQL (the call the UI's Materialize button makes): byte-identical
   again, its steps on the workers;
3. a worker is SIGKILLed while it executes a step, and nobody intervenes: no
   partial Parquet is left (every ``*.parquet`` reads whole), the step's
   message, never acknowledged (``acks_late``), goes back on the queue
   once the broker's visibility timeout passes, the surviving worker runs the
   step again, and the run ends SUCCESS on its own, byte-identical;
4. no worker left at all: the daemon's run monitoring (``dagster-daemon run``,
   ``run_monitoring:`` in the instance's ``dagster.yaml``) ends the run FAILED
   once it exceeds its maximum runtime (the ``dagster/max_runtime`` tag).

Every process shares the instance in PostgreSQL; the daemon watches its runs.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest

from duocthu_assets.runtime.celery_worker import VISIBILITY_TIMEOUT_ENV
from duocthu_assets.ingest.run import ingest
from duocthu_assets.ingest.plan import INGEST_ASSETS
from duocthu_assets.runtime.instance import MARKER, POSTGRES_EVENT_OPTIONS, POSTGRES_URL_ENV, POSTGRES_YAML, ensure_dagster_home

from tests.support.scale_services import (
    VENV_BIN, CeleryWorkers, DagsterDaemon, MotoS3, Postgres, Redis, free_port, missing, scratch, spawn, stop, wait_for_port,
)
from tests.support.paths import REPO

pytestmark = pytest.mark.slow

SAMPLES = REPO / "data" / "inbox"
BUCKET = "duocthu"
WAREHOUSE = f"s3://{BUCKET}/wh"
COMPARED = set(INGEST_ASSETS) | {"sources"}
KILL_DURING = "parse_documents"
RUN_TIMEOUT = 900  # seconds; a loaded two-core machine is slow, a hang is not
# The broker's visibility timeout on the test's workers: above the longest
# step here (21 s at load 4; a loaded machine takes several times that), so a
# step still running is never delivered twice; production keeps kombu's hour
VISIBILITY_TIMEOUT = 120
# The daemon's run monitoring: every run ends within this, whatever happens
# to its steps (the instance's max_runtime_seconds; a run's own
# dagster/max_runtime tag overrides it), checked every few seconds
MAX_RUNTIME = RUN_TIMEOUT
MONITORING_POLL = 5
ABANDONED_RUN_MAX_RUNTIME = 30  # the tag on the run no worker ever takes


def scale_instance_yaml() -> str:
    """The test's ``dagster.yaml``: duocthu's shared PostgreSQL instance plus
    the daemon's run monitoring, as a deployment sets it (written by hand, so
    ``ensure_dagster_home`` leaves it alone)."""
    shared = POSTGRES_YAML.removeprefix(MARKER).split("\n", 1)[1]
    return shared + (
        "# dagster-daemon's run monitoring: a run that outlives its maximum runtime\n"
        "# (a step no worker will ever finish) is ended FAILED\n"
        "run_monitoring:\n  enabled: true\n"
        f"  max_runtime_seconds: {MAX_RUNTIME}\n  poll_interval_seconds: {MONITORING_POLL}\n"
    )


def _s3(env: dict[str, str]):
    import s3fs

    return s3fs.S3FileSystem(key=env["AWS_ACCESS_KEY_ID"], secret=env["AWS_SECRET_ACCESS_KEY"],
                             client_kwargs={"endpoint_url": env["AWS_ENDPOINT_URL"]}, skip_instance_cache=True)


def local_outputs(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] in COMPARED and not p.name.startswith(".")}


def s3_outputs(fs) -> dict[str, bytes]:
    prefix = f"{BUCKET}/wh/"
    files = {}
    # s3fs caches directory listings: one taken before a run would hide the
    # files that run wrote (cat_file's size lookup reads the cached listing)
    fs.invalidate_cache()
    for key in sorted(fs.find(prefix)):
        relative = key[len(prefix):]
        if relative.split("/", 1)[0] in COMPARED and not relative.rsplit("/", 1)[-1].startswith("."):
            files[relative] = fs.cat_file(key)
    return files


def assert_identical(reference: dict[str, bytes], got: dict[str, bytes], what: str) -> None:
    assert sorted(got) == sorted(reference), (
        f"{what}: only on S3 {sorted(set(got) - set(reference))[:8]}, only in the reference {sorted(set(reference) - set(got))[:8]}")
    different = [name for name in reference if reference[name] != got[name]]
    assert not different, f"{what}: {len(different)} file(s) differ byte for byte: {different[:8]}"


def clear_outputs(fs) -> None:
    """The per-document outputs gone (the registry, the sources and the
    instance stay): the next run has everything to build again."""
    for asset in INGEST_ASSETS:
        if fs.exists(f"{BUCKET}/wh/{asset}"):
            fs.rm(f"{BUCKET}/wh/{asset}", recursive=True)
    fs.invalidate_cache()


@pytest.fixture(scope="module")
def cluster():
    why = missing("postgres", "celery", "s3")
    if why:
        pytest.skip(f"the distributed set-up cannot run here: {why}")
    saved = dict(os.environ)
    started = []
    with scratch("duocthu-celery-") as root:
        try:
            # the reference: in process, SQLite, a local warehouse
            reference_wh = root / "reference" / "wh"
            os.environ.pop(POSTGRES_URL_ENV, None)
            os.environ["DAGSTER_HOME"] = str(root / "unused_home")
            ingest([str(SAMPLES)], str(reference_wh), out=open(os.devnull, "w"), show_progress=False)

            postgres = Postgres(root / "pg").start()
            started.append(postgres)
            redis = Redis(root / "redis").start()
            started.append(redis)
            s3 = MotoS3(root / "s3").start()
            started.append(s3)
            home = root / "home"
            home.mkdir()
            (home / "dagster.yaml").write_text(scale_instance_yaml())
            env = {
                **os.environ, **s3.env(),
                "DAGSTER_HOME": str(home),
                POSTGRES_URL_ENV: postgres.new_database("dagster_celery"),
                "DUOCTHU_WAREHOUSE": WAREHOUSE,
                "DUOCTHU_INBOX": str(SAMPLES),
                "DUOCTHU_EXECUTOR": "celery",
                "DUOCTHU_CELERY_BROKER": redis.url,
                VISIBILITY_TIMEOUT_ENV: str(VISIBILITY_TIMEOUT),
                **POSTGRES_EVENT_OPTIONS,
            }
            os.environ.update(env)
            fs = _s3(env)
            fs.mkdir(BUCKET)
            ensure_dagster_home(home)
            keys = register_samples()
            workers = CeleryWorkers(root / "workers", env, count=2).start()
            started.append(workers)
            daemon = DagsterDaemon(root / "daemon", env).start()
            started.append(daemon)
            yield SimpleNamespace(root=root, env=env, fs=fs, keys=keys, workers=workers, daemon=daemon, home=home,
                                  reference=local_outputs(reference_wh))
        finally:
            for service in reversed(started):
                service.stop()
            os.environ.clear()
            os.environ.update(saved)


def register_samples() -> list[str]:
    """What `duocthu ingest` and the inbox sensor do before a run: the files
    registered (their bytes stored under ``sources/``) and a partition each."""
    import dagster as dg

    from duocthu_assets.inbox.scan import scan
    from duocthu_assets.inbox.registration import register_files
    from duocthu_assets.inbox.registry import Registry
    from duocthu_assets.warehouse import Warehouse

    registry = Registry(Warehouse(WAREHOUSE))
    found = scan([str(SAMPLES)])
    records, _ = register_files(registry, found.found, None, refused=found.refused)
    registry.save()
    instance = dg.DagsterInstance.get()
    try:
        instance.add_dynamic_partitions("documents", [r.doc_id for r in records])
        return list(instance.get_dynamic_partitions("documents"))
    finally:
        instance.dispose()


def range_tags(keys: list[str], **extra: str) -> dict[str, str]:
    return {"dagster/asset_partition_range_start": keys[0], "dagster/asset_partition_range_end": keys[-1], **extra}


def cli_run(cluster, tag: str, **tags: str) -> subprocess.Popen:
    return spawn(
        [str(VENV_BIN / "dagster"), "job", "execute", "-m", "duocthu_assets.definitions", "-a", "defs", "-j", "ingest",
         "--tags", json.dumps(range_tags(cluster.keys, **{"duocthu/scale-test": tag}, **tags))],
        cluster.root / f"cli_{tag}.log", env=cluster.env, cwd=REPO,
    )


def the_run(tag: str):
    import dagster as dg

    instance = dg.DagsterInstance.get()
    try:
        runs = instance.get_runs(filters=dg.RunsFilter(tags={"duocthu/scale-test": tag}))
        return (runs[0], instance) if runs else (None, instance)
    except BaseException:
        instance.dispose()
        raise


def run_status(tag: str) -> tuple[str | None, list[str]]:
    """The run's status and the steps that started, from the shared instance."""
    import dagster as dg

    run, instance = the_run(tag)
    try:
        if run is None:
            return None, []
        steps = [e.step_key for e in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_START)]
        return run.status.value, steps
    finally:
        instance.dispose()


def tasks_per_worker(cluster) -> list[int]:
    return [log.read_text(errors="replace").count(" received") for log in cluster.workers.logs]


def wait_cli(process: subprocess.Popen, cluster, tag: str) -> None:
    try:
        code = process.wait(RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        stop(process)
        pytest.fail(f"the CLI run did not end within {RUN_TIMEOUT} s: see {cluster.root}/cli_{tag}.log")
    status, steps = run_status(tag)
    log = (cluster.root / f"cli_{tag}.log").read_text(errors="replace")
    assert code == 0 and status == "SUCCESS", f"exit {code}, run {status}:\n{log[-3000:]}"
    return steps


def test_the_ingest_job_on_celery_workers_from_the_cli_and_from_the_ui(cluster):
    before = tasks_per_worker(cluster)
    started = time.perf_counter()
    steps = wait_cli(cli_run(cluster, "cli"), cluster, "cli")
    cli_seconds = time.perf_counter() - started
    after = tasks_per_worker(cluster)
    assert sum(after) - sum(before) >= len(steps) > 0  # every step a task on a worker
    assert_identical(cluster.reference, s3_outputs(cluster.fs), "the CLI run through Celery")
    print(f"\nscale-test celery [cli]: {len(cluster.keys)} documents, {len(steps)} steps as Celery tasks "
          f"(per worker: {[a - b for a, b in zip(after, before)]}) in {cli_seconds:.1f} s; "
          f"{len(cluster.reference)} files on S3 byte-identical to the in-process run")

    # the UI: the webserver over the same instance, the run launched through GraphQL
    from dagster_graphql import DagsterGraphQLClient

    clear_outputs(cluster.fs)
    ui_home = cluster.root / "ui_home"
    ui_home.mkdir()
    # the instance's own settings (Postgres), and runs launched at once rather
    # than queued for a daemon this test does not start (its sensors would
    # launch runs of their own)
    (ui_home / "dagster.yaml").write_text(
        "telemetry:\n  enabled: false\n"
        "run_coordinator:\n  module: dagster._core.run_coordinator\n  class: DefaultRunCoordinator\n"
        "storage:\n  postgres:\n    postgres_url:\n      env: DUOCTHU_POSTGRES_URL\n"
    )
    port = free_port()
    webserver = spawn(
        [str(VENV_BIN / "dagster-webserver"), "-h", "127.0.0.1", "-p", str(port), "-m", "duocthu_assets.definitions", "-a", "defs"],
        cluster.root / "webserver.log", env={**cluster.env, "DAGSTER_HOME": str(ui_home)}, cwd=REPO,
    )
    try:
        wait_for_port(port, webserver, "dagster-webserver", timeout=300)
        client = DagsterGraphQLClient("127.0.0.1", port_number=port, timeout=300)
        deadline = time.monotonic() + 300
        while True:  # the code location loads after the port opens
            try:
                run_id = client.submit_job_execution("ingest", tags=range_tags(cluster.keys, **{"duocthu/scale-test": "ui"}))
                break
            except Exception as exc:  # noqa: BLE001 - DagsterGraphQLClientError while loading
                if time.monotonic() > deadline:
                    raise AssertionError(f"the webserver did not accept the launch: {exc}") from exc
                time.sleep(3)
        started = time.perf_counter()
        while time.perf_counter() - started < RUN_TIMEOUT:
            status = client.get_run_status(run_id).value
            if status in ("SUCCESS", "FAILURE", "CANCELED"):
                break
            time.sleep(2)
        ui_seconds = time.perf_counter() - started
    finally:
        stop(webserver)
    status, steps = run_status("ui")
    assert status == "SUCCESS", (cluster.root / "webserver.log").read_text(errors="replace")[-3000:]
    assert_identical(cluster.reference, s3_outputs(cluster.fs), "the UI's run through Celery")
    print(f"scale-test celery [ui]: launched through the webserver's GraphQL, {len(steps)} steps on the workers "
          f"(per worker now: {tasks_per_worker(cluster)}) in {ui_seconds:.1f} s; byte-identical")


def wait_run_end(cluster, tag: str, timeout: float) -> tuple[str, float]:
    """The run's final status in the instance, polled (a bounded wait: a
    run that never ends fails the test, naming the logs to read)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        status, _ = run_status(tag)
        if status in ("SUCCESS", "FAILURE", "CANCELED"):
            return status, time.monotonic() - started
        time.sleep(2)
    pytest.fail(f"run {tag!r} did not end within {timeout:.0f} s ({status}): see {cluster.root}/cli_{tag}.log "
                f"and {cluster.daemon.log}")


def run_messages(tag: str) -> list[str]:
    """What the instance recorded about the run: its events' messages."""
    run, instance = the_run(tag)
    try:
        return [e.dagster_event.message or "" for e in instance.all_logs(run.run_id) if e.dagster_event is not None]
    finally:
        instance.dispose()


TASK_RECEIVED = re.compile(r"Task execute_plan\[([0-9a-f-]+)\] received")


def running_steps(tag: str) -> list[str]:
    """The run's steps that have started and not ended, from the shared
    instance's events."""
    import dagster as dg

    run, instance = the_run(tag)
    try:
        if run is None:
            return []
        started, ended = [], set()
        for record in instance.all_logs(run.run_id):
            event = record.dagster_event
            if event is None or event.step_key is None:
                continue
            if event.event_type == dg.DagsterEventType.STEP_START:
                started.append(event.step_key)
            elif event.event_type in (dg.DagsterEventType.STEP_SUCCESS, dg.DagsterEventType.STEP_FAILURE):
                ended.add(event.step_key)
        return [step for step in started if step not in ended]
    finally:
        instance.dispose()


def kill_a_busy_worker(cluster, tag: str) -> tuple[int, str, list[str]]:
    """SIGKILL the worker (its whole process group) that holds a step task
    while ``KILL_DURING`` runs; its index, the Celery task id it held, and
    the steps that had started and not ended when it died (the killed step,
    or none when the worker died between receiving its task and starting
    the step: the one moment the events cannot show as mid-step)."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while time.monotonic() < deadline:
        status, steps = run_status(tag)
        assert status not in ("SUCCESS", "FAILURE"), f"the run ended ({status}) before a worker could be killed"
        if KILL_DURING in running_steps(tag):
            for index, (worker, log) in enumerate(zip(cluster.workers.processes, cluster.workers.logs)):
                text = log.read_text(errors="replace")
                if worker.poll() is None and text.count(" received") > text.count("succeeded in"):
                    os.killpg(worker.pid, signal.SIGKILL)
                    worker.wait()
                    return index, TASK_RECEIVED.findall(text)[-1], running_steps(tag)
        time.sleep(0.3)
    raise AssertionError("no worker was seen running a step")


def whole_parquet_files(fs) -> list[str]:
    """Every ``*.parquet`` object under the warehouse, each read whole (a
    partial one raises)."""
    fs.invalidate_cache()
    written = [k for k in fs.find(f"{BUCKET}/wh/") if k.endswith(".parquet")]
    for key in written:
        with fs.open(key, "rb") as fh:
            pq.read_table(fh)
    return written


def test_a_worker_killed_mid_step_leaves_no_partial_parquet_and_its_run_completes_on_its_own(cluster):
    clear_outputs(cluster.fs)
    process = cli_run(cluster, "kill")
    try:
        victim, task_id, killed_steps = kill_a_busy_worker(cluster, "kill")
        written = whole_parquet_files(cluster.fs)  # before the step runs again
        # nobody intervenes: the run's status is whatever Dagster records
        status, seconds = wait_run_end(cluster, "kill", MAX_RUNTIME + 10 * MONITORING_POLL)
        code = process.wait(120) if status == "SUCCESS" else None
    finally:
        stop(process)
    cli_log = (cluster.root / "cli_kill.log").read_text(errors="replace")
    assert status == "SUCCESS" and code == 0, (
        f"run {status}, exit {code}: {[m for m in run_messages('kill') if 'runtime' in m or 'fail' in m.lower()][:5]}\n"
        f"{cli_log[-3000:]}")
    survivors = [log.read_text(errors="replace") for i, log in enumerate(cluster.workers.logs) if i != victim]
    assert any(task_id in TASK_RECEIVED.findall(text) for text in survivors), (
        f"the killed worker's task {task_id} was not delivered to a surviving worker")
    _, steps = run_status("kill")
    twice = sorted({step for step in steps if steps.count(step) > 1})
    # the step the worker died running starts again, and only that one (a
    # step outlasting the visibility timeout would be delivered twice too)
    assert twice == sorted(killed_steps), (
        f"steps started more than once: {twice}; running when the worker was killed: {killed_steps}: {steps}")
    whole_parquet_files(cluster.fs)
    assert_identical(cluster.reference, s3_outputs(cluster.fs), "the run whose worker was killed")
    leftovers = [k for k in cluster.fs.find(f"{BUCKET}/wh/") if k.rsplit("/", 1)[-1].startswith(".")]
    killed = f"running {twice[0]}" if twice else "after taking a step task, before the step started"
    print(f"\nscale-test celery [kill]: worker {victim} SIGKILLed {killed} (task {task_id}); "
          f"{len(written)} Parquet object(s) on S3 then, every one whole; its task went back on the queue after the "
          f"{VISIBILITY_TIMEOUT} s visibility timeout and ran on the surviving worker (steps started twice in the "
          f"run's events: {twice or 'none'}); the run ended SUCCESS on its own {seconds:.0f} s after the kill, "
          f"byte-identical; "
          f"{len(leftovers)} temporary object(s) left")


def test_a_run_no_worker_takes_is_ended_by_the_daemons_run_monitoring(cluster):
    """Last in the module: its step's message stays on the queue, and the
    broker goes with the module's servers."""
    cluster.workers.stop()  # no worker left to take a step
    process = cli_run(cluster, "abandoned", **{"dagster/max_runtime": str(ABANDONED_RUN_MAX_RUNTIME)})
    try:
        status, seconds = wait_run_end(cluster, "abandoned", RUN_TIMEOUT)
        messages = run_messages("abandoned")
    finally:
        # a run Dagster did not launch (the CLI ran it) is marked failed, but
        # its process waits on: Dagster's launcher can only interrupt the
        # processes it started
        stop(process)
    assert status == "FAILURE", f"run {status}: {messages[-5:]}"
    timed_out = [m for m in messages if f"maximum runtime of {ABANDONED_RUN_MAX_RUNTIME} seconds" in m]
    assert timed_out, f"the run did not end for its maximum runtime: {messages[-5:]}"
    print(f"scale-test celery [no worker]: the daemon's run monitoring ended the run FAILURE {seconds:.0f} s after "
          f"it was launched (dagster/max_runtime {ABANDONED_RUN_MAX_RUNTIME} s, polled every {MONITORING_POLL} s): "
          f"{timed_out[0]!r}")
