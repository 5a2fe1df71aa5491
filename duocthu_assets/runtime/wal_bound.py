"""A SQLite write-ahead log held under a bound, whoever reads meanwhile.

SQLite appends every committed page to the ``-wal`` file and copies them into
the database at each automatic checkpoint (PASSIVE: it never waits). The file
starts again from its beginning only when a checkpoint has copied every frame
*and* no reader still uses an older snapshot; with several processes reading
and writing the instance's index at once (the ingest's worker processes, the
UI, the daemon) that moment may not come, and the log then grows by whatever
is written, without bound. A ``TRUNCATE`` checkpoint waits (up to the busy
timeout) for the readers of the moment to finish, copies every frame and
empties the file; run once the file passes ``WAL_CHECKPOINT_AT``, it bounds the
log near that size. Dagster's files and rows are unchanged. The wait is short
(``CHECKPOINT_WAIT_S``): a reader that keeps its snapshot longer (a long
query) makes the checkpoint give up, and it is tried again only once the log
has grown by another bound's worth, so writes never wait on it for long.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3

WAL_CHECKPOINT_AT = 64 << 20  # bytes of -wal file past which a write checkpoints it
CHECKPOINT_WAIT_S = 2.0  # at most, for the readers of the moment to finish
_retry_past: dict[str, int] = {}  # database -> log size before which a checkpoint that gave up is not tried again


def bound_wal(database: str, timeout: float, limit: int | None = None) -> bool:
    """Checkpoint ``database``'s write-ahead log into it, emptying the file,
    when the file is larger than ``limit`` (default ``WAL_CHECKPOINT_AT``).
    Returns whether it did (fully)."""
    limit = WAL_CHECKPOINT_AT if limit is None else limit
    try:
        size = os.path.getsize(f"{database}-wal")
    except OSError:
        return False
    if size <= max(limit, _retry_past.get(database, 0)):
        return False
    with contextlib.closing(sqlite3.connect(database, timeout=min(timeout, CHECKPOINT_WAIT_S))) as conn:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        _retry_past[database] = size + limit
    else:
        _retry_past.pop(database, None)
    return busy == 0
