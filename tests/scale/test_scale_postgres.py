"""Issue 20 item 4: the Dagster instance on a real PostgreSQL server.

A PostgreSQL cluster from Debian's package is created with ``initdb`` in a
temporary folder, listens on loopback only, and is stopped at the end
(tests/support/scale_services.py). ``DUOCTHU_POSTGRES_URL`` selects dagster-postgres's
storage in the dagster.yaml instance.py writes. The sample collections and the
bench's tiny-CSV documents (``DUOCTHU_SCALE_DOCS``, 200 under `make
scale-test`, 20 otherwise) are ingested once with the SQLite instance and once
with the Postgres one: the two warehouses must be byte-identical, and the
Postgres database must hold the runs. The timings are printed (`-s`).
"""

from __future__ import annotations

import importlib.util
import io
import os
import time
from pathlib import Path

import pytest

from duocthu_assets.ingest.run import ingest
from duocthu_assets.runtime.instance import POSTGRES_EVENT_OPTIONS, POSTGRES_URL_ENV, dagster_home_for, open_instance

from tests.support.scale_services import Postgres, missing, scratch
from tests.support.paths import REPO

pytestmark = pytest.mark.slow

SAMPLES = REPO / "data" / "inbox"
# not compared: the instance itself, and the registry (it records when each file was seen)
NOT_COMPARED = {"dagster_home", "registry.json", "registry.json.lock", "last_ingest.json"}


def bench_documents() -> int:
    return int(os.environ.get("DUOCTHU_SCALE_DOCS", "20"))


