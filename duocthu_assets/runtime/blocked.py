"""What a blocked document leaves in Dagster, made truthful.

A blocking check that fails for a document fails its step, so its run ends
FAILURE, and every check planned in that run for the document's later assets
(chunks, embeddings...) was never evaluated: Dagster resolves such a check as
*execution failed*, as if the rule itself had crashed. And where a run over
a range plans each asset once for the range (the PostgreSQL instance:
``POSTGRES_EVENT_OPTIONS`` in instance.py), the document's unbuilt assets
show *missing*, like documents never run.

After such a run, for each blocked document (``settle_blocked`` in
`duocthu ingest`, ``settling_requests`` in the run-failure sensor), one more
run of the ingest job for that document: only the checks it never reached,
tagged ``NOT_EVALUATED_TAG`` (its value: "blocked upstream by asset.rule").
Their steps evaluate nothing and log why; the run succeeds, so Dagster shows
those checks *skipped* for the document, not failed. Its unbuilt assets
show *failed*, never-run ones *missing*: the failed run planned each asset
for each document (the SQLite instance, see event_log.py). When some later asset was never
planned for it (`duocthu ingest` runs a document refused on sight without
its embeddings), a run before that one evaluates the failing check again
with the later assets: it blocks them again and fails, so they read
*failed* too.

A document whose run failed for another reason (an error, not a check) is
left alone: *execution failed* is then the truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg

from checks.asset_checks import NOT_EVALUATED_TAG
from checks.registry import ALL_RULES, RULES_BY_ASSET

from .gates import check_keys

PLANNED, FAILED = "PLANNED", "FAILED"
SETTLES_TAG = "duocthu/settles_run"  # the failed run a settling run follows
_RULE_ORDER = {(rule.asset, rule.name): i for i, rule in enumerate(ALL_RULES)}
_ASSET_ORDER = list(RULES_BY_ASSET)  # the gated assets, in pipeline order


@dataclass(frozen=True)
class Unreached:
    doc_id: str
    blocked_by: dg.AssetCheckKey  # the first failing check, in pipeline order
    unreached: tuple[dg.AssetCheckKey, ...]  # checks of later assets: planned in a failed run or never planned
    failed_run_id: str
    unplanned: bool = False  # some later asset was never planned for it (`duocthu ingest` defers embeddings)

    @property
    def reason(self) -> str:
        return f"blocked upstream by {self.blocked_by.asset_key.to_user_string()}.{self.blocked_by.name}"


def _order(key: dg.AssetCheckKey) -> int:
    return _RULE_ORDER.get((key.asset_key.to_user_string(), key.name), len(_RULE_ORDER))


def find_unreached(instance: dg.DagsterInstance, doc_ids: list[str]) -> list[Unreached]:
    """The blocked documents among ``doc_ids`` with checks their failed run
    planned and never evaluated."""
    if not doc_ids:
        return []
    infos = instance.event_log_storage.get_asset_check_partition_info(check_keys(), partition_keys=doc_ids)
    by_doc: dict[str, list] = {}
    for info in infos:
        by_doc.setdefault(info.partition_key, []).append(info)
    planned_runs = {i.latest_planned_run_id for i in infos if i.latest_execution_status.value == PLANNED}
    failed_runs = {
        run.run_id
        for run in instance.get_runs(filters=dg.RunsFilter(run_ids=sorted(planned_runs), statuses=[dg.DagsterRunStatus.FAILURE]))
    } if planned_runs else set()
    found = []
    for doc_id in doc_ids:
        infos_of = {i.check_key: i for i in by_doc.get(doc_id, [])}
        failed = sorted((k for k, i in infos_of.items() if i.latest_execution_status.value == FAILED), key=_order)
        if not failed:
            continue
        first = failed[0]
        later = [k for k in check_keys() if _is_later(k, first)]
        stuck = [
            k for k in later
            if k in infos_of and infos_of[k].latest_execution_status.value == PLANNED
            and infos_of[k].latest_planned_run_id in failed_runs
        ]
        unplanned = [k for k in later if k not in infos_of]
        if not stuck:
            continue  # nothing planned in a failed run: settled already, or still running
        found.append(
            Unreached(
                doc_id=doc_id,
                blocked_by=first,
                unreached=tuple(sorted(stuck + unplanned, key=_order)),
                failed_run_id=infos_of[stuck[0]].latest_planned_run_id,
                unplanned=bool(unplanned),
            )
        )
    return found


def _is_later(key: dg.AssetCheckKey, blocking: dg.AssetCheckKey) -> bool:
    asset, blocked_at = key.asset_key.to_user_string(), blocking.asset_key.to_user_string()
    return asset in _ASSET_ORDER and _ASSET_ORDER.index(asset) > _ASSET_ORDER.index(blocked_at)


def downstream_assets(job: dg.JobDefinition, asset: dg.AssetKey) -> set[dg.AssetKey]:
    """The assets of the ingest job downstream of ``asset`` (not itself)."""
    graph = job.asset_layer.asset_graph
    return set(dg.AssetSelection.assets(asset).downstream(include_self=False).resolve(graph))


def settle_blocked(job: dg.JobDefinition, instance: dg.DagsterInstance, doc_ids: list[str], run_config=None) -> int:
    """The settling run (see the module) in process for each blocked document
    of ``doc_ids``; returns how many runs it took."""
    runs = 0
    for doc in find_unreached(instance, doc_ids):
        tags = {SETTLES_TAG: doc.failed_run_id}
        if doc.unplanned:
            # its later assets were never planned (grey, like never run): the
            # failing check once more with them, which blocks them again and
            # fails this run, so Dagster marks them failed for the document
            job.get_subset(
                asset_selection=downstream_assets(job, doc.blocked_by.asset_key), asset_check_selection={doc.blocked_by}
            ).execute_in_process(instance=instance, partition_key=doc.doc_id, tags=tags, raise_on_error=False, run_config=run_config)
            runs += 1
        skips = job.get_subset(asset_selection=set(), asset_check_selection=set(doc.unreached))
        skips.execute_in_process(
            instance=instance,
            partition_key=doc.doc_id,
            tags={**tags, NOT_EVALUATED_TAG: doc.reason},
            raise_on_error=False,
            run_config=run_config,
        )
        runs += 1
    return runs


def settling_requests(instance: dg.DagsterInstance, doc_ids: list[str], job_name: str) -> list[dg.RunRequest]:
    """The same, as run requests for a sensor."""
    return [
        dg.RunRequest(
            run_key=f"settle-{doc.failed_run_id}-{doc.doc_id}",
            job_name=job_name,
            partition_key=doc.doc_id,
            asset_selection=[],
            asset_check_keys=list(doc.unreached),
            tags={SETTLES_TAG: doc.failed_run_id, NOT_EVALUATED_TAG: doc.reason},
        )
        for doc in find_unreached(instance, doc_ids)
    ]
