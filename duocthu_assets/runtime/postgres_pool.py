"""Pooled PostgreSQL connections for the processes of ``duocthu ingest``.

dagster-postgres opens a new connection for every statement (SQLAlchemy's
``NullPool``: nothing is held between runs of a long-lived process). An ingest
stores ~40 events per document, each several statements, so on loopback it
spent most of its time connecting: 200 tiny documents took 154 s against 46 s
pooled (bench/README.md, "PostgreSQL: pooled connections"). The webserver
avoids it with ``DagsterInstance.optimize_for_webserver`` (one held
connection, ``--db-pool-*`` options); the ingest uses the same call.

The ingest forks its parse children (runtime/isolation.py). A pooled
connection must never be used by two processes: SQLAlchemy's recipe for
``os.fork()`` (its "Using Connection Pools with Multiprocessing" section)
tags each connection with the process that opened it, and a checkout in
another process drops it, without closing the parent's socket, and opens
its own.
"""

from __future__ import annotations

import os

import dagster as dg
from sqlalchemy import event, exc
from sqlalchemy.pool import Pool

STATEMENT_TIMEOUT_MS = 0  # none: an ingest's statements are not a webserver's requests
POOL_RECYCLE_S = 3600
MAX_OVERFLOW = 20  # beyond the one held connection, opened and closed as needed

_guarded = False


def _tag_connection(dbapi_connection, record) -> None:
    record.info["pid"] = os.getpid()


def _refuse_other_process(dbapi_connection, record, proxy) -> None:
    if record.info.get("pid") != os.getpid():
        record.dbapi_connection = proxy.dbapi_connection = None  # the parent's socket: leave it open
        raise exc.DisconnectionError(f"connection opened by process {record.info.get('pid')}, not this one")


def guard_pools_across_fork() -> None:
    """Every SQLAlchemy pool of this process: a connection is used only by
    the process that opened it. Idempotent."""
    global _guarded
    if not _guarded:
        event.listen(Pool, "connect", _tag_connection)
        event.listen(Pool, "checkout", _refuse_other_process)
        _guarded = True


def pool_postgres_connections(instance: dg.DagsterInstance) -> None:
    """Hold a PostgreSQL connection per storage of ``instance`` instead of one
    per statement (no effect on a SQLite instance's own storage)."""
    guard_pools_across_fork()
    instance.optimize_for_webserver(
        statement_timeout=STATEMENT_TIMEOUT_MS, pool_recycle=POOL_RECYCLE_S, max_overflow=MAX_OVERFLOW
    )
