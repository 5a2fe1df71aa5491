"""A deleted run leaves nothing behind: its check rows, and on SQLite its file.

``DagsterInstance.delete_run`` removes the run's row and its events (the run's
own event log and the index's copies), but not the ``asset_check_executions``
rows the run planned or evaluated, and Dagster's SQLite storage keeps the
run's own database file (``history/runs/<run_id>.db``) with its tables
emptied. Retention (:mod:`duocthu_assets.runtime.retention`) deletes only
superseded runs, whose check rows are never a partition's latest, so the
Checks tab reads the same with or without them; left behind, they would be
most of what a pruned run weighed (34 rows per document, 78 KB).

Mixed into both event logs duocthu selects (SQLite and PostgreSQL).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from .dagster_private import AssetCheckExecutionsTable


class DeletedRunsLeaveNothing:
    """Extends ``SqlEventLogStorage.delete_events`` (called by ``delete_run``)."""

    def delete_events(self, run_id: str) -> None:
        super().delete_events(run_id)  # type: ignore[misc]
        with self.index_connection() as conn:  # type: ignore[attr-defined]
            conn.execute(AssetCheckExecutionsTable.delete().where(AssetCheckExecutionsTable.c.run_id == run_id))
        self.forget_run_storage(run_id)

    def forget_run_storage(self, run_id: str) -> None:
        """Whatever the run kept apart from the shared tables (nothing on PostgreSQL)."""


def remove_sqlite_files(database: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)


def vacuum_sqlite(database: str, timeout: float) -> None:
    """Rewrite a SQLite file without its free space (its write-ahead log
    emptied after), e.g. a finished run's own file after retention deleted
    rows inside it."""
    with closing(sqlite3.connect(database, timeout=timeout, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_size_limit=0")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
