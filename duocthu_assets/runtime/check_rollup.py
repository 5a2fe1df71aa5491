"""A partitioned check rolled up reads *failed* while any document's own
latest evaluation fails it, naming that document; *passed* when every
document's latest evaluation passed.

Dagster's roll-ups of a check — the asset's *Checks* list, the graph node's
"n / N passed", the catalog — read ``executionForLatestMaterialization``,
which loads ``EventLogStorage.get_latest_asset_check_execution_by_key``
without a partition: the check's newest row across all documents. So
``parsed_documents.document_parsed`` read green while locked.pdf failed it,
as soon as a later document passed it; the Partitions tab and the review
said otherwise.

This storage method answers, for a check key asked without a partition
filter, with the newest row among each document's *latest* rows that failed
— the failing document's own evaluation, so the UI names its partition,
its message and its run — and with Dagster's newest row when there is none.
A document that passed the check after failing it no longer holds it red. A
check a document never reached has no row for it (planned_checks.py), so no
roll-up reads *skipped* or *failed* because another rule blocked a document.
Asked with a partition filter (one document's page), or for an unpartitioned
check (the review's), the answer is Dagster's.

One SQL statement for every key asked: Dagster's newest row per check, and
the newest failed row per check that no later row of the same document
follows. The failed rows are read from a partial index of the failed rows
only (``idx_duocthu_check_failed``, :mod:`.check_partition_index`), each
probed for a later row through ``idx_duocthu_check_partition``: the cost
follows the failed rows, not the documents (100,000 passing documents add
nothing to it; bench/check_rollup.py). SQLite and PostgreSQL run the same
statement (``'FAILED'`` is spelled in the SQL, not bound, so SQLite may use
the partial index).

Mixed into both storages duocthu selects: the SQLite event log
(:mod:`duocthu_assets.runtime.event_log`) and the PostgreSQL one
(:mod:`duocthu_assets.runtime.postgres_event_log`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import dagster as dg
import sqlalchemy as db

from .dagster_private import AssetCheckExecutionRecord, AssetCheckExecutionsTable

FAILED_SQL = db.literal_column("'FAILED'")  # matches the partial index's WHERE (a bound value would not)
_NEWEST, _FAILING = 1, 0  # which of a check's rows the roll-up prefers (the lower)


def rollup_statement(check_keys: Sequence[dg.AssetCheckKey]) -> db.Select:
    """The rows the roll-up of each check reads: per check, Dagster's newest
    row (``pick`` 1) and the newest failed row that is its document's latest
    (``pick`` 0), if any."""
    t = AssetCheckExecutionsTable
    later = t.alias("later")
    asset_keys = sorted({key.asset_key.to_string() for key in check_keys})
    names = sorted({key.name for key in check_keys})
    of_keys = db.and_(t.c.asset_key.in_(asset_keys), t.c.check_name.in_(names))
    newest = (
        db.select(db.func.max(t.c.id).label("id"), db.literal(_NEWEST).label("pick"))
        .where(of_keys)
        .group_by(t.c.asset_key, t.c.check_name)
    )
    superseded = (
        db.select(later.c.id)
        .where(
            later.c.asset_key == t.c.asset_key,
            later.c.check_name == t.c.check_name,
            later.c.partition == t.c.partition,
            later.c.id > t.c.id,
        )
        .exists()
    )
    failing = (
        db.select(db.func.max(t.c.id).label("id"), db.literal(_FAILING).label("pick"))
        .where(of_keys, t.c.execution_status == FAILED_SQL, t.c.partition.isnot(None), ~superseded)
        .group_by(t.c.asset_key, t.c.check_name)
    )
    picks = db.union_all(newest, failing).subquery("picks")
    return db.select(
        t.c.id, t.c.asset_key, t.c.check_name, t.c.run_id, t.c.execution_status, t.c.evaluation_event,
        t.c.create_timestamp, t.c.partition, picks.c.pick,
    ).select_from(t.join(picks, t.c.id == picks.c.id))


class RollupReadsEveryDocument:
    """Overrides Dagster's ``SqlEventLogStorage.get_latest_asset_check_execution_by_key``."""

    def get_latest_asset_check_execution_by_key(
        self, check_keys: Sequence[dg.AssetCheckKey], partition_filter=None
    ) -> Mapping[dg.AssetCheckKey, AssetCheckExecutionRecord]:
        if partition_filter is not None or not check_keys:
            return super().get_latest_asset_check_execution_by_key(check_keys, partition_filter=partition_filter)
        with self.index_connection() as conn:
            rows = conn.execute(rollup_statement(check_keys)).mappings().all()
        chosen: dict[dg.AssetCheckKey, tuple[int, Mapping]] = {}
        for row in rows:  # at most two rows per check
            key = dg.AssetCheckKey(asset_key=dg.AssetKey.from_db_string(row["asset_key"]), name=row["check_name"])
            if key not in chosen or row["pick"] < chosen[key][0]:
                chosen[key] = (row["pick"], row)
        return {key: AssetCheckExecutionRecord.from_db_row(row, key=key) for key, (_, row) in chosen.items()}
