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
3. a worker is SIGKILLed while it executes a step: no partial Parquet is left
   (every ``*.parquet`` reads whole), and after a replacement worker starts, a
   rerun completes, byte-identical.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest

from duocthu_assets.runtime.ingest import INGEST_ASSETS, ingest
from duocthu_assets.runtime.instance import POSTGRES_EVENT_OPTIONS, POSTGRES_URL_ENV, ensure_dagster_home

from .scale_services import VENV_BIN, CeleryWorkers, MotoS3, Postgres, Redis, free_port, missing, scratch, spawn, stop, wait_for_port

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "data" / "inbox"
BUCKET = "duocthu"
WAREHOUSE = f"s3://{BUCKET}/wh"
COMPARED = set(INGEST_ASSETS) | {"sources"}
KILL_DURING = "parse_documents"
RUN_TIMEOUT = 900  # seconds; a loaded two-core machine is slow, a hang is not


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
            env = {
                **os.environ, **s3.env(),
                "DAGSTER_HOME": str(home),
                POSTGRES_URL_ENV: postgres.new_database("dagster_celery"),
                "DUOCTHU_WAREHOUSE": WAREHOUSE,
                "DUOCTHU_INBOX": str(SAMPLES),
                "DUOCTHU_EXECUTOR": "celery",
                "DUOCTHU_CELERY_BROKER": redis.url,
                **POSTGRES_EVENT_OPTIONS,
            }
            os.environ.update(env)
            fs = _s3(env)
            fs.mkdir(BUCKET)
            ensure_dagster_home(home)
            keys = register_samples()
            workers = CeleryWorkers(root / "workers", redis.url, env, count=2).start()
            started.append(workers)
            yield SimpleNamespace(root=root, env=env, fs=fs, keys=keys, workers=workers, home=home,
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

    from duocthu_assets.inbox import Registry, register_files, scan
    from duocthu_assets.warehouse import Warehouse

    registry = Registry(Warehouse(WAREHOUSE))
    found = scan([str(SAMPLES)])
    records = register_files(registry, found.found, None, refused=found.refused, problems=[])
    registry.save()
    instance = dg.DagsterInstance.get()
    try:
        instance.add_dynamic_partitions("documents", [r.doc_id for r in records])
        return list(instance.get_dynamic_partitions("documents"))
    finally:
        instance.dispose()


def range_tags(keys: list[str], **extra: str) -> dict[str, str]:
    return {"dagster/asset_partition_range_start": keys[0], "dagster/asset_partition_range_end": keys[-1], **extra}


def cli_run(cluster, tag: str) -> subprocess.Popen:
    return spawn(
        [str(VENV_BIN / "dagster"), "job", "execute", "-m", "duocthu_assets.definitions", "-a", "defs", "-j", "ingest",
         "--tags", json.dumps(range_tags(cluster.keys, **{"duocthu/scale-test": tag}))],
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
    return [log.read_text(errors="replace").count("received") for log in sorted((cluster.root / "workers").glob("worker*.log"))]


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


def test_a_worker_killed_mid_step_leaves_no_partial_parquet_and_the_rerun_completes(cluster):
    clear_outputs(cluster.fs)
    process = cli_run(cluster, "kill")
    victim = None
    deadline = time.monotonic() + RUN_TIMEOUT
    try:
        # kill the worker running the parse (it writes segments, lifted_blocks
        # and parsed_documents), two seconds into it
        while victim is None and time.monotonic() < deadline:
            status, steps = run_status("kill")
            assert status not in ("SUCCESS", "FAILURE"), f"the run ended ({status}) before a worker could be killed"
            if KILL_DURING in steps:
                time.sleep(2)
                busy = [w for w, log in zip(cluster.workers.processes, sorted((cluster.root / "workers").glob("worker*.log")))
                        if log.read_text(errors="replace").count("received") > log.read_text(errors="replace").count("succeeded in")]
                if busy:
                    victim = busy[0]
                    os.killpg(victim.pid, signal.SIGKILL)
                    victim.wait()
                    killed_during = steps[-1]
                    break
            time.sleep(0.3)
        assert victim is not None, "no worker was seen running a step"
        # the run waits for a task nobody will finish: its process is stopped,
        # the run marked failed (what `duocthu ingest`'s fail_orphaned_runs
        # does for a run whose process is gone)
        time.sleep(2)
    finally:
        stop(process)
    run, instance = the_run("kill")
    try:
        if run.status.value not in ("FAILURE", "CANCELED"):
            instance.report_run_failed(run, "scale test: its Celery worker was killed mid-step")
    finally:
        instance.dispose()

    fs = cluster.fs
    fs.invalidate_cache()
    written = [k for k in fs.find(f"{BUCKET}/wh/") if k.endswith(".parquet")]
    for key in written:  # every Parquet file there is whole
        with fs.open(key, "rb") as fh:
            pq.read_table(fh)
    leftovers = [k for k in fs.find(f"{BUCKET}/wh/") if k.rsplit("/", 1)[-1].startswith(".")]

    # a replacement worker: two again; the rerun completes
    replacement = CeleryWorkers(cluster.root / "workers_2", cluster.env["DUOCTHU_CELERY_BROKER"], cluster.env, count=1).start()
    try:
        steps = wait_cli(cli_run(cluster, "rerun"), cluster, "rerun")
    finally:
        replacement.stop()
    assert_identical(cluster.reference, s3_outputs(cluster.fs), "the rerun after a killed worker")
    print(f"\nscale-test celery [kill]: a worker SIGKILLed during step {killed_during}; {len(written)} Parquet file(s) "
          f"on S3 then, every one whole; {len(leftovers)} temporary object(s); the rerun ({len(steps)} steps) "
          f"completed byte-identical")
