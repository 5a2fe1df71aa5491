"""The one door to Dagster's private API.

No other module of ``duocthu_assets`` or ``checks/`` imports a ``dagster._…``
(or ``dagster_shared``) name: tests/runtime/test_dagster_private.py fails naming any
file that does. Each name below says why it is needed and what public API
would replace it. A Dagster release that moves one breaks this import, here,
at once; one that changes what the custom event log writes fails
tests/runtime/test_scale_event_log_contract.py (Dagster's stock storage must read the
same runs, materializations and check evaluations).

No test, bench or script imports a private name either: those that need
Dagster's stock storage class import it from here.
"""

from __future__ import annotations

# -- the custom SQLite event log (runtime/event_log.py) ---------------------
# The class it subclasses, its index shard's name and busy timeout. Public
# replacement: none; Dagster documents choosing a storage in dagster.yaml,
# not extending one. Without the custom event log, none of these is needed.
from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    INDEX_SHARD_NAME,
    SQLITE_BUSY_TIMEOUT_SECONDS,
    SqliteEventLogStorage,
)

# The two tables held-back check evaluations are written to with statements
# built once. Public replacement: ``EventLogStorage.store_event`` (one event,
# new statements each time: the cost the custom log removes).
from dagster._core.storage.event_log.schema import AssetCheckExecutionsTable, SqlEventLogStorageTable

# -- retention inside a kept run (runtime/partition_retention.py) -----------
# The tables a superseded partition's rows are deleted from (with the two
# above). Public replacement: none; ``wipe_asset_partitions`` deletes a
# partition's whole history (its newest state with it) and ``delete_events``
# a whole run, and Dagster's own guide to shrinking its database deletes
# rows with SQL (docs.dagster.io, "Cleaning older data from your Dagster
# database").
from dagster._core.storage.event_log.schema import AssetEventTagsTable

# The status written to an ``asset_check_executions`` row. Public
# replacement: none exported (the strings PLANNED, SUCCEEDED, FAILED).
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus

# -- a check's roll-up (runtime/check_rollup.py) ---------------------------
# The record ``get_latest_asset_check_execution_by_key`` returns, built from
# a row as Dagster builds it. The roll-ups of the UI (Checks list, graph
# node, catalog: GraphQL's ``executionForLatestMaterialization``) load that
# storage method with no partition, and Dagster answers with the check's
# newest row across documents: green while another document fails it.
# check_rollup.py overrides the method (a public method of the abstract
# ``EventLogStorage``, undocumented) to answer with the failing document's
# row. Public replacement: none; without the override a roll-up shows the
# newest document's result.
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecord

# The filter a caller passes to that method to read one document's latest
# execution (check_rollup.py leaves those calls to Dagster; its test passes
# one). Public replacement: none exported.
from dagster._core.event_api import PartitionKeyFilter

# The event types Dagster itself writes as one batch under
# DAGSTER_EVENT_BATCH_SIZE. Public replacement: the ``dg.DagsterEventType``
# members listed by hand, which would drift from Dagster's own set.
from dagster._core.events import ASSET_EVENTS

# -- the checks (checks/asset_checks.py) -----------------------------------
# The type of ``dg.AssetCheckEvaluation(target_materialization_data=...)``,
# which ties a partition's evaluation to the materialization it checked
# (without it the UI shows every document's check as out of date). Public
# replacement: none; the argument is public, its type is not exported.
from dagster._core.definitions.asset_checks.asset_check_evaluation import (
    AssetCheckEvaluationTargetMaterializationData,
)

# How many records one event-log query may ask for (Dagster refuses more:
# ``MAX_LIMIT_GET_EVENT_RECORDS``, 10,000 by default), read as Dagster reads
# it, so the checks' batches follow it. Public replacement: none.
from dagster._core.storage.event_log.sql_event_log import get_max_event_records_limit

# -- tests of the planned check rows (tests/runtime/test_event_log.py) ---------------
# The event Dagster stores when a run starts, naming every partition a check
# will evaluate (runtime/planned_checks.py stores its rows once). Public
# replacement: none exported; a test could run a real job over 300
# partitions instead, at ~30x the time.
from dagster._core.definitions.asset_checks.asset_check_evaluation import AssetCheckEvaluationPlanned

# -- bench/scale_partitions.py (seeding 100,000 documents' events in bulk) ----
# A stored evaluation copied for another partition: AssetCheckEvaluation is a
# Dagster @record, whose fields are replaced only through this function.
# Public replacement: none; building a new evaluation from its public
# constructor would drop the fields the stored one carries.
from dagster_shared.record import copy as record_copy

# -- runtime/check_states.py (a check's status per document in one pass) ----
# The state the Checks tab reads, its statuses, the finished run statuses,
# and Dagster's own builder for what the one-pass path leaves to it (an
# unpartitioned check, a stored state) and for resolving in-progress runs.
# Public replacement: none; Dagster builds this state with one set copy per
# document (quadratic: 130-240 s a query at 100,000 documents).
from dagster._core.asset_graph_view.serializable_entity_subset import SerializableEntitySubset
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionResolvedStatus
from dagster._core.storage.asset_check_state import AssetCheckState, bulk_update_asset_check_state
from dagster._core.storage.asset_check_state import _process_run_statuses as process_run_statuses
from dagster._core.storage.dagster_run import FINISHED_STATUSES

__all__ = [
    "ASSET_EVENTS",
    "FINISHED_STATUSES",
    "INDEX_SHARD_NAME",
    "SQLITE_BUSY_TIMEOUT_SECONDS",
    "AssetCheckEvaluationPlanned",
    "AssetCheckEvaluationTargetMaterializationData",
    "AssetCheckExecutionRecord",
    "AssetCheckExecutionRecordStatus",
    "AssetCheckExecutionResolvedStatus",
    "AssetCheckExecutionsTable",
    "AssetCheckState",
    "AssetEventTagsTable",
    "PartitionKeyFilter",
    "SerializableEntitySubset",
    "SqlEventLogStorageTable",
    "SqliteEventLogStorage",
    "bulk_update_asset_check_state",
    "process_run_statuses",
    "record_copy",
]

# The private members of ``SqliteEventLogStorage`` runtime/event_log.py
# overrides or calls (no import names them, so they are listed here; the
# test checks each still exists on Dagster's class, and that event_log.py
# relies on no other).
SQLITE_EVENT_LOG_PRIVATE_MEMBERS = {
    "_connect": "overridden: one pooled engine per shard, not one engine per statement group",
    "_store_asset_check_evaluation_planned": "overridden: a planned check's rows with the event serialized once",
    "_db_lock": "held while a shard's engine is created and its schema made",
    "_initialized_dbs": "the shards whose schema is made",
    "_initdb": "makes a shard's schema (Dagster's own tables)",
    "_event_to_row": "an event's row, exactly as Dagster's store_event writes it",
    "_event_insert_timestamp": "the timestamp Dagster stores with an event",
    "_store_asset_event": "updates the asset's own row (last materialization, last run)",
    "_store_asset_event_tags": "writes an asset event's tags, as store_event does",
    "_update_asset_check_evaluation": "Dagster's own path for an evaluation with no planned row",
}

# Not private by name, but undocumented: runtime/gates.py reads
# ``instance.event_log_storage
# .get_asset_check_partition_info`` (each check's latest status per
# document in one query; the public ``instance.event_log_storage`` has no
# documented reader for it). checks/asset_checks.py spells a check's output
# name ``<asset>_<check>`` itself; Dagster names it
# ``dg.AssetCheckSpec.get_python_identifier()``, which it could call instead.
