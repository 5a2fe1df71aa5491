"""The ingest holds pooled PostgreSQL connections (runtime/postgres_pool.py)
and forks its parse children: a child must never use a connection its
parent opened (two processes on one socket interleave their statements).
Shown here on a pooled SQLite engine, the same SQLAlchemy pool; the real
PostgreSQL ingest, forks included, runs in `make scale-test`."""

from __future__ import annotations

import multiprocessing
import os

from sqlalchemy import create_engine, text
from sqlalchemy.pool import QueuePool

from duocthu_assets.runtime.postgres_pool import guard_pools_across_fork


def _child_opened_by(engine, queue) -> None:
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
        queue.put((connection.connection.info["pid"], os.getpid()))


def _checkout_in_forked_child(engine) -> tuple[int, int]:
    """(the process that opened the connection a forked child checked out, the child's pid)."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_opened_by, args=(engine, queue))
    child.start()
    opened = queue.get(timeout=60)
    child.join(60)
    assert child.exitcode == 0
    return opened


def test_a_forked_child_opens_its_own_connection_and_leaves_the_parents_open(tmp_path):
    guard_pools_across_fork()
    guard_pools_across_fork()  # idempotent: one listener, not two
    engine = create_engine(f"sqlite:///{tmp_path / 'pool.db'}", poolclass=QueuePool, pool_size=1, max_overflow=0)
    with engine.connect() as connection:
        connection.execute(text("CREATE TABLE t (x INTEGER)"))
        connection.commit()
        held = connection.connection.dbapi_connection
        assert connection.connection.info["pid"] == os.getpid()

    opened_by, child_pid = _checkout_in_forked_child(engine)
    assert opened_by == child_pid != os.getpid()  # the child's own connection, not the parent's

    with engine.connect() as connection:  # the parent's pooled connection, still open and its own
        assert connection.connection.dbapi_connection is held
        connection.execute(text("INSERT INTO t VALUES (1)"))
        assert connection.execute(text("SELECT count(*) FROM t")).scalar() == 1


def test_without_the_guard_the_child_would_reuse_the_parents_connection(tmp_path):
    """The failure the guard prevents, shown by taking it away for a moment."""
    from sqlalchemy import event
    from sqlalchemy.pool import Pool

    from duocthu_assets.runtime import postgres_pool

    guard_pools_across_fork()
    engine = create_engine(f"sqlite:///{tmp_path / 'pool.db'}", poolclass=QueuePool, pool_size=1, max_overflow=0)
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
    event.remove(Pool, "checkout", postgres_pool._refuse_other_process)
    try:
        opened_by, child_pid = _checkout_in_forked_child(engine)
    finally:
        event.listen(Pool, "checkout", postgres_pool._refuse_other_process)
    assert opened_by == os.getpid() != child_pid  # the parent's socket, used by the child
