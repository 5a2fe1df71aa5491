"""An index that finds a check's rows for one document without reading the
rows of every other.

Dagster asks for the latest status of a check per partition
(``get_asset_check_partition_info``: the status cache, the index refresh, the
UI's Partitions tab) with ``partition IN (…)``, grouped by partition. Its
indexes on ``asset_check_executions`` put ``partition`` after
``materialization_event_storage_id`` or ``run_id``, so SQLite and PostgreSQL
read every row of the check to keep one document's: 30,000 rows per check
after three builds of 10,000 documents, 4.4 ms a query, 34 queries to learn
one new document's statuses (0.14 s of adding one document at 10,000, and it
grows with every rebuild). With this index the same query reads that
document's rows: 0.024 ms.

Created once per storage when it opens (``IF NOT EXISTS``; building it on an
instance that already holds a million rows took 19 s, once). Dagster's own
tables and queries are unchanged: an instance opened by the stock storage
reads and writes as before, and keeps the index up to date as SQL does.

A second, partial index holds the failed rows only: a check's roll-up reads
the failed rows that are still their document's latest
(:mod:`duocthu_assets.runtime.check_rollup`) without reading the passed
ones. Failures are few, so it costs an evaluation nothing that passes.
"""

from __future__ import annotations

import sqlalchemy as db
from sqlalchemy.engine import Connection

NAME = "idx_duocthu_check_partition"
FAILED_NAME = "idx_duocthu_check_failed"
CREATE = db.text(f"CREATE INDEX IF NOT EXISTS {NAME} ON asset_check_executions (asset_key, check_name, partition, id)")
CREATE_FAILED = db.text(
    f"CREATE INDEX IF NOT EXISTS {FAILED_NAME} ON asset_check_executions (asset_key, check_name, partition, id) "
    "WHERE execution_status = 'FAILED'"
)


def ensure_check_partition_index(conn: Connection) -> None:
    conn.execute(CREATE)
    conn.execute(CREATE_FAILED)
