"""Making an ingest's runs: each round's planned runs (:mod:`.plan`)
executed in process, those without embeddings in parallel worker processes
when there are several; rounds repeated until every document finished, was
stopped by a failed blocking check, or met a run error (see :mod:`.ingest`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import dagster as dg

from .errors import root_cause
from .plan import INGEST_ASSETS, PlannedRun, plan_runs
from ..runtime.instance import PID_TAG, open_instance
from ..runtime.isolation import run_isolated
from ..runtime.run_outcome import tag_failed_run

MAX_ROUNDS = 12
# Dagster's console logger would print a stack trace for every blocked
# document; the summary says it better. The UI keeps the full event log.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass
class _RunOutcome:
    materialized: dict[str, set[str]] = field(default_factory=dict)  # doc -> assets
    failed_checks: dict[str, dict[str, str]] = field(default_factory=dict)  # doc -> check -> msg
    embedding_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    error: str = ""


@dataclass
class Rounds:
    """What the rounds of an ingest's runs did, by document."""

    stopped: dict[str, dict[str, str]] = field(default_factory=dict)  # doc -> failed blocking check -> message
    run_errors: dict[str, str] = field(default_factory=dict)  # doc -> the error that stopped its run
    embedding_stats: dict[str, dict[str, int]] = field(default_factory=dict)  # doc -> vectors computed, reused
    runs: int = 0


def _execute(job: dg.JobDefinition, instance: dg.DagsterInstance, keys: list[str], assets: set[str]) -> _RunOutcome:
    tags = (
        {"dagster/partition": keys[0]}
        if len(keys) == 1
        else {"dagster/asset_partition_range_start": keys[0], "dagster/asset_partition_range_end": keys[-1]}
    )
    tags[PID_TAG] = str(os.getpid())  # a run this process leaves NOT_STARTED when killed is released at once
    selection = None if set(assets) == set(INGEST_ASSETS) else [dg.AssetKey(a) for a in sorted(assets)]
    result = job.execute_in_process(
        instance=instance,
        tags=tags,
        asset_selection=selection,
        raise_on_error=False,
        run_config=QUIET,
    )
    outcome = _RunOutcome()
    for event in result.get_asset_materialization_events():
        materialization = event.event_specific_data.materialization
        outcome.materialized.setdefault(materialization.partition, set()).add(materialization.asset_key.path[-1])
        computed = materialization.metadata.get("vectors_computed")
        if computed is not None:
            reused = materialization.metadata.get("vectors_reused")
            outcome.embedding_stats[materialization.partition] = {
                "computed": computed.value, "reused": reused.value if reused else 0,
            }
    for evaluation in result.get_asset_check_evaluations():
        if not evaluation.passed and evaluation.partition:
            message = evaluation.metadata.get("message")
            outcome.failed_checks.setdefault(evaluation.partition, {})[evaluation.check_name] = message.value if message else ""
    if not result.success:
        tag_failed_run(instance, result.run_id, result.get_asset_check_evaluations())  # blocked (by what), or an error
    if not result.success and not outcome.failed_checks:
        failures = [e for e in result.all_events if e.is_step_failure]
        outcome.error = root_cause(failures[0].event_specific_data.error) if failures else "run failed"
    return outcome


def _execute_in_worker(job: dg.JobDefinition, warehouse_root: str, run: PlannedRun) -> _RunOutcome:
    """In a forked worker: its own instance (own connections), the same job."""
    instance = open_instance(warehouse_root)
    try:
        return _execute(job, instance, list(run.keys), set(run.assets))
    finally:
        instance.dispose()


def execute_round(
    job: dg.JobDefinition, instance: dg.DagsterInstance, warehouse_root: str, planned: list[PlannedRun], workers: int
) -> list[tuple[PlannedRun, _RunOutcome]]:
    """Runs without embeddings in parallel worker processes when there are
    several; the rest (and a lone run) here, one after another."""
    parallel = sorted((r for r in planned if not r.embeds), key=lambda r: -len(r.keys)) if workers > 1 else []
    if len(parallel) < 2:
        parallel = []  # one run is not worth a process
    done: list[tuple[PlannedRun, _RunOutcome]] = []
    if parallel:  # the largest first: the small ones fill in
        outcomes = run_isolated(
            _execute_in_worker,
            [(str(i), (job, warehouse_root, run)) for i, run in enumerate(parallel)],
            timeout_s=None, workers=workers, daemon=False,  # a run forks its parsers
        )
        for i, run in enumerate(parallel):
            outcome = outcomes[str(i)]
            if outcome.error is None:
                done.append((run, outcome.value))
            else:
                why = "the worker process died" if outcome.error_kind == "crash" else f"{type(outcome.error).__name__}: {outcome.error}"
                done.append((run, _RunOutcome(error=f"ingest worker failed: {why}")))
    for run in planned:
        if run not in parallel:
            done.append((run, _execute(job, instance, list(run.keys), set(run.assets))))
    return done


def run_rounds(
    job: dg.JobDefinition, instance: dg.DagsterInstance, warehouse_root: str, todo: list[str], order: list[str],
    workers: int, refused: set[str], large: frozenset[str] = frozenset(),
) -> Rounds:
    """Build every asset of each document of ``todo``: a round of planned
    runs, then another for the documents only skipped (because another
    document of their run failed), selecting just the assets they still
    need, until none is left (at most ``MAX_ROUNDS``). ``order``: the
    partitions in order; ``refused``: the documents refused on sight;
    ``large``: the documents that run alone, after the others (plan.py)."""
    remaining: dict[str, set[str]] = {doc: set(INGEST_ASSETS) for doc in todo}
    done = Rounds()
    for _ in range(MAX_ROUNDS):
        wanted = {
            doc: frozenset(assets)
            for doc, assets in remaining.items()
            if assets and doc not in done.stopped and doc not in done.run_errors
        }
        if not wanted:
            break
        planned = plan_runs(wanted, order, workers, apart=refused, alone=large)
        for run, outcome in execute_round(job, instance, warehouse_root, planned, workers):
            done.runs += 1
            done.embedding_stats.update(outcome.embedding_stats)
            for doc in run.keys:
                remaining[doc] -= outcome.materialized.get(doc, set())
                if outcome.failed_checks.get(doc):
                    done.stopped[doc] = outcome.failed_checks[doc]
                elif outcome.error:
                    # a step raised (not a check that failed): even where its assets
                    # were written, checks may be left unevaluated, so the document
                    # is not recorded as built and is built again next time
                    done.run_errors[doc] = outcome.error
                elif remaining[doc] & run.assets and not outcome.materialized.get(doc) and not outcome.failed_checks:
                    done.run_errors[doc] = "the run made no progress for this document"
    return done
