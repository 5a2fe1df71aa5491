"""What a check's roll-up costs at many documents (issue 37): Dagster's stock
``get_latest_asset_check_execution_by_key`` (the newest row) against
duocthu's (runtime/check_rollup.py: the failing document's row), on the pooled
SQLite event log, for checks with N passing documents and a few failing.

    python bench/check_rollup.py [--documents 100000] [--checks 2] [--failing 3]

Rows are written straight into ``asset_check_executions`` (one serialized
evaluation reused: the query reads columns, and decodes only the rows it
returns). Prints CPU milliseconds per call of each, and the SQLite plan.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import dagster as dg
from dagster import serialize_value
from sqlalchemy.dialects import sqlite

from duocthu_assets.runtime.check_rollup import rollup_statement
from duocthu_assets.runtime.dagster_private import AssetCheckExecutionsTable, SqliteEventLogStorage
from duocthu_assets.runtime.event_log import PooledSqliteEventLogStorage
from tests.support.check_events import check_evaluation


def fill(storage, checks: list[dg.AssetCheckKey], documents: int, failing: int) -> None:
    passed, failed = serialize_value(check_evaluation("x", True)), serialize_value(check_evaluation("x", False))
    with storage.index_connection() as conn:
        for key in checks:
            rows = []
            for i in range(documents):
                bad = i % max(1, documents // max(failing, 1)) == 7 and failing
                rows.append({
                    "asset_key": key.asset_key.to_string(), "check_name": key.name, "run_id": f"run-{i // 1000}",
                    "partition": f"doc_{i:06d}.pdf", "execution_status": "FAILED" if bad else "SUCCEEDED",
                    "evaluation_event": failed if bad else passed, "evaluation_event_timestamp": None,
                    "evaluation_event_storage_id": i + 1, "materialization_event_storage_id": None,
                })
                if len(rows) == 20_000:
                    conn.execute(AssetCheckExecutionsTable.insert(), rows)
                    rows = []
            if rows:
                conn.execute(AssetCheckExecutionsTable.insert(), rows)


def per_call(fn, repeat: int) -> float:
    fn()
    started = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - started) / repeat * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--checks", type=int, default=2)
    parser.add_argument("--failing", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    checks = [dg.AssetCheckKey(dg.AssetKey("chunks"), f"rule_{i}") for i in range(args.checks)]
    with tempfile.TemporaryDirectory() as tmp:
        ours = PooledSqliteEventLogStorage(tmp)
        fill(ours, checks, args.documents, args.failing)
        stock = SqliteEventLogStorage(tmp)
        mine = per_call(lambda: ours.get_latest_asset_check_execution_by_key(checks), args.repeat)
        theirs = per_call(lambda: stock.get_latest_asset_check_execution_by_key(checks), args.repeat)
        found = ours.get_latest_asset_check_execution_by_key(checks)
        sql = str(rollup_statement(checks).compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
        with ours.index_connection() as conn:
            plan = [row[-1] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql)]
        print(f"{args.documents} documents x {args.checks} checks, {args.failing} failing per check")
        print(f"duocthu roll-up: {mine:.1f} CPU ms per call; Dagster's stock: {theirs:.1f} CPU ms per call")
        print("read:", {k.name: (r.status.value, r.partition) for k, r in found.items()})
        print("plan:", " | ".join(plan))
        ours.dispose()
        stock.dispose()


if __name__ == "__main__":
    main()
