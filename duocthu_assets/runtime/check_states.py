"""A partitioned check's status per document, built in one pass.

The UI's Checks tab (``AssetChecksQuery``, ``AssetCheckPartitionHealthQuery``)
asks ``EventLogStorage.get_asset_check_state`` for each check's subsets of
documents that passed, failed, are in progress… Dagster 1.13 builds each
subset from the latest record of every partition by one union per record
(``asset_check_state._process_partition_records``): every union copies the
subset so far, so a check evaluated on N documents costs ~N²/2 key copies.
At 100,000 seeded documents the Checks tab took 130-240 s
(bench/scale_partitions.py); the webserver's time was in those unions.

This mixin answers with the same records, read by the same query, and the
same rules, record by record in the same order: a planned record puts its
document in progress (and under its run), a current pass or failure puts it
in that status, a stale one (the document rebuilt since) takes it out of
every status. Only the subsets are built once, from the keys gathered per
status, instead of once per record. Unpartitioned checks, and whatever this
storage's stored state already holds, go Dagster's way
(tests/runtime/test_check_states.py compares both on a real instance).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from dagster import DynamicPartitionsDefinition, RunsFilter

from .dagster_private import (
    FINISHED_STATUSES,
    AssetCheckExecutionRecordStatus,
    AssetCheckExecutionResolvedStatus,
    AssetCheckState,
    SerializableEntitySubset,
    bulk_update_asset_check_state,
    process_run_statuses,
)


class CheckStatesInOnePass:
    """``get_asset_check_state`` linear in the documents (mixed into the event log)."""

    def get_asset_check_state(self, keys: Sequence) -> Mapping:
        instance = self._instance
        initial = self.get_checkpointed_asset_check_state([key for key, _ in keys])
        fresh = [(key, p) for key, p in keys if p is not None and initial[key].latest_storage_id == 0]
        done = {key for key, _ in fresh}
        rest = [(key, p) for key, p in keys if key not in done]
        states = dict(bulk_update_asset_check_state(instance, rest, {k: initial[k] for k, _ in rest})) if rest else {}
        if fresh:
            states.update(check_states(instance, fresh))
        return states


def check_states(instance, keys: Sequence) -> dict:
    """Each partitioned check's state from nothing, as Dagster's
    ``bulk_update_asset_check_state`` builds it from an empty state."""
    check_keys = [key for key, _ in keys]
    infos = instance.event_log_storage.get_asset_check_partition_info(check_keys, after_storage_id=0)
    by_key: dict = defaultdict(list)
    planned_runs: set[str] = set()
    for info in infos:
        by_key[info.check_key].append(info)
        if info.latest_execution_status == AssetCheckExecutionRecordStatus.PLANNED:
            planned_runs.add(info.latest_planned_run_id)
    finished = {}
    if planned_runs:
        finished = {run.run_id: run.status for run in instance.get_runs(
            filters=RunsFilter(run_ids=sorted(planned_runs), statuses=list(FINISHED_STATUSES)))}
    return {key: _state(key, partitions_def, by_key[key], finished, instance) for key, partitions_def in keys}


def _state(key, partitions_def, infos: list, finished: Mapping, instance) -> AssetCheckState:
    valid = _validity(partitions_def, instance)
    gathered: dict = {status: {} for status in AssetCheckExecutionResolvedStatus}  # dicts: ordered sets
    runs: dict = defaultdict(dict)
    for info in infos:
        pk = info.partition_key
        if pk is None or not valid(pk):
            continue
        status = info.latest_execution_status
        if status == AssetCheckExecutionRecordStatus.PLANNED:
            gathered[AssetCheckExecutionResolvedStatus.IN_PROGRESS][pk] = None
            runs[info.latest_planned_run_id][pk] = None
        elif status in (AssetCheckExecutionRecordStatus.SUCCEEDED, AssetCheckExecutionRecordStatus.FAILED):
            if info.is_current:
                resolved = (AssetCheckExecutionResolvedStatus.SUCCEEDED if status == AssetCheckExecutionRecordStatus.SUCCEEDED
                            else AssetCheckExecutionResolvedStatus.FAILED)
                gathered[resolved][pk] = None
            else:
                for members in gathered.values():
                    members.pop(pk, None)
    subsets = {status: _subset(key, list(members), partitions_def) for status, members in gathered.items()}
    in_progress = {run_id: _subset(key, list(members), partitions_def) for run_id, members in runs.items()}
    subsets, in_progress = process_run_statuses(key, partitions_def, subsets, in_progress, finished)
    latest = max((max(i.latest_check_event_storage_id, i.latest_materialization_storage_id or 0) for i in infos), default=0)
    return AssetCheckState(latest_storage_id=latest, subsets=subsets, in_progress_runs=in_progress)


def _subset(key, partition_keys: list[str], partitions_def) -> SerializableEntitySubset:
    if not partition_keys:
        return SerializableEntitySubset.empty(key, partitions_def)
    return SerializableEntitySubset.from_coercible_value(key, partition_keys, partitions_def)


def _validity(partitions_def, instance):
    """Dagster keeps a record whose partition the definition still has: for a
    dynamic definition, one read of its keys instead of a lookup per record."""
    if isinstance(partitions_def, DynamicPartitionsDefinition) and partitions_def.name:
        known = set(instance.get_dynamic_partitions(partitions_def.name))
        return known.__contains__
    return partitions_def.has_partition_key