def make_bench_inbox(root: Path, n: int) -> Path:
    """bench/ingest.py's generator: ``n`` tiny CSV documents."""
    spec = importlib.util.spec_from_file_location("duocthu_bench_ingest", REPO / "bench" / "ingest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_inbox(root, n, with_bad=False)


def warehouse_files(root: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and relative.parts[0] not in NOT_COMPARED and not path.name.startswith("."):
            files[relative.as_posix()] = path.read_bytes()
    return files


def assert_same_warehouse(expected: Path, got: Path) -> int:
    want, have = warehouse_files(expected), warehouse_files(got)
    assert sorted(have) == sorted(want), f"files differ: only in {got}: {sorted(set(have) - set(want))[:10]}, " \
                                         f"only in {expected}: {sorted(set(want) - set(have))[:10]}"
    different = [name for name in want if want[name] != have[name]]
    assert not different, f"{len(different)} file(s) differ byte for byte: {different[:10]}"
    assert any(name.endswith(".parquet") for name in want)
    return len(want)


@pytest.fixture(scope="module")
def postgres():
    why = missing("postgres")
    if why:
        pytest.skip(f"no PostgreSQL server here: {why}")
    with scratch("duocthu-pg-") as root:
        server = Postgres(root / "pg").start()
        try:
            yield server
        finally:
            server.stop()


def _timed_ingest(inbox: Path, warehouse: Path) -> tuple[float, object]:
    started = time.perf_counter()
    result = ingest([str(inbox)], str(warehouse), out=io.StringIO(), show_progress=False)
    return time.perf_counter() - started, result


@pytest.mark.parametrize("collection", ["samples", "bench"])
def test_a_postgres_instance_builds_the_same_warehouse_as_sqlite(postgres, collection, tmp_path, monkeypatch):
    import psycopg2

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused_home"))  # open_instance sets it; restored after
    monkeypatch.delenv(POSTGRES_URL_ENV, raising=False)
    for name, value in POSTGRES_EVENT_OPTIONS.items():  # what open_instance sets for Postgres, undone after
        monkeypatch.setenv(name, os.environ.get(name, value))
    inbox = SAMPLES if collection == "samples" else make_bench_inbox(tmp_path / "bench", bench_documents())
    n = len([p for p in inbox.rglob("*") if p.is_file()]) if collection == "bench" else None

    sqlite_seconds, sqlite_result = _timed_ingest(inbox, tmp_path / "sqlite" / "wh")
    assert "PooledSqliteEventLogStorage" in (dagster_home_for(str(tmp_path / "sqlite" / "wh")) / "dagster.yaml").read_text()

    url = postgres.new_database(f"dagster_{collection}")
    monkeypatch.setenv(POSTGRES_URL_ENV, url)
    pg_warehouse = tmp_path / "postgres" / "wh"
    pg_seconds, pg_result = _timed_ingest(inbox, pg_warehouse)

    config = (dagster_home_for(str(pg_warehouse)) / "dagster.yaml").read_text()
    assert "postgres_url" in config and url not in config  # the URL stays in the environment
    instance = open_instance(str(pg_warehouse))
    try:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PlannedOncePostgresEventLogStorage"
        runs = instance.get_runs()
    finally:
        instance.dispose()
    assert len(runs) == pg_result.runs > 0
    with psycopg2.connect(url.replace("+psycopg2", "")) as conn, conn.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM runs")
        assert cursor.fetchone()[0] == len(runs)
        cursor.execute("SELECT count(*) FROM event_logs")
        events = cursor.fetchone()[0]
        cursor.execute("SELECT pg_database_size(current_database())")
        database_bytes = cursor.fetchone()[0]
    assert not (dagster_home_for(str(pg_warehouse)) / "history" / "runs.db").exists()

    assert [(d.doc_id, d.status, d.chunks) for d in pg_result.documents] == \
           [(d.doc_id, d.status, d.chunks) for d in sqlite_result.documents]
    assert all(d.status == "ok" for d in pg_result.documents), [(d.doc_id, d.status, d.reason) for d in pg_result.documents]
    files = assert_same_warehouse(tmp_path / "sqlite" / "wh", pg_warehouse)

    docs = len(pg_result.documents)
    print(f"\nscale-test postgres [{collection}]: {docs} documents, {files} warehouse files byte-identical; "
          f"SQLite {sqlite_seconds:.2f} s ({sqlite_seconds / docs:.4f} s/doc, {sqlite_result.runs} runs), "
          f"PostgreSQL {pg_seconds:.2f} s ({pg_seconds / docs:.4f} s/doc, {pg_result.runs} runs, {events} events, "
          f"database {database_bytes / 1e6:.1f} MB)")
    if n is not None:
        assert docs == n


def test_postgres_partitioned_plan_leaves_no_row_per_document(postgres):
    """runtime/planned_checks.py on dagster-postgres's storage: a run's
    partitioned plan leaves no row per document, an evaluation its own
    (read back with the stock class)."""
    from dagster_postgres import PostgresEventLogStorage

    from duocthu_assets.runtime.postgres_event_log import PlannedOncePostgresEventLogStorage
    from tests.support.check_events import assert_a_partitioned_plan_leaves_rows_only_for_evaluations, plan_a_run_of_300_and_fail_one

    url = postgres.new_database("dagster_planned_rows")
    writer = PlannedOncePostgresEventLogStorage(postgres_url=url)
    plan_a_run_of_300_and_fail_one(writer)
    writer.dispose()
    reader = PostgresEventLogStorage(postgres_url=url)
    assert_a_partitioned_plan_leaves_rows_only_for_evaluations(reader)
    reader.dispose()


def test_postgres_check_rollup_reads_a_failing_document(postgres):
    """runtime/check_rollup.py on dagster-postgres's storage: the same
    statement as on SQLite, with its partial index of failed rows made."""
    from sqlalchemy import text

    from duocthu_assets.runtime.check_partition_index import FAILED_NAME, NAME
    from duocthu_assets.runtime.postgres_event_log import PlannedOncePostgresEventLogStorage
    from tests.support.check_events import assert_the_rollup_reads_a_failing_document

    url = postgres.new_database("dagster_check_rollup")
    storage = PlannedOncePostgresEventLogStorage.from_config_value(None, {"postgres_url": url})
    try:
        with storage.index_connection() as conn:
            indexes = set(conn.execute(text("SELECT indexname FROM pg_indexes WHERE tablename = 'asset_check_executions'")).scalars())
        assert {NAME, FAILED_NAME} <= indexes, indexes
        assert_the_rollup_reads_a_failing_document(storage)
    finally:
        storage.dispose()


def test_postgres_prune_deletes_a_rebuilt_documents_rows_inside_the_kept_run(postgres, tmp_path, monkeypatch):
    """runtime/partition_retention.py and run_log_retention.py on
    dagster-postgres's storage (one event table, no run files): a rebuilt
    document's rows leave the range run kept for the others, every
    partition's latest state reads the same."""
    from duocthu_assets.definitions import build_definitions
    from duocthu_assets.runtime.retention import prune_superseded_runs
    from tests.support.retention import (
        ingest_runs,
        latest_state,
        partitions_in_run,
        rebuilt_once,
    )

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused_home"))
    for name, value in POSTGRES_EVENT_OPTIONS.items():
        monkeypatch.setenv(name, os.environ.get(name, value))
    monkeypatch.setenv(POSTGRES_URL_ENV, postgres.new_database("dagster_retention"))
    warehouse = rebuilt_once(tmp_path)
    check_keys = build_definitions(str(warehouse)).resolve_asset_graph().asset_check_keys
    instance = open_instance(str(warehouse))
    try:
        assert type(instance.event_log_storage).__name__ == "PlannedOncePostgresEventLogStorage"
        range_run, a_run = ingest_runs(instance)
        before = latest_state(instance, check_keys)
        assert before[('["chunks"]', "a.csv")][1] == a_run
        result = prune_superseded_runs(instance, check_keys, keep_recent=0)
        after = latest_state(instance, check_keys)
        in_range_run = partitions_in_run(instance, range_run)
        again = prune_superseded_runs(instance, check_keys, keep_recent=0)
    finally:
        instance.dispose()
    assert after == before
    assert in_range_run == {"asset": {"b.csv", "c.csv"}, "check": {"b.csv", "c.csv"}}
    assert result.partition_slices >= 6 and result.check_rows >= 20 and result.plumbing_events > 0, result.summary()
    assert (again.partition_slices, again.check_rows, again.plumbing_events) == (0, 0, 0)
