"""`duocthu ingest`: every document through the same Definitions the UI uses,
in a few bounded in-process runs, with per-document isolation.

Why a loop of runs: one run over a range of documents costs about a second
whatever the range's size, while a run per document costs about two. But a
blocking check that fails for one document fails its check step, and Dagster
then skips the downstream step for *every* document of that run. So:

1. one run per contiguous range of documents to build, over every asset;
2. after it, each document either finished, or was stopped by a failed
   blocking check (it is *blocked*, and stays stopped), or was only skipped
   because another document in its run failed;
3. the skipped ones go again, selecting just the assets they still need,
   grouped into ranges; repeat until nothing is left.

A batch with no failures is one run; each failing stage adds at most one run
per range. The index is rebuilt once at the end, from the documents whose
checks all passed.

Both cores: a range of at least ``SPLIT_AT`` documents is cut into one part
per worker process (``DUOCTHU_INGEST_WORKERS``, default 2), each part a run of
the stages before embedding, in a forked process of its own; the embeddings
of the whole range then follow in one run in this process (the next round of
the loop above). Embedding stays in one process because the engine spreads
itself over both cores already, and because one writer keeps the vector
cache's shard files the same from one ingest to the next.
"""

from __future__ import annotations

import json
import gc
import os
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, TextIO

import dagster as dg

from .. import progress
from ..automation import record_built
from .blocked import settle_blocked
from ..definitions import build_definitions
from .gates import UNFINISHED, passing_documents
from ..inbox import scan
from ..registration import needs_build, register_files
from ..registry import Registry, active_doc_ids
from . import inbox_snapshot
from .instance import fail_orphaned_runs, open_instance
from .isolation import run_isolated
from ..jobs import INGEST_JOB, REFRESH_INDEX_JOB
from ..sources import refused_on_sight
from ..schemas import first_row
from ..warehouse import Warehouse, remove_stale_temp_files
from ..version import code_version

INGEST_ASSETS = ("raw_documents", "segments", "lifted_blocks", "parsed_documents", "crops", "chunks", "embeddings")
MAX_ROUNDS = 12
EMBEDDING_ASSET = "embeddings"
WORKERS_ENV = "DUOCTHU_INGEST_WORKERS"
SPLIT_AT = 40  # documents; a smaller range is not worth a process (its run costs ~1 s to set up)
# Dagster's console logger would print a stack trace for every blocked
# document; the summary says it better. The UI keeps the full event log.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass
class DocumentSummary:
    doc_id: str
    source: str
    status: str  # ok | rejected | failed | blocked
    reason: str = ""
    format: str = ""
    pages: int = 0
    segments: int = 0
    blocks: int = 0
    chunks: int = 0
    failed_checks: list[str] = field(default_factory=list)
    vectors_computed: int = 0
    vectors_reused: int = 0
    rebuilt: bool = True


@dataclass
class IngestResult:
    warehouse: str
    documents: list[DocumentSummary]
    runs: int
    seconds: float
    problems: list[str] = field(default_factory=list)  # paths that are no document: unreadable folder, dangling link...

    @property
    def all_ok(self) -> bool:
        return all(d.status == "ok" for d in self.documents) and not self.problems

    def to_json(self) -> str:
        return json.dumps(
            {"warehouse": self.warehouse, "runs": self.runs, "seconds": round(self.seconds, 2),
             "documents": [asdict(d) for d in self.documents], "problems": self.problems},
            ensure_ascii=False, indent=2,
        )


@dataclass
class _RunOutcome:
    materialized: dict[str, set[str]] = field(default_factory=dict)  # doc -> assets
    failed_checks: dict[str, dict[str, str]] = field(default_factory=dict)  # doc -> check -> msg
    embedding_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    error: str = ""


@dataclass(frozen=True)
class PlannedRun:
    keys: tuple[str, ...]
    assets: frozenset[str]

    @property
    def embeds(self) -> bool:
        return EMBEDDING_ASSET in self.assets


class IngestSettingError(ValueError):
    """A setting of `duocthu ingest` that cannot be used, said so the user can fix it."""


