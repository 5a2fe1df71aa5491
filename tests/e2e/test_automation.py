"""The inbox sensor and the nightly schedule: a partition per new file, a run
only for new or changed content, removal leaves the index, history kept."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from duocthu_assets.automation import (
    inbox_sensor,
    index_after_ingest_failure,
    index_after_ingest_success,
    nightly_reingest,
    record_built,
)
from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.runtime.gates import check_statuses
from duocthu_assets.inbox.scan import doc_id_for
from duocthu_assets.inbox.registry import Registry
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.jobs import INGEST_JOB
from duocthu_assets.resources import WarehouseResource
from duocthu_assets.warehouse import Warehouse
from duocthu_assets.version import code_version

from tests.support.docgen import make_docx, make_scanned_pdf, make_xlsx


@pytest.fixture
def setup(tmp_path: Path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    make_docx(inbox / "a.docx", [("Một", ["Đoạn văn thứ nhất."])])
    make_xlsx(inbox / "b.xlsx", ["Tên", "Số lượng"], [["x", 1], ["y", 2]])
    monkeypatch.setenv("DUOCTHU_INBOX", str(inbox))
    warehouse = tmp_path / "wh"
    instance = open_instance(str(warehouse))
    return inbox, warehouse, instance


def _resources(warehouse) -> dict:
    return {"warehouse": WarehouseResource(root=str(warehouse))}


def _tick(instance, warehouse):
    """One evaluation of the inbox sensor as the daemon does it: evaluate_tick,
    which checks what the sensor returns and resolves its run requests."""
    defs = build_definitions(str(warehouse))
    with dg.build_sensor_context(instance_ref=instance.get_ref(), resources=_resources(warehouse), definitions=defs) as context:
        return inbox_sensor.evaluate_tick(context)


def _schedule_tick(instance, warehouse):
    """One tick of the nightly schedule through Dagster's own evaluation (the
    one that rejected a SensorResult)."""
    defs = build_definitions(str(warehouse))
    with dg.build_schedule_context(
        instance_ref=instance.get_ref(), resources=_resources(warehouse), repository_def=defs.get_repository_def()
    ) as context:
        return nightly_reingest.evaluate_tick(context)


def _built(warehouse, doc_ids, version=None):
    record_built(Registry(Warehouse(warehouse)), doc_ids, version or code_version())


def test_sensor_adds_partitions_and_runs_only_new_or_changed(setup):
    inbox, warehouse, instance = setup
    result = _tick(instance, warehouse)
    assert [r.partitions_def_name for r in result.dynamic_partitions_requests] == ["documents"]
    assert sorted(result.dynamic_partitions_requests[0].partition_keys) == ["a.docx", "b.xlsx"]
    assert sorted(r.partition_key for r in result.run_requests) == ["a.docx", "b.xlsx"]
    assert all(r.job_name in (None, INGEST_JOB) and r.run_key for r in result.run_requests)

    instance.add_dynamic_partitions("documents", ["a.docx", "b.xlsx"])
    _built(warehouse, ["a.docx", "b.xlsx"])
    unchanged = _tick(instance, warehouse)
    assert unchanged.run_requests == [] and unchanged.dynamic_partitions_requests == []

    make_xlsx(inbox / "b.xlsx", ["Tên", "Số lượng"], [["z", 3]])
    changed = _tick(instance, warehouse)
    assert [r.partition_key for r in changed.run_requests] == ["b.xlsx"]
    assert changed.dynamic_partitions_requests == []


def test_nightly_schedule_ticks_through_dagster_on_unchanged_and_changed_documents(setup):
    inbox, warehouse, instance = setup
    assert nightly_reingest.cron_schedule == "0 2 * * *"
    assert nightly_reingest.execution_timezone == "Asia/Ho_Chi_Minh"

    # before the sensor has seen them: no partitions yet, so nothing a
    # schedule may request; it says why instead of failing the tick
    fresh = _schedule_tick(instance, warehouse)
    assert fresh.run_requests == []
    assert "2 new document(s) wait for inbox_sensor" in fresh.skip_message

    instance.add_dynamic_partitions("documents", ["a.docx", "b.xlsx"])
    _built(warehouse, ["a.docx", "b.xlsx"])
    unchanged = _schedule_tick(instance, warehouse)
    assert unchanged.run_requests == []
    assert unchanged.skip_message == "2 document(s) unchanged since built"

    make_docx(inbox / "a.docx", [("Một", ["Đoạn văn đã sửa."])])
    changed = _schedule_tick(instance, warehouse)
    (run,) = changed.run_requests
    assert run.partition_key == "a.docx" and run.run_key
    assert run.tags["dagster/schedule_name"] == "nightly_reingest"
    assert run.tags["dagster/partition"] == "a.docx"

    # a code change (a different code version) makes a document due too
    _built(warehouse, ["a.docx"])
    _built(warehouse, ["b.xlsx"], "an-older-version")
    assert [r.partition_key for r in _schedule_tick(instance, warehouse).run_requests] == ["b.xlsx"]


def test_run_status_sensors_record_the_build_and_request_the_index(setup):
    """Both run-status sensors through Dagster's evaluation: the first tick
    sets the cursor, the next sees the run that ended since and answers it."""
    inbox, warehouse, instance = setup
    defs = build_definitions(str(warehouse))
    make_scanned_pdf(inbox / "scan.pdf", pages=1)  # no text layer: a blocking check fails its run
    register = _tick(instance, warehouse)  # registers the files
    assert len(register.run_requests) == 3
    instance.add_dynamic_partitions("documents", ["a.docx", "b.xlsx", "scan.pdf"])

    def tick(sensor, cursor):
        with dg.build_sensor_context(
            instance_ref=instance.get_ref(), cursor=cursor, resources=_resources(warehouse), definitions=defs
        ) as context:
            return sensor.evaluate_tick(context)

    cursors = {s.name: tick(s, None).cursor for s in (index_after_ingest_success, index_after_ingest_failure)}
    job = defs.resolve_job_def(INGEST_JOB)
    good = job.execute_in_process(instance=instance, partition_key="a.docx", raise_on_error=False)
    bad = job.execute_in_process(instance=instance, partition_key="scan.pdf", raise_on_error=False)
    assert good.success and not bad.success

    after_success = tick(index_after_ingest_success, cursors["index_after_ingest_success"])
    assert [r.run_key for r in after_success.run_requests] == [f"index-after-{good.run_id}"]
    after_failure = tick(index_after_ingest_failure, cursors["index_after_ingest_failure"])
    (index,) = after_failure.run_requests  # no follow-up run for the blocked scan: its runs end with the failed one
    assert index.run_key == f"index-after-{bad.run_id}"
    assert {r.job_name for r in after_success.run_requests + [index]} == {"refresh_search_index"}
    assert index.tags["duocthu/kind"] == "index refresh"
    # the failed run is tagged with what stopped it: a rule, not a crash
    tags = instance.get_run_by_id(bad.run_id).tags
    assert tags["duocthu/outcome"] == "blocked"
    assert tags["duocthu/documents"] == "scan.pdf blocked by parsed_documents.no_pages_need_ocr"
    # the checks the scan never reached have no row: not evaluated, neither skipped nor failed
    statuses = check_statuses(instance, ["scan.pdf"])["scan.pdf"]
    assert statuses["no_pages_need_ocr"] == "FAILED" and "chunk_step_completed" not in statuses
    assert tick(index_after_ingest_failure, after_failure.cursor).run_requests == []

    # a refresh still waiting in the queue serves every ingest run that ends before it starts
    instance.create_run_for_job(defs.resolve_job_def("refresh_search_index"), status=dg.DagsterRunStatus.NOT_STARTED)
    again = job.execute_in_process(instance=instance, partition_key="a.docx", raise_on_error=False)
    assert again.success
    waited = tick(index_after_ingest_success, after_success.cursor)
    assert waited.run_requests == [] and "queued, will include it" in waited.skip_message

    records = Registry(Warehouse(warehouse)).records
    assert records["a.docx"].built["code_version"] == code_version()
    assert records["scan.pdf"].built["sha256"] == records["scan.pdf"].sha256
    assert "b.xlsx" not in [r.partition_key for r in after_success.run_requests]
    # the two are built now: the next schedule tick requests only the third
    assert [r.partition_key for r in _schedule_tick(instance, warehouse).run_requests] == ["b.xlsx"]

    # a build already queued (from an earlier tick or the sensor) is not requested again
    queued = _schedule_tick(instance, warehouse).run_requests[0]
    instance.create_run_for_job(
        job_def=defs.resolve_job_def(INGEST_JOB), run_config={}, tags=queued.tags, status=dg.DagsterRunStatus.NOT_STARTED
    )
    again = _schedule_tick(instance, warehouse)
    assert again.run_requests == [] and "1 already queued or running" in again.skip_message


def test_removed_file_leaves_the_index_and_keeps_its_history(setup):
    inbox, warehouse, instance = setup
    assert main(["ingest", str(inbox), "--warehouse", str(warehouse), "--quiet"]) == 0
    assert (warehouse / "chunks" / "a.docx.parquet").exists()
    (inbox / "a.docx").unlink()

    result = _tick(instance, warehouse)
    assert [r.partition_key for r in result.run_requests] == ["a.docx"]
    defs = build_definitions(str(warehouse))
    run = defs.resolve_job_def(INGEST_JOB).execute_in_process(instance=instance, partition_key="a.docx", raise_on_error=False)
    assert not run.success  # the document_accepted gate stops it
    defs.resolve_job_def("refresh_search_index").execute_in_process(instance=instance)

    raw = pq.read_table(warehouse / "raw_documents" / "a.docx.parquet").to_pylist()[0]
    assert raw["status"] == "removed"
    for asset in ("segments", "chunks", "embeddings", "parsed_documents"):
        assert not (warehouse / asset / "a.docx.parquet").exists(), asset
    indexed = set(pq.read_table(warehouse / "search_index" / "index.parquet").column("doc_id").to_pylist())
    assert indexed == {"b.xlsx"}
    assert "a.docx" in instance.get_dynamic_partitions("documents")
    history = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=dg.AssetKey("chunks"), asset_partitions=["a.docx"]), limit=5)
    assert history.records, "the partition's materialization history is kept"


@pytest.mark.parametrize(
    "path, expected",
    [
        ("formulary/duoc_thu_mau.pdf", "formulary-duoc_thu_mau.pdf"),
        ("office/report.xlsx", "office-report.xlsx"),
    ],
)
def test_doc_ids_are_readable_when_faithful(path, expected):
    assert doc_id_for(path) == expected


@pytest.mark.parametrize("path", ["a...b.pdf", "x\ny.pdf", "../../etc/passwd", "Hợp đồng/قرارداد 1.docx", "A" * 200 + ".pdf", "a/b.pdf"])
def test_doc_ids_are_sanitized_and_unique(path):
    doc_id = doc_id_for(path)
    assert len(doc_id) <= 64
    assert all(c in "abcdefghijklmnopqrstuvwxyz0123456789._-" for c in doc_id)
    assert ".." not in doc_id and "\n" not in doc_id and not doc_id.startswith(".")
    assert doc_id != doc_id_for(path + "x")


@pytest.mark.slow
def test_a_real_daemon_fires_the_schedule_and_reingests_the_changed_document(tmp_path: Path):
    """`dagster-daemon run` over the workspace, the nightly cron overridden to
    every minute (DUOCTHU_NIGHTLY_CRON), the inbox sensor stopped so only the
    schedule can request the run: the changed document is re-ingested, the
    unchanged one is not, and the run-status sensor records the build."""
    import os
    import signal
    import subprocess
    import time

    from tests.support.paths import REPO
    from tests.support.ui_helpers import BIN, UiPlace, _default_signals

    place = UiPlace(tmp_path)
    make_docx(place.inbox / "a.docx", [("Một", ["Đoạn văn thứ nhất."])])
    make_xlsx(place.inbox / "b.xlsx", ["Tên", "Số lượng"], [["x", 1]])
    assert main(["ingest", str(place.inbox), "--warehouse", str(place.warehouse), "--quiet"]) == 0
    make_docx(place.inbox / "a.docx", [("Một", ["Đoạn văn đã sửa trong đêm."])])

    env = place.env(DUOCTHU_NIGHTLY_CRON="* * * * *", DUOCTHU_TIMEZONE="UTC")
    stop = subprocess.run(
        [str(BIN / "dagster"), "sensor", "stop", "inbox_sensor", "-w", "workspace.yaml"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=180,
    )
    assert stop.returncode == 0, stop.stdout + stop.stderr

    log = (tmp_path / "daemon.log").open("wb")
    daemon = subprocess.Popen(
        [str(BIN / "dagster-daemon"), "run", "-w", "workspace.yaml"], cwd=REPO, env=env,
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_default_signals,
    )
    scheduled = []
    try:
        with dg.DagsterInstance.from_config(str(place.home)) as instance:
            deadline = time.monotonic() + 600  # the next minute, then the queued run on two shared cores
            while time.monotonic() < deadline:
                assert daemon.poll() is None, (tmp_path / "daemon.log").read_text()
                scheduled = instance.get_runs(filters=dg.RunsFilter(tags={"dagster/schedule_name": "nightly_reingest"}))
                if scheduled and all(r.is_finished for r in scheduled):
                    break
                time.sleep(2)
            statuses = {r.tags.get("dagster/partition"): r.status for r in scheduled}
            assert statuses == {"a.docx": dg.DagsterRunStatus.SUCCESS}, (statuses, (tmp_path / "daemon.log").read_text()[-3000:])
            sensor_runs = instance.get_runs(filters=dg.RunsFilter(tags={"dagster/sensor_name": "inbox_sensor"}))
            assert sensor_runs == [], "the stopped inbox sensor requested a run"
            # the run-status sensor saw it succeed: the build is recorded, the index refreshed
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if Registry(Warehouse(place.warehouse)).records["a.docx"].built.get("sha256") == Registry(Warehouse(place.warehouse)).records["a.docx"].sha256:
                    break
                time.sleep(2)
    finally:
        try:
            os.killpg(daemon.pid, signal.SIGTERM)
            daemon.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(daemon.pid, signal.SIGKILL)
            daemon.wait(timeout=10)
        log.close()
    text = " ".join(pq.read_table(place.warehouse / "chunks" / "a.docx.parquet").column("text").to_pylist())
    assert "đã sửa trong đêm" in text
    record = Registry(Warehouse(place.warehouse)).records["a.docx"]
    assert record.built["sha256"] == record.sha256, "index_after_ingest_success did not record the build"


def test_a_partition_added_in_the_ui_with_the_sensor_off_builds_from_the_inbox(setup):
    """The sensor never ran (off): a partition added by hand (the launch
    dialog's "Add a partition") names a file the registry does not know;
    raw_documents registers the inbox as the sensor would and builds it. A
    doc_id no file has says so, and what to do."""
    inbox, warehouse, instance = setup
    instance.add_dynamic_partitions("documents", ["a.docx", "nowhere.pdf"])
    job = build_definitions(str(warehouse)).resolve_job_def(INGEST_JOB)
    built = job.execute_in_process(instance=instance, partition_key="a.docx", raise_on_error=False)
    assert built.success
    row = Warehouse(str(warehouse)).read_table("raw_documents", "a.docx").to_pylist()[0]
    assert row["status"] == "accepted"

    missing = job.execute_in_process(instance=instance, partition_key="nowhere.pdf", raise_on_error=False)
    assert not missing.success  # stopped by raw_documents.document_accepted, saying why and what to do
    (evaluation,) = [e for e in missing.get_asset_check_evaluations() if not e.passed]
    message = evaluation.metadata["message"].value
    assert f"no file in the inbox ({inbox}) has the doc_id 'nowhere.pdf'" in message
    assert "turn on inbox_sensor" in message and "duocthu ingest" in message
