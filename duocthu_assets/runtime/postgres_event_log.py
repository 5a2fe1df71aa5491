"""dagster-postgres's event log, its planned check rows without a copy of the
plan each (:mod:`duocthu_assets.runtime.planned_checks`), a check's roll-up
red while any document fails it (:mod:`duocthu_assets.runtime.check_rollup`), a deleted run's
check rows deleted with it (:mod:`duocthu_assets.runtime.run_deletion`). Everything else is
the stock ``PostgresEventLogStorage``; selected by the PostgreSQL instance's
``dagster.yaml`` (:mod:`duocthu_assets.runtime.instance`). Needs the `scale`
extra (dagster-postgres)."""

from __future__ import annotations

from dagster_postgres import PostgresEventLogStorage
from dagster_postgres.utils import get_token_provider_from_config, pg_url_from_config

from .check_partition_index import ensure_check_partition_index
from .check_rollup import RollupReadsEveryDocument
from .check_states import CheckStatesInOnePass
from .planned_checks import PlannedCheckRowsWithoutCopies
from .run_deletion import DeletedRunsLeaveNothing


class PlannedOncePostgresEventLogStorage(
    DeletedRunsLeaveNothing, RollupReadsEveryDocument, PlannedCheckRowsWithoutCopies, CheckStatesInOnePass,
    PostgresEventLogStorage,
):
    @classmethod
    def from_config_value(cls, inst_data, config_value) -> "PlannedOncePostgresEventLogStorage":
        # dagster-postgres builds its own class here, not ``cls``
        autocreate = config_value.get("should_autocreate_tables", True)
        storage = cls(
            inst_data=inst_data,
            postgres_url=pg_url_from_config(config_value),
            should_autocreate_tables=autocreate,
            token_provider=get_token_provider_from_config(config_value),
        )
        if autocreate:  # otherwise the schema is its owner's
            with storage.index_connection() as conn:
                ensure_check_partition_index(conn)
        return storage