def ingest_workers() -> int:
    configured = os.environ.get(WORKERS_ENV, "").strip()
    if not configured:
        return max(1, min(2, os.cpu_count() or 1))
    if not configured.isdigit():
        raise IngestSettingError(f"{WORKERS_ENV} must be a whole number of worker processes (1 = no parallel runs), not {configured!r}")
    return max(1, int(configured))


def split_evenly(keys: list[str], parts: int) -> list[list[str]]:
    size, extra = divmod(len(keys), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(keys[start:end])
        start = end
    return [part for part in out if part]


def plan_runs(
    remaining: dict[str, frozenset[str]], order: list[str], workers: int, apart: Iterable[str] = ()
) -> list[PlannedRun]:
    """This round's runs: documents needing the same assets, in contiguous
    ranges. Documents in ``apart`` (refused on sight) get ranges of their own,
    so their failing check skips nobody else's stages. When ranges of at
    least ``SPLIT_AT // 2`` documents add up to ``SPLIT_AT`` or more and
    stages before embedding remain, those ranges run without their embeddings
    (they follow next round), each cut into as many parts as it holds
    workers' shares."""
    apart = set(apart)
    groups: dict[tuple[frozenset[str], bool], list[str]] = defaultdict(list)
    for doc, assets in remaining.items():
        groups[(assets, doc in apart)].append(doc)
    planned = []
    for (assets, refused), docs in groups.items():
        ranges = contiguous_ranges(docs, order)
        before_embedding = assets - {EMBEDDING_ASSET}
        if refused and before_embedding:
            # they stop at raw_documents; were the guess wrong, they embed next round
            planned += [PlannedRun(tuple(keys), before_embedding) for keys in ranges]
            continue
        large = [len(keys) >= SPLIT_AT // 2 for keys in ranges]
        in_large = sum(len(keys) for keys, is_large in zip(ranges, large) if is_large)
        parallel = workers > 1 and bool(before_embedding) and in_large >= SPLIT_AT
        share = -(-in_large // workers)  # documents per worker, rounded up
        for keys, is_large in zip(ranges, large):
            if parallel and is_large:
                parts = split_evenly(keys, max(1, round(len(keys) / share)))
                planned += [PlannedRun(tuple(part), before_embedding) for part in parts]
            else:
                planned.append(PlannedRun(tuple(keys), assets))
    return planned


def contiguous_ranges(keys: Iterable[str], order: list[str]) -> list[list[str]]:
    """Group ``keys`` into runs of consecutive partitions in ``order``."""
    position = {k: i for i, k in enumerate(order)}
    ranges: list[list[str]] = []
    for key in sorted(keys, key=lambda k: position[k]):
        if ranges and position[ranges[-1][-1]] + 1 == position[key]:
            ranges[-1].append(key)
        else:
            ranges.append([key])
    return ranges


def _execute(job: dg.JobDefinition, instance: dg.DagsterInstance, keys: list[str], assets: set[str]) -> _RunOutcome:
    tags = (
        {"dagster/partition": keys[0]}
        if len(keys) == 1
        else {"dagster/asset_partition_range_start": keys[0], "dagster/asset_partition_range_end": keys[-1]}
    )
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
    if not result.success and not outcome.failed_checks:
        failures = [e for e in result.all_events if e.is_step_failure]
        outcome.error = root_cause(failures[0].event_specific_data.error) if failures else "run failed"
    return outcome


def root_cause(error) -> str:
    """The innermost cause of a step's error (a ``SerializableErrorInfo``),
    which says what happened: "Error occurred while executing op crops" does
    not; "no space left on device while writing …" does."""
    while getattr(error, "cause", None) is not None and (error.cls_name or "").startswith("Dagster"):
        error = error.cause  # Dagster's wrappers ("Error occurred while executing op …") say where, not what
    return (error.message or "").strip() or "run failed"


def disk_full_message(exc: BaseException, warehouse_root: str) -> str | None:
    """For an ingest that stopped because the disk filled (Dagster's SQLite
    event log says only "disk I/O error" or "database or disk is full"), what
    to tell the user; None for any other error."""
    import errno
    import shutil
    import sqlite3

    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        text = str(error).lower()
        full = (isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)) or "no space left" in text
        try:
            free = shutil.disk_usage(Path(warehouse_root).absolute()).free
        except OSError:
            free = None
        if isinstance(error, sqlite3.OperationalError) or "sqlite3.operationalerror" in text:
            # SQLite says "disk I/O error" when a write hits a full disk: believed when the disk is (nearly) full
            full = full or "disk is full" in text or ("disk i/o error" in text and free is not None and free < 64 << 20)
        if full:
            room = f" ({free // (1 << 20):,} MiB free now)" if free is not None else ""
            said = str(error).splitlines()[0].split(" — free some space")[0]  # a DiskFullError already advises: once is enough
            return (f"no space left on device while writing the warehouse {warehouse_root}{room}: {said} — "
                    "free some space (or move the warehouse to a larger disk) and run the same ingest again; what was "
                    "written is complete, and the documents not recorded as built are built again")
        error = error.__cause__ or error.__context__
    return None


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


def ingest(
    paths: list[str],
    warehouse_root: str,
    profile: str | None = None,
    out: TextIO | None = None,
    show_progress: bool = True,
) -> IngestResult:
    """Ingest ``paths`` into the warehouse (see :func:`_ingest`). What this
    process holds before and after the registry is read (Dagster, the
    definitions, one record per document) is frozen out of the cyclic
    garbage collector's view for the ingest's duration: a full collection
    otherwise walks every registry record again (at 3,000 documents 0.43 s
    of 3.4 s in three collections, 0.26 s at 0); unfrozen at the end, so
    nothing stays uncollectable."""
    gc.freeze()
    try:
        return _ingest(paths, warehouse_root, profile, out, show_progress)
    finally:
        gc.unfreeze()


def _ingest(
    paths: list[str],
    warehouse_root: str,
    profile: str | None,
    out: TextIO | None,
    show_progress: bool,
) -> IngestResult:
    started = time.monotonic()
    workers = ingest_workers()
    if show_progress:
        os.environ[progress.ENV] = "1"
    warehouse = Warehouse(warehouse_root)
    if warehouse.is_local:
        stale = remove_stale_temp_files(warehouse.root.path)
        if stale:
            print(f"duocthu: removed {len(stale)} temporary file(s) left by a killed or failed write", file=sys.stderr)
    instance = open_instance(warehouse_root)
    released = fail_orphaned_runs(instance)
    if released:
        print(f"duocthu: released {len(released)} run(s) left running by a killed process", file=sys.stderr)
    version = code_version()
    listing = inbox_snapshot.listing_digest(paths) if warehouse.is_local else None  # before the scan: see inbox_snapshot
    if not released:
        remembered = inbox_snapshot.load(instance, inbox_snapshot.snapshot_key(instance, warehouse.root.path, paths, profile, version, listing))
        if remembered is not None:
            return _unchanged_result(remembered, warehouse, started, out)
    defs = build_definitions(warehouse_root)
    job = defs.resolve_job_def(INGEST_JOB)

    registry = Registry(warehouse)
    found = scan(paths)
    records, vanished = register_files(registry, found.found, profile, refused=found.refused)
    problems = [*found.problems, *vanished]
    registry.save()
    gc.freeze()  # the registry's records too (see ingest)
    for problem in problems:
        print(f"duocthu: {problem}", file=sys.stderr)
    to_build = [r for r in records if needs_build(r, version)]
    todo = [r.doc_id for r in to_build]
    print(f"duocthu: {len(records)} documents, {len(todo)} to build, {len(records) - len(todo)} unchanged", file=sys.stderr)
    refused = {r.doc_id for r in to_build if refused_on_sight(r)}

    partitions = list(instance.get_dynamic_partitions("documents"))
    known = set(partitions)
    # new partitions in discovery order, those refused on sight last: a run
    # covers a contiguous range of partitions, so a refused file in the
    # middle would cut the others' range in two (two embedding runs, not one)
    new_keys = sorted((r.doc_id for r in records if r.doc_id not in known), key=lambda doc: doc in refused)
    if new_keys:
        instance.add_dynamic_partitions("documents", new_keys)
        partitions = list(instance.get_dynamic_partitions("documents"))
    order = partitions

    remaining: dict[str, set[str]] = {doc: set(INGEST_ASSETS) for doc in todo}
    stopped: dict[str, dict[str, str]] = {}
    run_errors: dict[str, str] = {}
    embedding_stats: dict[str, dict[str, int]] = {}
    runs = 0
    for _ in range(MAX_ROUNDS):
        wanted = {
            doc: frozenset(assets)
            for doc, assets in remaining.items()
            if assets and doc not in stopped and doc not in run_errors
        }
        if not wanted:
            break
        planned = plan_runs(wanted, order, workers, apart=refused)
        for run, outcome in execute_round(job, instance, warehouse_root, planned, workers):
            runs += 1
            embedding_stats.update(outcome.embedding_stats)
            for doc in run.keys:
                remaining[doc] -= outcome.materialized.get(doc, set())
                if outcome.failed_checks.get(doc):
                    stopped[doc] = outcome.failed_checks[doc]
                elif outcome.error:
                    # a step raised (not a check that failed): even where its assets
                    # were written, checks may be left unevaluated, so the document
                    # is not recorded as built and is built again next time
                    run_errors[doc] = outcome.error
                elif remaining[doc] & run.assets and not outcome.materialized.get(doc) and not outcome.failed_checks:
                    run_errors[doc] = "the run made no progress for this document"

    runs += settle_blocked(job, instance, sorted(stopped), run_config=QUIET)  # their unreached checks: skipped
    runs += refresh_index_until_current(defs, instance, warehouse, force=bool(todo), built=todo)

    # a row for each document built (or tried), totals for the rest: the
    # unchanged ones are summarized from what the registry remembers
    touched = set(todo)
    summaries = summarize(warehouse, instance, registry, [r.doc_id for r in records if r.doc_id in touched],
                          stopped, run_errors, embedding_stats, touched)
    summaries += summarize_unchanged(warehouse, instance, registry, [r.doc_id for r in records if r.doc_id not in touched])
    remember_outcomes(registry, summaries, version)
    record_built(registry, [d for d in todo if d not in run_errors], version)  # saves the outcomes too: one write
    position = {r.doc_id: i for i, r in enumerate(records)}
    summaries.sort(key=lambda d: position[d.doc_id])
    result = IngestResult(str(warehouse.root), summaries, runs, time.monotonic() - started, problems)
    remember_snapshot(instance, warehouse, registry, paths, profile, version, listing, result, found, run_errors)
    print_summary(result, out or sys.stdout)  # read at call time: a captured stdout may be gone by then
    return result


def as_unchanged(summary: DocumentSummary) -> dict:
    """A summary as the next ingest prints it when the document is unchanged
    (what :func:`summarize_unchanged` gives from the outcome remembered)."""
    row = {**vars(summary), "failed_checks": list(summary.failed_checks)}  # asdict() deep-copies: 10x slower
    row["vectors_reused"] += row["vectors_computed"]
    row["vectors_computed"], row["rebuilt"] = 0, False
    return row


def remember_snapshot(instance, warehouse: Warehouse, registry: Registry, paths: list[str], profile: str | None, version: str,
                      listing: str | None, result: IngestResult, found, run_errors: dict[str, str]) -> None:
    """Remember this ingest's summaries for the next one over the same,
    unchanged inbox (:mod:`inbox_snapshot`); only when nothing is left to
    do or to report: no problem, no run error, no document still due."""
    records = registry.records
    complete = (
        listing is not None and not result.problems and not run_errors and not found.refused
        and all(d.status != "failed" and d.doc_id in records and not needs_build(records[d.doc_id], version) for d in result.documents)
    )
    key = inbox_snapshot.snapshot_key(instance, warehouse.root.path, paths, profile, version, listing) if complete else None
    roots = [root + os.sep for root in inbox_snapshot.roots_of(paths)]
    present = {str(f) for _, f in found.found}
    all_present = not any(
        r.status == "active" and r.path not in present and r.path.startswith(tuple(roots)) for r in records.values()
    )
    inbox_snapshot.save(instance, key, [as_unchanged(d) for d in result.documents], all_present)


def _unchanged_result(remembered: dict, warehouse: Warehouse, started: float, out: TextIO | None) -> IngestResult:
    """The result of an ingest that found its inbox as the last one left it."""
    summaries = [DocumentSummary(**row) for row in remembered["documents"]]
    print(f"duocthu: {len(summaries)} documents, 0 to build, {len(summaries)} unchanged", file=sys.stderr)
    result = IngestResult(str(warehouse.root), summaries, 0, time.monotonic() - started, [])
    print_summary(result, out or sys.stdout)
    return result


INDEX_ATTEMPTS = 4


def index_agrees(instance: dg.DagsterInstance, warehouse: Warehouse) -> bool:
    """Whether ``search_index`` was built from exactly the documents that pass
    now (every active document whose blocking checks all passed), from their
    current chunks and embeddings files."""
    from ..retrieval import index_is_current

    active = active_doc_ids(warehouse)
    return index_is_current(warehouse, passing_documents(instance, warehouse, active).passed)


COMPACT_ONLY_AT_MOST = 2000  # documents named in the refresh run's config (it is stored with the run); more: every folder is listed


def refresh_index_until_current(
    defs: dg.Definitions, instance: dg.DagsterInstance, warehouse: Warehouse, force: bool, built: list[str] | None = None
) -> int:
    """Rebuild the index (when ``force`` or when it disagrees with what
    passed) until it agrees; returns the runs it took. Another process
    (a second ingest, the UI's sensor) may write the index between this
    build and its check: then it is built again, so the last writer to
    finish leaves an index holding every document that passed.
    ``built``: the documents this ingest built, the only ones whose tables
    (``warehouse_tables``) need rewriting; None: every folder is listed."""
    runs = 0
    config = QUIET
    if built is not None and len(built) <= COMPACT_ONLY_AT_MOST:
        config = {**QUIET, "ops": {"warehouse_tables": {"config": {"only": sorted(built)}}}}
    for _ in range(INDEX_ATTEMPTS):
        if not force and index_agrees(instance, warehouse):
            break
        force = False
        since = datetime.now(timezone.utc)
        result = defs.resolve_job_def(REFRESH_INDEX_JOB).execute_in_process(instance=instance, raise_on_error=True, run_config=config)
        runs += 1
        if ran_alone(instance, result.run_id, since):
            break  # no other run wrote while it built: the index agrees by construction
    return runs


def ran_alone(instance: dg.DagsterInstance, run_id: str, since: datetime) -> bool:
    """Whether no run but ``run_id`` was unfinished, or changed its status,
    from ``since`` to now: every write to the warehouse is a run's, so the
    index that run built from what passed is still the index of what passes
    (at 10,000 documents this spares ``index_agrees``' second ``stat`` of
    every document's two files; another ingest or the UI's runs at the same
    time send the refresh back to :func:`index_agrees`)."""
    others = instance.get_run_records(filters=dg.RunsFilter(updated_after=since), limit=2)
    if any(r.dagster_run.run_id != run_id for r in others):
        return False
    unfinished = instance.get_run_records(filters=dg.RunsFilter(statuses=UNFINISHED), limit=2)
    return not any(r.dagster_run.run_id != run_id for r in unfinished)


def summarize(
    warehouse: Warehouse,
    instance: dg.DagsterInstance,
    registry: Registry,
    doc_ids: list[str],
    stopped: dict[str, dict[str, str]],
    run_errors: dict[str, str],
    embedding_stats: dict[str, dict[str, int]],
    rebuilt: set[str],
) -> list[DocumentSummary]:
    gates = passing_documents(instance, warehouse, doc_ids)
    summaries = []
    for doc_id in doc_ids:
        record = registry.records[doc_id]
        raw = first_row(warehouse.read_table("raw_documents", doc_id))
        parsed = first_row(warehouse.read_table("parsed_documents", doc_id))
        summary = DocumentSummary(doc_id=doc_id, source=record.source_name, status="ok", rebuilt=doc_id in rebuilt)
        if raw:
            summary.format, summary.pages = raw["format"], raw["page_count"]
        if parsed:
            summary.segments, summary.blocks = parsed["segment_count"], parsed["block_count"]
            summary.pages = parsed["page_count"] or summary.pages
        chunks = warehouse.read_table("chunks", doc_id)
        summary.chunks = 0 if chunks is None else chunks.num_rows
        stats = embedding_stats.get(doc_id)
        if stats is not None:
            summary.vectors_computed, summary.vectors_reused = stats["computed"], stats["reused"]
        elif doc_id not in rebuilt:
            # unchanged: its stored vectors stay in use, none computed
            embeddings = warehouse.read_table("embeddings", doc_id)
            summary.vectors_reused = 0 if embeddings is None else embeddings.num_rows
        failed = stopped.get(doc_id, {})
        summary.failed_checks = sorted(failed) or gates.failed_checks.get(doc_id, [])
        if doc_id in run_errors:
            summary.status, summary.reason = "failed", run_errors[doc_id]
        elif raw is not None and raw["status"] == "removed" and record.status == "active":
            summary.status, summary.reason = "failed", raw["reason"]  # vanished while being ingested
        elif raw is None or raw["status"] == "rejected":
            summary.status, summary.reason = "rejected", (raw or {}).get("reason", "not read")
        elif parsed is not None and parsed["status"] == "rejected":
            summary.status, summary.reason = "rejected", parsed["reason"]
        elif parsed is not None and parsed["status"] == "failed":
            summary.status, summary.reason = "failed", parsed["reason"]
        elif failed:
            summary.status, summary.reason = "blocked", "; ".join(f"{k}: {v}" for k, v in sorted(failed.items()))
        elif doc_id in gates.failed:
            summary.status, summary.reason = "blocked", gates.failed[doc_id]
        if summary.status != "ok":
            summary.chunks = summary.chunks if summary.status == "blocked" else 0
        summaries.append(summary)
    return summaries


OUTCOME_FIELDS = ("status", "reason", "format", "pages", "segments", "blocks", "chunks", "failed_checks", "vectors_reused")
GATED = ("ok", "blocked")
UNCHANGED_SHOWN = 20  # unchanged documents that are not ok, named in the summary  # statuses the blocking checks decide (the others come from the files)


def built_as(record, version: str) -> dict:
    """The ``built`` that ``automation.record_built`` gives a record built now."""
    built = {"sha256": record.sha256, "code_version": version, "settings": record.settings, "status": record.status}
    if record.refused:
        built["refused"] = record.refused
    return built


def outcome_key(built: dict) -> str:
    """What a remembered outcome holds for: the content, code version, status
    and refusal it was built with (the settings are in ``built`` too, and a
    change to them makes the document due, so it is summarized afresh)."""
    return f"{built.get('sha256', '')}|{built.get('code_version', '')}|{built.get('status', '')}|{built.get('refused', '')}"


def remember_outcomes(registry: Registry, summaries: list[DocumentSummary], version: str) -> None:
    """Keep each summary in its registry record, with the ``built`` it holds
    for, so the next ingest that finds the document unchanged summarizes it
    from the registry instead of reading four Parquet files. Not saved here:
    ``record_built`` saves right after (one write of the registry)."""
    for summary in summaries:
        record = registry.records.get(summary.doc_id)
        if record is None or summary.status == "failed":
            continue  # a run error is built again next time (and summarized then)
        vectors = summary.vectors_computed + summary.vectors_reused
        built = built_as(record, version) if summary.rebuilt else record.built
        if not built:
            continue
        outcome = {**{f: getattr(summary, f) for f in OUTCOME_FIELDS}, "vectors_reused": vectors, "built": outcome_key(built)}
        if record.outcome != outcome:  # compared first: the copy below is most of the cost, and most outcomes hold
            record.outcome = json.loads(json.dumps(outcome))  # a new dict: shares nothing with what was loaded


def summarize_unchanged(warehouse: Warehouse, instance: dg.DagsterInstance, registry: Registry, doc_ids: list[str]) -> list[DocumentSummary]:
    """Summaries of documents this ingest did not build: from what the
    registry remembers of each (:func:`remember_outcomes`), as long as it
    holds for the ``built`` the document still has; whether its blocking
    checks pass is asked of the instance again (one query for all). A
    document with nothing remembered (built by the UI's sensors, or by an
    older version) is summarized from its files, once."""
    if not doc_ids:
        return []
    remembered: dict[str, dict] = {}
    for doc_id in doc_ids:
        record = registry.records[doc_id]
        outcome = record.outcome
        if outcome and outcome.get("built") == outcome_key(record.built) and all(f in outcome for f in OUTCOME_FIELDS):
            remembered[doc_id] = outcome
    missing = [d for d in doc_ids if d not in remembered]
    full = {s.doc_id: s for s in summarize(warehouse, instance, registry, missing, {}, {}, {}, set())} if missing else {}
    gated = [d for d in remembered if remembered[d]["status"] in GATED]
    gates = passing_documents(instance, warehouse, gated) if gated else None
    summaries = []
    for doc_id in doc_ids:
        if doc_id in full:
            summaries.append(full[doc_id])
            continue
        outcome = remembered[doc_id]
        summary = DocumentSummary(doc_id=doc_id, source=registry.records[doc_id].source_name, rebuilt=False,
                                  **{f: outcome[f] for f in OUTCOME_FIELDS})
        summary.failed_checks = list(summary.failed_checks)
        if gates is not None and summary.status in GATED:  # the checks' latest word, not the remembered one
            if doc_id in gates.failed:
                if summary.status == "ok" or not summary.reason:
                    summary.status, summary.reason = "blocked", gates.failed[doc_id]
                summary.failed_checks = summary.failed_checks or gates.failed_checks.get(doc_id, [])
            else:
                summary.status, summary.reason, summary.failed_checks = "ok", "", []
        summaries.append(summary)
    return summaries


def print_summary(result: IngestResult, out: TextIO) -> None:
    """A row for each document this ingest built (or tried to), totals for
    the rest; ``--report FILE`` (``IngestResult.to_json``) has every one."""
    touched = [d for d in result.documents if d.rebuilt]
    width = max([len(d.doc_id) for d in touched] + [8])
    if touched:
        print(f"\n{'document':<{width}}  {'status':<8} {'pages':>5} {'blocks':>6} {'chunks':>6} {'vectors':>13}  reason / failed checks", file=out)
    for d in touched:
        vectors = f"{d.vectors_computed}+{d.vectors_reused}r"
        detail = d.reason or ""
        print(f"{d.doc_id:<{width}}  {d.status:<8} {d.pages:>5} {d.blocks:>6} {d.chunks:>6} {vectors:>13}  {detail[:160]}", file=out)
    unchanged = [d for d in result.documents if not d.rebuilt]
    if unchanged:
        by_status: dict[str, int] = defaultdict(int)
        for d in unchanged:
            by_status[d.status] += 1
        kinds = ", ".join(f"{n} {s}" for s, n in sorted(by_status.items()))
        chunks = sum(d.chunks for d in unchanged)
        print(f"\nunchanged since built: {len(unchanged)} documents ({kinds}; {chunks} chunks, "
              f"{sum(d.vectors_reused for d in unchanged)} vectors kept) — `--report FILE` lists every document", file=out)
        not_ok = [d for d in unchanged if d.status != "ok"]
        for d in not_ok[:UNCHANGED_SHOWN]:
            print(f"  {d.doc_id}: {d.status} — {(d.reason or '')[:160]}", file=out)
        if len(not_ok) > UNCHANGED_SHOWN:
            print(f"  … and {len(not_ok) - UNCHANGED_SHOWN} more not ok (see --report)", file=out)
    counts: dict[str, int] = defaultdict(int)
    for d in result.documents:
        counts[d.status] += 1
    if result.problems:
        print(f"\nnot ingested ({len(result.problems)}):", file=out)
        for problem in result.problems:
            print(f"  {problem}", file=out)
    totals = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    print(f"\n{len(result.documents)} documents: {totals}; {result.runs} Dagster runs in {result.seconds:.1f} s; "
          f"warehouse: {result.warehouse}", file=out)
